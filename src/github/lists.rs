//! Paginated reads of a pull request: reviews, commits, check runs of the head, and changed
//! files, each through every page (100 a page, at most [`MAX_PAGES`]), and how far the head
//! is behind its base branch.

use anyhow::{bail, Context, Result};
use serde::de::DeserializeOwned;
use serde::Deserialize;

use super::http::InstallationClient;
use crate::model::RepoRef;

/// Items per page asked of GitHub (its maximum).
pub const PER_PAGE: usize = 100;
/// Pages read at most of one list (GitHub itself lists at most 3,000 changed files).
pub const MAX_PAGES: usize = 30;

/// A GitHub user (or bot) as lists and pull requests name it.
#[derive(Debug, Clone, Deserialize)]
pub struct Login {
    pub login: String,
    #[serde(rename = "type", default)]
    pub kind: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ReviewItem {
    pub user: Option<Login>,
    pub state: String,
    #[serde(default)]
    pub commit_id: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct CommitItem {
    /// The GitHub user matching the commit's author, when there is one.
    #[serde(default)]
    pub author: Option<Login>,
    /// The GitHub user matching the commit's committer, when there is one.
    #[serde(default)]
    pub committer: Option<Login>,
}

#[derive(Debug, Deserialize)]
struct FileItem {
    filename: String,
    #[serde(default)]
    previous_filename: Option<String>,
}

#[derive(Debug, Deserialize)]
struct CheckRunPage {
    total_count: usize,
    check_runs: Vec<CheckRunItem>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct CheckRunItem {
    #[serde(default)]
    pub id: i64,
    pub name: String,
    #[serde(default)]
    pub conclusion: Option<String>,
    pub head_sha: String,
    #[serde(default)]
    pub app: Option<AppSlug>,
    /// The id its creator gave it (tfgate: one per job and root).
    #[serde(default)]
    pub external_id: Option<String>,
    #[serde(default)]
    pub output: Option<CheckRunOutput>,
}

/// What a check run shows (the list API gives title and summary).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct CheckRunOutput {
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub summary: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct AppSlug {
    #[serde(default)]
    pub slug: Option<String>,
}

/// Reads `route` page by page until a page is short or `total` items were seen; `Err` when
/// the list goes on past [`MAX_PAGES`], since a decision on part of it could be wrong.
async fn all_pages<P: DeserializeOwned, T>(
    gh: &InstallationClient,
    route: &str,
    what: &str,
    split: impl Fn(P) -> (Vec<T>, Option<usize>),
) -> Result<Vec<T>> {
    let mut all = Vec::new();
    for page in 1..=MAX_PAGES {
        let body: P = gh
            .get(&format!("{route}?per_page={PER_PAGE}&page={page}"))
            .await
            .with_context(|| format!("listing {what} (page {page})"))?;
        let (items, total) = split(body);
        let n = items.len();
        all.extend(items);
        if n < PER_PAGE || total.is_some_and(|t| all.len() >= t) {
            return Ok(all);
        }
    }
    bail!(
        "more than {} {what}: tfgate does not decide on a partial list",
        MAX_PAGES * PER_PAGE
    )
}

fn repo_route(repo: &RepoRef) -> String {
    format!("/repos/{}/{}", repo.owner, repo.name)
}

/// Every review of the PR, oldest first.
pub async fn reviews(
    gh: &InstallationClient,
    repo: &RepoRef,
    number: i64,
) -> Result<Vec<ReviewItem>> {
    let route = format!("{}/pulls/{number}/reviews", repo_route(repo));
    all_pages(gh, &route, "reviews", |page: Vec<ReviewItem>| (page, None)).await
}

/// Every commit of the PR (GitHub lists at most 250).
pub async fn commits(
    gh: &InstallationClient,
    repo: &RepoRef,
    number: i64,
) -> Result<Vec<CommitItem>> {
    let route = format!("{}/pulls/{number}/commits", repo_route(repo));
    all_pages(gh, &route, "commits", |page: Vec<CommitItem>| (page, None)).await
}

/// Every check run on commit `sha`.
pub async fn check_runs(
    gh: &InstallationClient,
    repo: &RepoRef,
    sha: &str,
) -> Result<Vec<CheckRunItem>> {
    let route = format!("{}/commits/{sha}/check-runs", repo_route(repo));
    all_pages(gh, &route, "check runs", |page: CheckRunPage| {
        (page.check_runs, Some(page.total_count))
    })
    .await
}

/// The PR's changed files (old names of renames included); GitHub lists at most 3,000, so a
/// longer list is cut there rather than refused.
pub async fn files(gh: &InstallationClient, repo: &RepoRef, number: i64) -> Result<Vec<String>> {
    let route = format!("{}/pulls/{number}/files", repo_route(repo));
    let mut out = Vec::new();
    for page in 1..=MAX_PAGES {
        let items: Vec<FileItem> = gh
            .get(&format!("{route}?per_page={PER_PAGE}&page={page}"))
            .await
            .context("listing changed files")?;
        let n = items.len();
        for f in items {
            out.push(f.filename);
            out.extend(f.previous_filename);
        }
        if n < PER_PAGE {
            break;
        }
    }
    Ok(out)
}

#[derive(Debug, Deserialize)]
struct Comparison {
    behind_by: u64,
}

/// How many commits of branch `base` the commit `head` lacks; `None` when GitHub cannot
/// compare them (404: the branch or commit is gone).
pub async fn behind_by(
    gh: &InstallationClient,
    repo: &RepoRef,
    base: &str,
    head: &str,
) -> Result<Option<u64>> {
    let route = format!(
        "{}/compare/{}...{head}?per_page=1",
        repo_route(repo),
        path_escape(base)
    );
    let comparison: Option<Comparison> = gh
        .get_optional(&route)
        .await
        .context("comparing the head with its base branch")?;
    Ok(comparison.map(|c| c.behind_by))
}

/// A branch name as one URL path segment: every byte outside `[A-Za-z0-9._-]` (`/`
/// included) percent-escaped.
pub(crate) fn path_escape(name: &str) -> String {
    let mut out = String::new();
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branch_names_are_escaped_for_paths() {
        let cases = [
            ("main", "main"),
            ("release/2026.1", "release%2F2026.1"),
            ("feat#1", "feat%231"),
            ("a%b", "a%25b"),
            ("über", "%C3%BCber"),
        ];
        for (name, want) in cases {
            assert_eq!(path_escape(name), want, "{name}");
        }
    }
}
