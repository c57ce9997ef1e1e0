//! Loading policy files into a [`PolicySet`] and choosing the policy of a repository.
//!
//! Pure: the caller reads the files (every `*.yaml`/`*.yml` of the server's `policies/`
//! directory, see [`is_policy_file_name`]) and passes their names and contents.

use super::locate::{idx, key, locate};
use super::model::RepoPolicy;
use super::plan_sets::{compile_sets, is_rego_file_name};
use super::problem::PolicyProblem;
use super::schema::PolicyFile;
use super::validate::validate_file;
use serde::Serialize;
use std::collections::BTreeMap;
use thiserror::Error;

/// All loaded policies.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PolicySet {
    policies: Vec<RepoPolicy>,
}

/// Two policies match a repository equally specifically; tfgate then ignores the repository.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("repository {repo} matches `{first_pattern}` in {first_file} and `{second_pattern}` in {second_file} equally; make one more specific")]
pub struct AmbiguousPolicy {
    pub repo: String,
    pub first_file: String,
    pub first_pattern: String,
    pub second_file: String,
    pub second_pattern: String,
}

/// Whether a file in the policies directory is a policy file (`*.yaml`/`*.yml`, not hidden).
pub fn is_policy_file_name(name: &str) -> bool {
    let base = name.rsplit('/').next().unwrap_or(name);
    !base.starts_with('.') && (base.ends_with(".yaml") || base.ends_with(".yml"))
}

