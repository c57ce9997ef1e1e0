//! Gather the facts policy decides on, live from GitHub (never from the comment payload):
//! the PR head, state, base and default branch, author, fork status, mergeability, whether
//! the head contains the base's latest commit, reviews with each reviewer's permission, who
//! wrote the PR's commits (and how many GitHub did not list), check runs on the head, and the
//! changed files. Who pushed comes from tfgate's own records (`worker::pushers`).

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::{Context, Result};

use super::api::{collaborator_permission, get_pull_request, PullRequestInfo};
use super::http::InstallationClient;
use super::lists::{self, CheckRunItem, CommitItem, ReviewItem};
use crate::model::RepoRef;
use crate::policy::{CheckRun, GitHubPermission, PrFacts, PrState, Review, ReviewState};

/// Pauses between re-reads of a PR whose mergeability GitHub is still computing (right after
/// a push): about 10 s in all before deciding with it unknown.
pub const MERGEABLE_WAIT: &[Duration] = &[
    Duration::from_millis(250),
    Duration::from_millis(500),
    Duration::from_secs(1),
    Duration::from_secs(2),
    Duration::from_secs(2),
    Duration::from_secs(2),
    Duration::from_secs(2),
];

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
    gh: &InstallationClient,
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
pub async fn pr_files(gh: &InstallationClient, repo: &RepoRef, number: i64) -> Result<Vec<String>> {
    lists::files(gh, repo, number).await
}

/// The PR as GitHub has it now, re-read after each pause of `waits` while its mergeability
/// is still being computed.
async fn settled_pull_request(
    gh: &InstallationClient,
    repo: &RepoRef,
    number: i64,
    waits: &[Duration],
) -> Result<PullRequestInfo> {
    let mut pr = get_pull_request(gh, repo, number).await?;
    for wait in waits {
        if pr.mergeable.is_some() || pr.state != "open" {
            break;
        }
        tokio::time::sleep(*wait).await;
        pr = get_pull_request(gh, repo, number).await?;
    }
    Ok(pr)
}

/// The facts of a PR, without waiting for GitHub to compute mergeability.
pub async fn pr_facts(gh: &InstallationClient, repo: &RepoRef, number: i64) -> Result<PrFacts> {
    pr_facts_waiting(gh, repo, number, &[]).await
}

/// The facts of a PR; while GitHub has not computed mergeability, the PR is re-read after
/// each pause of `waits` ([`MERGEABLE_WAIT`] for a command about to be decided).
pub async fn pr_facts_waiting(
    gh: &InstallationClient,
    repo: &RepoRef,
    number: i64,
    waits: &[Duration],
) -> Result<PrFacts> {
    let pr = settled_pull_request(gh, repo, number, waits).await?;
    let reviews =
        reviews_with_permissions(gh, repo, lists::reviews(gh, repo, number).await?).await?;
    let commits = lists::commits(gh, repo, number).await?;
    let (commit_authors, commits_without_login) = commit_logins(&commits);
    let commits_unlisted = pr.commits.unwrap_or(0).saturating_sub(commits.len() as u64);
    let changed_files = lists::files(gh, repo, number).await?;
    let check_runs = lists::check_runs(gh, repo, &pr.head.sha).await?;
    let behind_by = lists::behind_by(gh, repo, &pr.base.name, &pr.head.sha).await?;
    let head_repo = pr.head.repo.as_ref().map(|r| r.full_name.as_str());
    let default_branch = pr
        .base
        .repo
        .as_ref()
        .and_then(|r| r.default_branch.clone())
        .context("the pull request's base repository names no default branch")?;
    Ok(PrFacts {
        number: number as u64,
        author: pr.user.login.clone(),
        head_sha: pr.head.sha.clone(),
        base_ref: pr.base.name.clone(),
        base_sha: pr.base.sha.clone(),
        default_branch,
        state: pr_state(&pr),
        is_fork: head_repo != Some(repo.full_name().as_str()),
        mergeable: pr.mergeable,
        up_to_date: behind_by.map(|n| n == 0),
        reviews,
        commit_authors,
        commits_without_login,
        commits_unlisted,
        // Filled in from tfgate's own records (`worker::pushers`).
        pushers: Vec::new(),
        head_pusher_known: false,
        pushes_complete: false,
        check_runs: check_runs.into_iter().map(check_run).collect(),
        changed_files,
        comment_edited: false,
        // Filled in once the policy is known (`worker::pr_changes`).
        module_calls: Default::default(),
        changed_inputs: Vec::new(),
    })
}

fn pr_state(pr: &PullRequestInfo) -> PrState {
    match (pr.state.as_str(), pr.merged) {
        (_, true) => PrState::Merged,
        ("open", _) => PrState::Open,
        _ => PrState::Closed,
    }
}

fn check_run(c: CheckRunItem) -> CheckRun {
    CheckRun {
        name: c.name,
        conclusion: c.conclusion,
        head_sha: Some(c.head_sha),
        app: c.app.and_then(|a| a.slug),
    }
}

/// Every review with its reviewer's permission (asked once per reviewer; bots have none).
async fn reviews_with_permissions(
    gh: &InstallationClient,
    repo: &RepoRef,
    items: Vec<ReviewItem>,
) -> Result<Vec<Review>> {
    let mut permissions: BTreeMap<String, GitHubPermission> = BTreeMap::new();
    let mut out = Vec::new();
    for r in items {
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
        out.push(Review {
            user: user.login,
            state: review_state(&r.state),
            commit_id: r.commit_id.unwrap_or_default(),
            user_permission: perm,
            user_is_bot: is_bot,
        });
    }
    Ok(out)
}

/// The logins that authored or committed the PR's commits (sorted, once each), and how many
/// commits name no GitHub user at all.
pub fn commit_logins(commits: &[CommitItem]) -> (Vec<String>, u32) {
    let mut logins = Vec::new();
    let mut without = 0;
    for c in commits {
        let named: Vec<&str> = [&c.author, &c.committer]
            .into_iter()
            .flatten()
            .map(|l| l.login.as_str())
            .filter(|l| !l.is_empty())
            .collect();
        if named.is_empty() {
            without += 1;
        }
        logins.extend(named.into_iter().map(str::to_string));
    }
    logins.sort();
    logins.dedup();
    (logins, without)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commit(author: Option<&str>, committer: Option<&str>) -> CommitItem {
        let login = |l: &str| super::super::lists::Login {
            login: l.into(),
            kind: "User".into(),
        };
        CommitItem {
            author: author.map(login),
            committer: committer.map(login),
        }
    }

    #[test]
    fn commit_logins_name_authors_and_committers() {
        let cases: Vec<(Vec<CommitItem>, Vec<&str>, u32)> = vec![
            (vec![], vec![], 0),
            (vec![commit(Some("alice"), Some("alice"))], vec!["alice"], 0),
            // A commit authored by alice but pushed (committed) by bob names both.
            (
                vec![commit(Some("alice"), Some("bob"))],
                vec!["alice", "bob"],
                0,
            ),
            // An author with no GitHub account counts by the committer.
            (vec![commit(None, Some("bob"))], vec!["bob"], 0),
            (
                vec![commit(None, None), commit(Some("carol"), None)],
                vec!["carol"],
                1,
            ),
        ];
        for (commits, want, without) in cases {
            let (logins, n) = commit_logins(&commits);
            assert_eq!(logins, want);
            assert_eq!(n, without);
        }
    }

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
