//! `tfgate render plan|apply FILE` and `tfgate classify`: preview offline exactly what the
//! bot would post, and classify error messages in bulk.

use std::io::Read;
use std::path::Path;

use anyhow::{Context, Result};

use crate::redact::{Placeholders, RedactionConfig, Redactor};
use crate::render::{ApplyComment, CommentMeta, PlanComment, Renderer};
use crate::results::{apply_root, plan_root, RootIdent};
use crate::terraform::{apply_outcome, parse_plan_json, parse_ui_stream, plan_summary};

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

fn meta() -> CommentMeta {
    CommentMeta {
        pr: 0,
        marker_root: "local".into(),
        run_id: "local".into(),
        head_sha_short: None,
        command_by: None,
        check_run_url: None,
    }
}

fn local_root(path: &Path) -> RootIdent {
    RootIdent {
        project: path
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default(),
        dir: ".".into(),
        workspace: "default".into(),
    }
}

/// Markdown of the plan comment for a `terraform show -json` file.
pub fn render_plan(path: &Path) -> Result<String> {
    let redactor = Redactor::new(&RedactionConfig::default())?;
    // The file and its parse are dropped before rendering: only the summary is needed.
    let summary = {
        let text = read(path)?;
        let plan = parse_plan_json(&text).with_context(|| format!("parsing {}", path.display()))?;
        plan_summary(&plan)
    };
    let root = plan_root(
        &local_root(path),
        &summary,
        &redactor,
        &mut Placeholders::new(),
    );
    drop(summary);
    Ok(Renderer::new()?.render_plan(&PlanComment {
        meta: meta(),
        repo_root_summaries: vec![root],
        drift_warnings: vec![],
        denials: vec![],
        notes: vec![],
    })?)
}

/// Markdown of the apply comment for an `apply -json` stream (optionally with its plan JSON,
/// so resources that were never reached are listed too).
pub fn render_apply(path: &Path, plan: Option<&Path>) -> Result<String> {
    let text = read(path)?;
    let stream = parse_ui_stream(&text).with_context(|| format!("parsing {}", path.display()))?;
    let planned = match plan {
        Some(p) => {
            let plan_text = read(p)?;
            let plan =
                parse_plan_json(&plan_text).with_context(|| format!("parsing {}", p.display()))?;
            plan_summary(&plan).change_refs()
        }
        None => Vec::new(),
    };
    let outcome = apply_outcome(&stream, &planned);
    let redactor = Redactor::new(&RedactionConfig::default())?;
    let root = apply_root(
        &local_root(path),
        &outcome,
        &|_| false,
        &redactor,
        &mut Placeholders::new(),
    );
    Ok(Renderer::new()?.render_apply(&ApplyComment {
        meta: meta(),
        roots: vec![root],
        notes: vec![],
    })?)
}

/// JSON lines with `message` (optional `id`, `address`) on stdin → classifications on stdout.
pub fn classify_stdin() -> Result<String> {
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .context("reading standard input")?;
    crate::classify::classify_jsonl(&input).map_err(|e| anyhow::anyhow!("{e}"))
}

/// Redact standard input (the same rules as comments; `patterns` are extra admin regexes).
pub fn redact_stdin(patterns: Vec<String>) -> Result<String> {
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .context("reading standard input")?;
    let redactor = Redactor::new(&RedactionConfig {
        extra_patterns: patterns,
        secret_values: Vec::new(),
    })?;
    Ok(redactor.redact(&input, &mut Placeholders::new()))
}
