//! The REST calls tfgate makes, as thin wrappers over [`InstallationClient`]'s verbs so the
//! request shapes are exactly GitHub's (checked against the official OpenAPI spec in tests).

use anyhow::{Context, Result};
use serde::Deserialize;
use serde_json::json;

use super::http::{Call, Delivered, InstallationClient};
use super::lists::{path_escape, Login};
use crate::model::RepoRef;

#[derive(Debug, Clone, Deserialize)]
pub struct CreatedComment {
    pub id: i64,
    #[serde(default)]
    pub html_url: Option<String>,
}

/// Post a comment on an issue or pull request, once. The body gets a hidden marker of its
/// own; when GitHub's answer is lost (5xx, no answer in time) the PR's comments are searched
/// for that marker before the same body is sent again, so a comment is never posted twice.
pub async fn create_comment(
    gh: &InstallationClient,
    repo: &RepoRef,
    number: i64,
    body: &str,
) -> Result<CreatedComment> {
    let post_id = uuid::Uuid::new_v4().simple().to_string();
    create_comment_with_post_id(gh, repo, number, body, &post_id).await
}

/// [`create_comment`] with a post id of the caller's (one the caller can look for later with
/// [`comment_with_post_id`], e.g. across retries of an outbox job).
pub async fn create_comment_with_post_id(
    gh: &InstallationClient,
    repo: &RepoRef,
    number: i64,
    body: &str,
    post_id: &str,
) -> Result<CreatedComment> {
    let marker = post_marker(post_id);
    let payload = json!({ "body": format!("{body}\n{marker}") });
    let route = format!(
        "/repos/{}/{}/issues/{number}/comments",
        repo.owner, repo.name
    );
    let call = Call {
        method: &http::Method::POST,
        route: &route,
        body: Some(&payload),
        idempotent: false,
    };
    // Comments updated since ten minutes before now (GitHub's clock may differ from ours).
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let since = crate::enrich::UnixSeconds(now - 600);
    let delivered = gh
        .deliver(call, || {
            comment_with_marker(gh, repo, number, &marker, since)
        })
        .await
        .context("posting a comment")?;
    match delivered {
        Delivered::Answer(text) => {
            serde_json::from_str(&text).context("GitHub's answer to a new comment is not JSON")
        }
        Delivered::AlreadyDone(id) => {
            tracing::info!(
                comment = id,
                "a comment whose answer was lost had been posted"
            );
            Ok(CreatedComment { id, html_url: None })
        }
    }
}

/// The hidden line that identifies one post of a comment.
pub fn post_marker(post_id: &str) -> String {
    format!("<!-- tfgate:post:{post_id} -->")
}

/// The id of the PR's comment that [`create_comment_with_post_id`] posted with `post_id`, if
/// any (all the PR's comments are searched).
pub async fn comment_with_post_id(
    gh: &InstallationClient,
    repo: &RepoRef,
    number: i64,
    post_id: &str,
) -> Result<Option<i64>> {
    let marker = post_marker(post_id);
    let comments = list_comments(gh, repo, number).await?;
    Ok(comments
        .iter()
        .find(|c| c.body.as_deref().is_some_and(|b| b.contains(&marker)))
        .map(|c| c.id))
}

/// The id of the PR's comment carrying `marker`, among those updated since `since`.
async fn comment_with_marker(
    gh: &InstallationClient,
    repo: &RepoRef,
    number: i64,
    marker: &str,
    since: crate::enrich::UnixSeconds,
) -> Result<Option<i64>> {
    let comments = list_comments_since(gh, repo, number, Some(since)).await?;
    Ok(comments
        .iter()
        .find(|c| c.body.as_deref().is_some_and(|b| b.contains(marker)))
        .map(|c| c.id))
}

/// Replace the body of a comment tfgate posted earlier.
pub async fn update_comment(
    gh: &InstallationClient,
    repo: &RepoRef,
    comment_id: i64,
    body: &str,
) -> Result<()> {
    let route = format!(
        "/repos/{}/{}/issues/comments/{comment_id}",
        repo.owner, repo.name
    );
    let _: serde_json::Value = gh
        .patch(&route, &json!({ "body": body }))
        .await
        .context("updating a comment")?;
    Ok(())
}

