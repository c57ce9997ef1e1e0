//! Policies from an admin repository (`TFGATE_POLICY_REPO=org/tfgate-admin`): the folder
//! `policies/` of its default branch, read through the App, never from any PR branch.
//!
//! Pure: which files of a tree are policy files, the stored form shared by every process,
//! which pushes matter, and the `tfgate/policy` check run for a commit. Effects (fetching,
//! storing, watching) are in `worker/policy_repo.rs`.

pub mod store;

use serde::{Deserialize, Serialize};

use crate::model::view::{AnnotationLevel, AnnotationView};
use crate::model::PolicyCheckText;
use crate::policy::sources::ProtectedPaths;
use crate::policy::{is_policy_file_name, is_rego_file_name, PolicyProblem, PolicySet};

/// The folder of the admin repository that holds the policies.
pub const POLICY_FOLDER: &str = "policies";
/// The `server_settings` name of the last valid policy set of the admin repository.
pub const STORED_POLICIES_SETTING: &str = "policy_repo_set";
/// The check run posted on admin-repository commits.
pub const CHECK_NAME: &str = "tfgate/policy";

/// The policy files of a repository tree (`(path, text)` pairs relative to its root): the
/// YAML files directly in `policies/`, then the `.rego` files anywhere under it (the plan
/// policy sets), each group sorted by path. Other files are ignored.
pub fn policy_files(tree: Vec<(String, String)>) -> Vec<(String, String)> {
    let in_folder = |path: &str| {
        path.strip_prefix(POLICY_FOLDER)
            .and_then(|rest| rest.strip_prefix('/'))
            .map(str::to_string)
    };
    let (mut files, mut rego): (Vec<_>, Vec<_>) = tree
        .into_iter()
        .filter(|(path, _)| {
            in_folder(path).is_some_and(|name| {
                let hidden = name.split('/').any(|seg| seg.starts_with('.'));
                (!name.contains('/') && is_policy_file_name(&name))
                    || (!hidden && is_rego_file_name(&name))
            })
        })
        .partition(|(path, _)| !is_rego_file_name(path));
    files.sort();
    rego.sort();
    files.extend(rego);
    files
}

/// A validated policy set as stored for every process: the commit and its files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredPolicies {
    pub sha: String,
    pub files: Vec<(String, String)>,
}

impl StoredPolicies {
    /// The set, checked again (a stored set may predate a rule, or come from a server with
    /// other directories): no source may name one of `protected`.
    pub fn load(&self, protected: &ProtectedPaths) -> Result<PolicySet, Vec<PolicyProblem>> {
        crate::policy_repo::store::load_guarded(&self.files, protected)
    }
}

/// Only a push to the admin repository's default branch changes the policies in force.
pub fn is_default_branch_push(git_ref: &str, default_branch: &str) -> bool {
    git_ref.strip_prefix("refs/heads/") == Some(default_branch)
}

/// Whether a push job for `pushed` may still put its policies in force: only while it is the
/// default branch's head. A job that runs late (retried, redelivered, or overtaken by the
/// next push) would otherwise put older policies back.
pub fn push_is_current(pushed: &str, head: &str) -> bool {
    pushed.eq_ignore_ascii_case(head)
}

/// The `tfgate/policy` check run of one commit: its text as data (`policy_check.md.j2` words
/// it), conclusion and annotations.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyCheck {
    pub conclusion: &'static str,
    pub text: PolicyCheckText,
    pub annotations: Vec<AnnotationView>,
}

/// What the check run says about `files` (`problems` from loading them; messages already
/// redacted by the caller). `applies` says whether the commit is on the default branch.
pub fn policy_check(files: usize, problems: &[PolicyProblem], applies: bool) -> PolicyCheck {
    if files == 0 {
        return PolicyCheck {
            conclusion: "failure",
            text: PolicyCheckText::NoFiles {
                folder: POLICY_FOLDER.into(),
            },
            annotations: vec![],
        };
    }
    if problems.is_empty() {
        return PolicyCheck {
            conclusion: "success",
            text: PolicyCheckText::Valid { files, applies },
            annotations: vec![],
        };
    }
    // A code block: messages quote keys in backticks themselves.
    let lines: Vec<String> = problems
        .iter()
        .map(|p| p.to_string().replace("```", "'''"))
        .collect();
    PolicyCheck {
        conclusion: "failure",
        text: PolicyCheckText::Problems { lines, applies },
        annotations: problems
            .iter()
            .map(|p| AnnotationView {
                path: p.file.clone(),
                start_line: p.line.max(1) as u32,
                end_line: p.line.max(1) as u32,
                level: AnnotationLevel::Failure,
                title: "policy problem".into(),
                message: format!("{}:{}: {}", p.line, p.col, p.message),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests;
