//! Gather the facts policy decides on, live from GitHub (never from the comment payload):
//! the PR head, author, fork status, mergeability, reviews with each reviewer's permission,
//! check runs on the head, and the changed files (GitHub lists at most 3,000).

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use octocrab::Octocrab;
use serde::Deserialize;

use super::api::{collaborator_permission, get_pull_request, Login};
use crate::policy::{CheckRun, GitHubPermission, PrFacts, Review, ReviewState};
use crate::webhook::event::RepoRef;

#[derive(Debug, Deserialize)]
struct ReviewItem {
    user: Option<Login>,
    state: String,
    #[serde(default)]
    commit_id: Option<String>,
}

#[derive(Debug, Deserialize)]
struct FileItem {
    filename: String,
    #[serde(default)]
    previous_filename: Option<String>,
}

#[derive(Debug, Deserialize)]
struct CheckRunList {
    check_runs: Vec<CheckRunItem>,
}

#[derive(Debug, Deserialize)]
struct CheckRunItem {
    name: String,
    #[serde(default)]
    conclusion: Option<String>,
    head_sha: String,
}

/// GitHub's review state → policy's.
pub fn review_state(state: &str) -> ReviewState {
    match state {
        "APPROVED" => ReviewState::Approved,
        "CHANGES_REQUESTED" => ReviewState::ChangesRequested,
        "DISMISSED" => ReviewState::Dismissed,
        "PENDING" => ReviewState::Pending,
        _ => ReviewState::Commented,
    }
}

/// GitHub's permission name → policy's (unknown → none).
pub fn permission(name: &str) -> GitHubPermission {
    serde_json::from_value(serde_json::json!(name)).unwrap_or(GitHubPermission::None)
}

/// A user's permission on the repository.
pub async fn user_permission(
    gh: &Octocrab,
    repo: &RepoRef,
    user: &str,
) -> Result<GitHubPermission> {
    let p = collaborator_permission(gh, repo, user).await?;
    // `role_name` distinguishes maintain/triage, which `permission` folds into write/read.
    Ok(match p.role_name.as_deref() {
        Some(r @ ("maintain" | "triage" | "admin" | "write" | "read")) => permission(r),
        _ => permission(&p.permission),
    })
}

/// The PR's changed files (old names of renames included); GitHub lists at most 3,000.
pub async fn pr_files(gh: &Octocrab, repo: &RepoRef, number: i64) -> Result<Vec<String>> {
    let base = format!("/repos/{}/{}", repo.owner, repo.name);
    let mut changed_files = Vec::new();
    for page in 1..=30 {
        let files: Vec<FileItem> = gh
            .get(
                format!("{base}/pulls/{number}/files?per_page=100&page={page}"),
                None::<&()>,
            )
            .await
            .context("listing changed files")?;
        let n = files.len();
        for f in files {
            changed_files.push(f.filename);
            if let Some(prev) = f.previous_filename {
                changed_files.push(prev);
            }
        }
        if n < 100 {
            break;
        }
    }
    Ok(changed_files)
}

pub async fn pr_facts(gh: &Octocrab, repo: &RepoRef, number: i64) -> Result<PrFacts> {
    let pr = get_pull_request(gh, repo, number).await?;
    let base = format!("/repos/{}/{}", repo.owner, repo.name);
    let reviews: Vec<ReviewItem> = gh
        .get(
            format!("{base}/pulls/{number}/reviews?per_page=100"),
            None::<&()>,
        )
        .await
        .context("listing reviews")?;
    let mut permissions: BTreeMap<String, GitHubPermission> = BTreeMap::new();
    let mut out_reviews = Vec::new();
    for r in reviews {
        let Some(user) = r.user else { continue };
        let is_bot = user.kind == "Bot" || user.login.ends_with("[bot]");
        let perm = match permissions.get(&user.login) {
            Some(p) => *p,
            None if is_bot => GitHubPermission::None,
            None => {
                let p = user_permission(gh, repo, &user.login).await?;
                permissions.insert(user.login.clone(), p);
                p
            }
        };
        out_reviews.push(Review {
            user: user.login,
            state: review_state(&r.state),
            commit_id: r.commit_id.unwrap_or_default(),
            user_permission: perm,
            user_is_bot: is_bot,
        });
    }
    let changed_files = pr_files(gh, repo, number).await?;
    let checks: CheckRunList = gh
        .get(
            format!("{base}/commits/{}/check-runs?per_page=100", pr.head.sha),
            None::<&()>,
        )
        .await
        .context("listing check runs")?;
    let head_repo = pr.head.repo.as_ref().map(|r| r.full_name.as_str());
    Ok(PrFacts {
        number: number as u64,
        author: pr.user.login.clone(),
        head_sha: pr.head.sha.clone(),
        base_ref: pr.base.name.clone(),
        is_fork: head_repo != Some(repo.full_name().as_str()),
        mergeable: pr.mergeable,
        up_to_date: pr.mergeable_state.as_deref().map(|s| s != "behind"),
        reviews: out_reviews,
        check_runs: checks
            .check_runs
            .into_iter()
            .map(|c| CheckRun {
                name: c.name,
                conclusion: c.conclusion,
                head_sha: Some(c.head_sha),
            })
            .collect(),
        changed_files,
        comment_edited: false,
        module_calls: Default::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_and_permissions_map() {
        assert_eq!(review_state("APPROVED"), ReviewState::Approved);
        assert_eq!(
            review_state("CHANGES_REQUESTED"),
            ReviewState::ChangesRequested
        );
        assert_eq!(review_state("DISMISSED"), ReviewState::Dismissed);
        assert_eq!(review_state("whatever"), ReviewState::Commented);
        assert_eq!(permission("maintain"), GitHubPermission::Maintain);
        assert_eq!(permission("admin"), GitHubPermission::Admin);
        assert_eq!(permission("bogus"), GitHubPermission::None);
    }
}