/// React to a comment (`+1`, `-1`, `laugh`, `confused`, `heart`, `hooray`, `rocket`, `eyes`).
pub async fn react_to_comment(
    gh: &InstallationClient,
    repo: &RepoRef,
    comment_id: i64,
    content: &str,
) -> Result<()> {
    let route = format!(
        "/repos/{}/{}/issues/comments/{comment_id}/reactions",
        repo.owner, repo.name
    );
    let _: serde_json::Value = gh
        .post(&route, &json!({ "content": content }))
        .await
        .context("adding a reaction")?;
    Ok(())
}

/// The parts of a pull request tfgate reads.
#[derive(Debug, Clone, Deserialize)]
pub struct PullRequestInfo {
    pub number: i64,
    pub state: String,
    pub head: PrRef,
    pub base: PrRef,
    pub user: Login,
    #[serde(default)]
    pub mergeable: Option<bool>,
    #[serde(default)]
    pub mergeable_state: Option<String>,
    #[serde(default)]
    pub merged: bool,
    /// How many commits the PR has (its commit list stops at 250).
    #[serde(default)]
    pub commits: Option<u64>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct PrRef {
    pub sha: String,
    #[serde(rename = "ref")]
    pub name: String,
    #[serde(default)]
    pub repo: Option<FullName>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct FullName {
    pub full_name: String,
    #[serde(default)]
    pub default_branch: Option<String>,
}

pub async fn get_pull_request(
    gh: &InstallationClient,
    repo: &RepoRef,
    number: i64,
) -> Result<PullRequestInfo> {
    let route = format!("/repos/{}/{}/pulls/{number}", repo.owner, repo.name);
    gh.get(&route).await.context("reading the pull request")
}

#[derive(Debug, Clone, Deserialize)]
struct RepositoryInfo {
    default_branch: String,
}

/// The repository's default branch.
pub async fn default_branch(gh: &InstallationClient, repo: &RepoRef) -> Result<String> {
    let route = format!("/repos/{}/{}", repo.owner, repo.name);
    let info: RepositoryInfo = gh.get(&route).await.context("reading the repository")?;
    Ok(info.default_branch)
}

#[derive(Debug, Clone, Deserialize)]
struct CommitInfo {
    sha: String,
}

/// The default branch and the commit at its head.
pub async fn default_branch_head(
    gh: &InstallationClient,
    repo: &RepoRef,
) -> Result<(String, String)> {
    let branch = default_branch(gh, repo).await?;
    let route = format!("/repos/{}/{}/commits/{branch}", repo.owner, repo.name);
    let head: CommitInfo = gh
        .get(&route)
        .await
        .context("reading the default branch head")?;
    Ok((branch, head.sha))
}

#[derive(Debug, Clone, Deserialize)]
pub struct PermissionInfo {
    pub permission: String,
    #[serde(default)]
    pub role_name: Option<String>,
}

/// A user's permission on the repository (`admin`, `maintain`, `write`, `triage`, `read`, `none`).
pub async fn collaborator_permission(
    gh: &InstallationClient,
    repo: &RepoRef,
    user: &str,
) -> Result<PermissionInfo> {
    let route = format!(
        "/repos/{}/{}/collaborators/{user}/permission",
        repo.owner, repo.name
    );
    gh.get(&route)
        .await
        .context("reading a collaborator permission")
}

pub use super::check_runs::{create_check_run, CheckRunRequest};

#[derive(Debug, Clone, Deserialize)]
pub struct IssueComment {
    pub id: i64,
    #[serde(default)]
    pub body: Option<String>,
    #[serde(default)]
    pub user: Option<Login>,
}

/// The PR's comments (first 10 pages of 100 at most; newest tfgate comments are what matter).
pub async fn list_comments(
    gh: &InstallationClient,
    repo: &RepoRef,
    number: i64,
) -> Result<Vec<IssueComment>> {
    list_comments_since(gh, repo, number, None).await
}

/// The PR's comments updated at or after `since` (all when `None`), 10 pages of 100 at most.
async fn list_comments_since(
    gh: &InstallationClient,
    repo: &RepoRef,
    number: i64,
    since: Option<crate::enrich::UnixSeconds>,
) -> Result<Vec<IssueComment>> {
    let since = since.map_or(String::new(), |t| format!("&since={}", t.to_rfc3339()));
    let mut all = Vec::new();
    for page in 1..=10 {
        let route = format!(
            "/repos/{}/{}/issues/{number}/comments?per_page=100&page={page}{since}",
            repo.owner, repo.name
        );
        let batch: Vec<IssueComment> = gh.get(&route).await.context("listing comments")?;
        let n = batch.len();
        all.extend(batch);
        if n < 100 {
            break;
        }
    }
    Ok(all)
}

/// Whether `user` is an active member of the organisation team `team` (404: not a member).
pub async fn team_member(
    gh: &InstallationClient,
    org: &str,
    team: &str,
    user: &str,
) -> Result<bool> {
    let route = format!("/orgs/{org}/teams/{team}/memberships/{user}");
    let membership: Option<serde_json::Value> = gh
        .get_optional(&route)
        .await
        .context("reading a team membership")?;
    Ok(membership.is_some_and(|v| v["state"] == "active"))
}

/// A file as the contents API returns it (`encoding` is `base64`, or `none` above 1 MB).
#[derive(Debug, Clone, Deserialize)]
pub struct FileContent {
    #[serde(default)]
    pub encoding: String,
    #[serde(default)]
    pub content: String,
}

impl FileContent {
    /// The file's text (GitHub wraps its base64 every 60 characters).
    pub fn text(&self) -> Result<String> {
        use base64::Engine;
        anyhow::ensure!(
            self.encoding == "base64",
            "the contents API sent the file as `{}`, not base64 (over 1 MB?)",
            self.encoding
        );
        let packed: String = self.content.split_whitespace().collect();
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(packed)
            .context("the file's base64 does not decode")?;
        String::from_utf8(bytes).context("the file is not UTF-8")
    }
}

/// The file at `path` on `git_ref` (a branch name or commit); `None` when there is none (404).
pub async fn file_at(
    gh: &InstallationClient,
    repo: &RepoRef,
    path: &str,
    git_ref: &str,
) -> Result<Option<FileContent>> {
    let route = format!(
        "/repos/{}/{}/contents/{path}?ref={}",
        repo.owner,
        repo.name,
        path_escape(git_ref)
    );
    gh.get_optional(&route)
        .await
        .with_context(|| format!("reading {path} at {git_ref}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_post_marker_leaves_the_comment_marker_readable() {
        let body = "## tfgate plan\n<!-- tfgate:kind=plan:pr=17:root=all:run=r-0042 -->\n";
        let posted = format!("{body}\n{}", post_marker("0123abcd"));
        let marker = crate::model::marker::parse_marker(&posted).expect("a comment marker");
        assert_eq!(Some(marker), crate::model::marker::parse_marker(body));
        assert_eq!(
            crate::model::marker::parse_marker(&post_marker("0123abcd")),
            None
        );
        assert!(posted.ends_with("<!-- tfgate:post:0123abcd -->"));
    }

    #[test]
    fn file_content_decodes_githubs_wrapped_base64() {
        let file = FileContent {
            encoding: "base64".into(),
            content: "cHJvamVjdHM6CiAgLSBkaXI6IGlu\nZnJhL2Vrcwo=\n".into(),
        };
        assert_eq!(file.text().unwrap(), "projects:\n  - dir: infra/eks\n");
        let large = FileContent {
            encoding: "none".into(),
            content: String::new(),
        };
        assert!(format!("{:#}", large.text().unwrap_err()).contains("not base64"));
        let broken = FileContent {
            encoding: "base64".into(),
            content: "!!!".into(),
        };
        assert!(broken.text().is_err());
    }
}
