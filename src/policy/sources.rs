//! Which server-side sources a policy's `inputs` and `registry_tokens` may name. Their values
//! reach plan-time code (`TF_VAR_*`) or the registries, so a policy must not point them at
//! tfgate's own secrets: `TFGATE_*` environment variables and `DATABASE_URL`, files under the
//! data directory (the sealing key, the database, the App credentials, other runs' work
//! directories) or the App's private key file.
//!
//! Pure: the environment-variable rule needs nothing of the server and is part of every
//! policy check; the paths are given by the server ([`ProtectedPaths`]), and a link is
//! followed by the `resolve` function it passes in.

use std::path::{Component, Path, PathBuf};

use super::locate::{idx, key, locate, Seg};
use super::model::InputSource;
use super::{PolicyProblem, PolicySet};

/// The server's own files, absolute: no `file:` source may be one of them or under them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProtectedPaths {
    /// Directories (the data directory, the work directory).
    pub dirs: Vec<PathBuf>,
    /// Single files (the App's private key).
    pub files: Vec<PathBuf>,
    /// What a relative `file:` path is relative to (the server's working directory).
    pub cwd: PathBuf,
}

/// The problem with an `env:NAME` source, if it names one of tfgate's own variables.
pub fn env_source_problem(name: &str) -> Option<String> {
    let upper = name.to_ascii_uppercase();
    if upper.starts_with("TFGATE_") || upper == "DATABASE_URL" {
        return Some(format!(
            "env:{name} is tfgate's own configuration: a policy may not read TFGATE_* or DATABASE_URL; give the value its own variable"
        ));
    }
    None
}

/// `path` with `.` and `..` taken out, joined to `cwd` when relative.
fn lexical(path: &Path, cwd: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in cwd.join(path).components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The problem with a `file:PATH` source, if it is (or is inside) one of `protected`, as
/// written or after `resolve` (which follows links; `None` when the file does not exist).
pub fn file_source_problem(
    path: &str,
    protected: &ProtectedPaths,
    resolve: &dyn Fn(&Path) -> Option<PathBuf>,
) -> Option<String> {
    let written = lexical(Path::new(path), &protected.cwd);
    let resolved = resolve(&written);
    let hits = |candidate: &Path| {
        protected.dirs.iter().any(|d| candidate.starts_with(d))
            || protected.files.iter().any(|f| candidate == f)
    };
    let hit = hits(&written) || resolved.as_deref().is_some_and(hits);
    hit.then(|| {
        format!(
            "file:{path} is one of tfgate's own files (its data directory or the App's private key): a policy may not read it; keep the value elsewhere"
        )
    })
}

/// Every `file:` source of `set` (loaded from `files`, in the same order) that names a
/// protected path, located at its `source` key.
pub fn protected_source_problems<N: AsRef<str>, C: AsRef<str>>(
    files: &[(N, C)],
    set: &PolicySet,
    protected: &ProtectedPaths,
    resolve: &dyn Fn(&Path) -> Option<PathBuf>,
) -> Vec<PolicyProblem> {
    let mut problems = Vec::new();
    let policy_files = files
        .iter()
        .filter(|(name, _)| !super::plan_sets::is_rego_file_name(name.as_ref()));
    for ((name, content), policy) in policy_files.zip(set.policies()) {
        let inputs = policy.inputs.iter().map(|i| &i.source);
        let tokens = policy.registry_tokens.iter().map(|t| &t.source);
        let sources = inputs
            .enumerate()
            .map(|(i, s)| ("inputs", i, s))
            .chain(tokens.enumerate().map(|(i, s)| ("registry_tokens", i, s)));
        for (list, i, source) in sources {
            let InputSource::File(path) = source else {
                continue;
            };
            if let Some(message) = file_source_problem(path, protected, resolve) {
                let at: [Seg; 3] = [key(list), idx(i), key("source")];
                let (line, col) = locate(content.as_ref(), &at);
                problems.push(PolicyProblem {
                    file: name.as_ref().to_string(),
                    line,
                    col,
                    message,
                });
            }
        }
    }
    problems
}

/// `loaded` (from `files`) with the protected-path problems added: a set that names one of
/// the server's own files does not load.
pub fn guard<N: AsRef<str>, C: AsRef<str>>(
    loaded: Result<PolicySet, Vec<PolicyProblem>>,
    files: &[(N, C)],
    protected: &ProtectedPaths,
    resolve: &dyn Fn(&Path) -> Option<PathBuf>,
) -> Result<PolicySet, Vec<PolicyProblem>> {
    let set = loaded?;
    let problems = protected_source_problems(files, &set, protected, resolve);
    if problems.is_empty() {
        Ok(set)
    } else {
        Err(problems)
    }
}

#[cfg(test)]
#[path = "sources_tests.rs"]
mod tests;