/// Parses and validates every file (`*.rego` files are the plan policy sets' Rego, compiled
/// here once for the policies' lifetime); `Err` lists every problem of every file, in file order
/// then position. Two files listing the same repo pattern (case-insensitively) is a problem.
pub fn load_policies<N: AsRef<str>, C: AsRef<str>>(
    files: &[(N, C)],
) -> Result<PolicySet, Vec<PolicyProblem>> {
    let mut problems = Vec::new();
    let mut policies = Vec::new();
    let (rego, files): (Vec<_>, Vec<_>) = files
        .iter()
        .map(|(n, c)| (n.as_ref(), c.as_ref()))
        .partition(|(n, _)| is_rego_file_name(n));
    let rego: Vec<(String, String)> = rego
        .into_iter()
        .map(|(n, c)| (n.to_string(), c.to_string()))
        .collect();
    for (name, content) in &files {
        match load_policy(name, content) {
            Ok(mut policy) => {
                let mut found = compile_sets(&mut policy, content, &rego);
                found.sort();
                problems.extend(found);
                policies.push(policy);
            }
            Err(mut found) => {
                found.sort();
                problems.extend(found);
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    // Every file loaded, so `files` and `policies` line up.
    let mut claimed: BTreeMap<String, (String, usize, usize)> = BTreeMap::new();
    for ((name, content), policy) in files.iter().zip(policies.iter()) {
        for (i, pattern) in policy.repos.iter().enumerate() {
            let (line, col) = locate(content, &[key("repos"), idx(i)]);
            let here = (name.to_string(), line, col);
            if let Some((file, l, c)) = claimed.insert(pattern.to_lowercase(), here.clone()) {
                problems.push(PolicyProblem {
                    file: here.0,
                    line,
                    col,
                    message: format!("repo pattern `{pattern}` is also claimed by {file}:{l}:{c}"),
                });
            }
        }
    }
    if problems.is_empty() {
        Ok(PolicySet { policies })
    } else {
        Err(problems)
    }
}

/// Parses and validates one file.
pub fn load_policy(file: &str, content: &str) -> Result<RepoPolicy, Vec<PolicyProblem>> {
    if content.trim().is_empty()
        || serde_yaml::from_str::<serde_yaml::Value>(content).is_ok_and(|v| v.is_null())
    {
        return Err(vec![PolicyProblem {
            file: file.to_string(),
            line: 1,
            col: 1,
            message: "empty policy file".into(),
        }]);
    }
    let parsed: PolicyFile = serde_yaml::from_str(content)
        .map_err(|e| vec![PolicyProblem::from_yaml_error(file, &e)])?;
    validate_file(file, content, &parsed)
}

impl PolicySet {
    /// Every policy, in load order.
    /// Every Terraform or OpenTofu release a project or a file's `defaults` names.
    pub fn releases(&self) -> std::collections::BTreeSet<crate::tool_release::Release> {
        use super::model::TerraformSpec;
        let mut out = std::collections::BTreeSet::new();
        for policy in &self.policies {
            let defaults = super::resolve::defaults_terraform(&policy.defaults);
            let specs = policy.projects.iter().map(|p| p.terraform.clone());
            for spec in specs.chain([defaults]).flatten() {
                if let TerraformSpec::Release(r) = spec {
                    out.insert(r);
                }
            }
        }
        out
    }

    /// Whether some project (or a repository layout's project, which inherits `defaults`)
    /// runs the server's own Terraform, naming none itself.
    pub fn uses_server_terraform(&self) -> bool {
        self.policies.iter().any(|policy| {
            let defaults = super::resolve::defaults_terraform(&policy.defaults);
            policy.projects.iter().any(|p| p.terraform.is_none())
                || (policy.allow_repo_layout && defaults.is_none())
        })
    }

    pub fn policies(&self) -> &[RepoPolicy] {
        &self.policies
    }

    /// The policy for `owner/repo`, or `None` when none matches or two match equally
    /// (see [`PolicySet::select`]).
    pub fn for_repo(&self, repo: &str) -> Option<&RepoPolicy> {
        self.select(repo).ok().flatten()
    }

    /// The policy for `owner/repo`. Rule: among all patterns matching the repository
    /// (case-insensitively), an exact pattern (no `*`, `?` or `[`) beats any glob; among globs
    /// the one with more literal characters wins. Two different files tying on the best
    /// pattern is [`AmbiguousPolicy`].
    pub fn select(&self, repo: &str) -> Result<Option<&RepoPolicy>, AmbiguousPolicy> {
        let opts = glob::MatchOptions {
            case_sensitive: false,
            require_literal_separator: true,
            require_literal_leading_dot: false,
        };
        let mut best: Option<((bool, usize), &RepoPolicy, &str)> = None;
        let mut tie: Option<(&RepoPolicy, &str)> = None;
        for policy in &self.policies {
            let top = policy
                .repos
                .iter()
                .filter(|pattern| {
                    glob::Pattern::new(pattern).is_ok_and(|p| p.matches_with(repo, opts))
                })
                .map(|pattern| (specificity(pattern), pattern.as_str()))
                .max_by_key(|(s, _)| *s);
            let Some((score, pattern)) = top else {
                continue;
            };
            match &best {
                Some((best_score, _, _)) if score < *best_score => {}
                Some((best_score, _, _)) if score == *best_score => tie = Some((policy, pattern)),
                _ => {
                    best = Some((score, policy, pattern));
                    tie = None;
                }
            }
        }
        match (best, tie) {
            (Some((_, first, first_pattern)), Some((second, second_pattern))) => {
                Err(AmbiguousPolicy {
                    repo: repo.to_string(),
                    first_file: first.file.clone(),
                    first_pattern: first_pattern.to_string(),
                    second_file: second.file.clone(),
                    second_pattern: second_pattern.to_string(),
                })
            }
            (best, _) => Ok(best.map(|(_, policy, _)| policy)),
        }
    }
}

/// (exact, literal characters) — larger is more specific.
fn specificity(pattern: &str) -> (bool, usize) {
    let mut literal = 0;
    let mut in_class = false;
    let mut wild = false;
    for ch in pattern.chars() {
        match ch {
            '[' if !in_class => {
                in_class = true;
                wild = true;
            }
            ']' if in_class => in_class = false,
            '*' | '?' if !in_class => wild = true,
            _ if !in_class => literal += 1,
            _ => {}
        }
    }
    (!wild, literal)
}

/// The notice form of the not-enabled reply (`not_enabled.md.j2`: a heading saying tfgate is
/// not enabled here, "Nothing was run." and how an admin enables it).
pub fn not_enabled_notice(repo: &str) -> crate::model::view::NoticeBody {
    crate::model::view::NoticeBody::NotEnabled {
        how_to_enable: format!(
            "An admin enables it by adding a policy file whose `repos` matches `{repo}` to the \
             tfgate server's `policies/` directory (see policies/README.md)."
        ),
    }
}

#[cfg(test)]
#[path = "load_tests.rs"]
mod tests;
