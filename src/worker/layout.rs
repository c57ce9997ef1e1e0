//! Reads the repository's `tfgate.yaml` from its default branch (contents API) when the admin
//! policy allows repo layouts, and merges it ([`crate::repo_layout::policy_with_base_layout`]).
//! Never from the PR's base: a writer could open a PR into a branch holding their own layout.

use crate::github::InstallationClient;

use super::github_error;
use crate::github::api;
use crate::jobs::JobError;
use crate::model::RepoRef;
use crate::policy::{PolicyProblem, RepoPolicy};
use crate::repo_layout::{policy_with_base_layout, LAYOUT_FILE_NAME};

/// The policy with the default branch's layout merged in, and the layout's problems (if
/// any). No GitHub call when the policy does not allow repo layouts.
pub async fn policy_for_pr(
    gh: &InstallationClient,
    repo: &RepoRef,
    policy: &RepoPolicy,
) -> Result<(RepoPolicy, Vec<PolicyProblem>), JobError> {
    if !policy.allow_repo_layout {
        return Ok((policy.clone(), Vec::new()));
    }
    let default_branch = api::default_branch(gh, repo).await.map_err(github_error)?;
    policy_at_default_branch(gh, repo, policy, &default_branch).await
}

/// [`policy_for_pr`] when the default branch is known (a PR read names its base repository's).
pub async fn policy_at_default_branch(
    gh: &InstallationClient,
    repo: &RepoRef,
    policy: &RepoPolicy,
    default_branch: &str,
) -> Result<(RepoPolicy, Vec<PolicyProblem>), JobError> {
    if !policy.allow_repo_layout {
        return Ok((policy.clone(), Vec::new()));
    }
    let file = api::file_at(gh, repo, LAYOUT_FILE_NAME, default_branch)
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
