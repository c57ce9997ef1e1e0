//! Loading templates: the embedded defaults, then the admin's override directory.
//!
//! Every template is compiled here, so a syntax error is reported at start-up with the file
//! and line, not when a run first needs the template.

use std::path::Path;

use minijinja::Environment;

use super::{RenderError, DEFAULT_TEMPLATES};

/// One template source and where it came from (shown in errors).
pub(super) struct TemplateFile {
    /// The template name (`plan.md.j2`); an override replaces the default of that name.
    pub name: String,
    pub source: String,
    /// The file to fix when it does not compile: a path, or the embedded name.
    pub origin: String,
}

/// The override files of `dir`: every `*.j2` file directly in it, sorted by name.
pub(super) fn read_override_dir(dir: &Path) -> Result<Vec<TemplateFile>, RenderError> {
    let dir_error = |message: String| RenderError::TemplateDir {
        dir: dir.display().to_string(),
        message,
    };
    let entries = std::fs::read_dir(dir).map_err(|e| dir_error(e.to_string()))?;
    let mut files = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| dir_error(e.to_string()))?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if !name.ends_with(".j2") || !path.is_file() {
            continue;
        }
        let source = std::fs::read_to_string(&path).map_err(|e| RenderError::TemplateDir {
            dir: path.display().to_string(),
            message: e.to_string(),
        })?;
        files.push(TemplateFile {
            name: name.to_string(),
            source,
            origin: path.display().to_string(),
        });
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(files)
}

/// Compiles the defaults, then `overrides` over them. A new name must be a partial
/// (`_*.j2`): any other unknown name is a typo that would silently never be used.
pub(super) fn compile_all(
    env: &mut Environment<'static>,
    overrides: Vec<TemplateFile>,
) -> Result<(), RenderError> {
    for (name, source) in DEFAULT_TEMPLATES {
        compile(
            env,
            TemplateFile {
                name: name.to_string(),
                source: source.to_string(),
                origin: format!("{name} (embedded)"),
            },
        )?;
    }
    for file in overrides {
        let known = DEFAULT_TEMPLATES.iter().any(|(n, _)| *n == file.name);
        if !known && !file.name.starts_with('_') {
            return Err(RenderError::UnknownTemplate(file.origin));
        }
        compile(env, file)?;
    }
    Ok(())
}

fn compile(env: &mut Environment<'static>, file: TemplateFile) -> Result<(), RenderError> {
    let TemplateFile {
        name,
        source,
        origin,
    } = file;
    env.add_template_owned(name, source)
        .map_err(|e| RenderError::Syntax {
            file: origin,
            line: e.line().unwrap_or(0),
            message: match e.detail() {
                Some(detail) => format!("{}: {detail}", e.kind()),
                None => e.kind().to_string(),
            },
        })
}
