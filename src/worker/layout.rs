//! Reads the repository's `tfgate.yaml` from the PR's base branch (contents API) when the admin
//! policy allows repo layouts, and merges it ([`crate::project::policy_with_base_layout`]).

use octocrab::Octocrab;

use super::github_error;
use crate::github::api;
use crate::jobs::JobError;
use crate::policy::{PolicyProblem, RepoPolicy};
use crate::project::{policy_with_base_layout, LAYOUT_FILE_NAME};
use crate::webhook::event::RepoRef;

/// The policy with the base branch's layout merged in, and the layout's problems (if any). No
/// GitHub call when the policy does not allow repo layouts.
pub async fn policy_for_pr(
    gh: &Octocrab,
    repo: &RepoRef,
    policy: &RepoPolicy,
    base_ref: &str,
) -> Result<(RepoPolicy, Vec<PolicyProblem>), JobError> {
    if !policy.allow_repo_layout {
        return Ok((policy.clone(), Vec::new()));
    }
    let file = api::file_at(gh, repo, LAYOUT_FILE_NAME, base_ref)
        .await
        .map_err(github_error)?;
    let text = match file.map(|f| f.text()).transpose() {
        Ok(text) => text,
        Err(e) => {
            return Ok((
                policy.clone(),
                vec![PolicyProblem {
                    file: LAYOUT_FILE_NAME.into(),
                    line: 1,
                    col: 1,
                    message: format!("{e:#}"),
                }],
            ))
        }
    };
    Ok(policy_with_base_layout(policy, text.as_deref()))
}
