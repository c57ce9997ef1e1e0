//! The plan policy sets of loaded policy files, compiled from the `.rego` files of the policy
//! directory (once per policy version: the result is kept in [`RepoPolicy`]).

use super::locate::{idx, key, locate};
use super::model::RepoPolicy;
use super::problem::PolicyProblem;

/// Whether a file of the policy directory is a Rego file of a plan policy set (`*.rego`,
/// not hidden). Every other file given to `load_policies` is a policy file.
pub fn is_rego_file_name(name: &str) -> bool {
    let base = name.rsplit('/').next().unwrap_or(name);
    !base.starts_with('.') && base.ends_with(".rego")
}

/// Compile every set of `policy` from `rego` (names as the policy file's name is given: the
/// same directory prefix). Problems are located in the Rego file (`file:line:col`), or at the
/// set's `path` in the policy file when the directory holds no Rego file.
pub(super) fn compile_sets(
    policy: &mut RepoPolicy,
    content: &str,
    rego: &[(String, String)],
) -> Vec<PolicyProblem> {
    let dir = policy.file.rsplit_once('/').map(|(d, _)| d.to_string());
    let relative: Vec<(String, String)> = rego
        .iter()
        .filter_map(|(name, text)| {
            let rel = match &dir {
                Some(d) => name.strip_prefix(d.as_str())?.strip_prefix('/')?,
                None => name.as_str(),
            };
            Some((rel.to_string(), text.clone()))
        })
        .collect();
    let mut problems = Vec::new();
    let mut compiled = Vec::new();
    for (i, set) in policy.plan_policies.iter().enumerate() {
        match crate::plan_policy::compile(set, &relative) {
            Ok(c) => compiled.push(c),
            Err(found) => problems.extend(found.into_iter().map(|p| {
                if p.line == 0 {
                    let (line, col) = locate(content, &[key("plan_policies"), idx(i), key("path")]);
                    PolicyProblem {
                        file: policy.file.clone(),
                        line,
                        col,
                        message: p.message,
                    }
                } else {
                    PolicyProblem {
                        file: match &dir {
                            Some(d) => format!("{d}/{}", p.file),
                            None => p.file,
                        },
                        line: p.line as usize,
                        col: p.col as usize,
                        message: format!("plan policy set `{}`: {}", set.name, p.message),
                    }
                }
            })),
        }
    }
    policy.compiled_plan_policies = compiled;
    problems
}

#[cfg(test)]
#[path = "plan_sets_tests.rs"]
mod tests;
