//! The REST calls tfgate makes, as thin wrappers over octocrab's generic verbs so the request
//! shapes are exactly GitHub's (checked against the official OpenAPI spec in tests).

use anyhow::{Context, Result};
use octocrab::Octocrab;
use serde::Deserialize;
use serde_json::json;

use crate::webhook::event::RepoRef;

#[derive(Debug, Clone, Deserialize)]
pub struct CreatedComment {
    pub id: i64,
    #[serde(default)]
    pub html_url: Option<String>,
}

/// Post a comment on an issue or pull request.
pub async fn create_comment(
    gh: &Octocrab,
    repo: &RepoRef,
    number: i64,
    body: &str,
) -> Result<CreatedComment> {
    let route = format!(
        "/repos/{}/{}/issues/{number}/comments",
        repo.owner, repo.name
    );
    gh.post(route, Some(&json!({ "body": body })))
        .await
        .context("posting a comment")
}

/// Replace the body of a comment tfgate posted earlier.
pub async fn update_comment(
    gh: &Octocrab,
    repo: &RepoRef,
    comment_id: i64,
    body: &str,
) -> Result<()> {
    let route = format!(
        "/repos/{}/{}/issues/comments/{comment_id}",
        repo.owner, repo.name
    );
    let _: serde_json::Value = gh
        .patch(route, Some(&json!({ "body": body })))
        .await
        .context("updating a comment")?;
    Ok(())
}

/// React to a comment (`+1`, `-1`, `laugh`, `confused`, `heart`, `hooray`, `rocket`, `eyes`).
pub async fn react_to_comment(
    gh: &Octocrab,
    repo: &RepoRef,
    comment_id: i64,
    content: &str,
) -> Result<()> {
    let route = format!(
        "/repos/{}/{}/issues/comments/{comment_id}/reactions",
        repo.owner, repo.name
    );
    let _: serde_json::Value = gh
        .post(route, Some(&json!({ "content": content })))
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

#[derive(Debug, Clone, Deserialize)]
pub struct Login {
    pub login: String,
    #[serde(rename = "type", default)]
    pub kind: String,
}

pub async fn get_pull_request(
    gh: &Octocrab,
    repo: &RepoRef,
    number: i64,
) -> Result<PullRequestInfo> {
    let route = format!("/repos/{}/{}/pulls/{number}", repo.owner, repo.name);
    gh.get(route, None::<&()>)
        .await
        .context("reading the pull request")
}

#[derive(Debug, Clone, Deserialize)]
struct RepositoryInfo {
    default_branch: String,
}

/// The repository's default branch.
pub async fn default_branch(gh: &Octocrab, repo: &RepoRef) -> Result<String> {
    let route = format!("/repos/{}/{}", repo.owner, repo.name);
    let info: RepositoryInfo = gh
        .get(route, None::<&()>)
        .await
        .context("reading the repository")?;
    Ok(info.default_branch)
}

#[derive(Debug, Clone, Deserialize)]
pub struct PermissionInfo {
    pub permission: String,
    #[serde(default)]
    pub role_name: Option<String>,
}

/// A user's permission on the repository (`admin`, `maintain`, `write`, `triage`, `read`, `none`).
pub async fn collaborator_permission(
    gh: &Octocrab,
    repo: &RepoRef,
    user: &str,
) -> Result<PermissionInfo> {
    let route = format!(
        "/repos/{}/{}/collaborators/{user}/permission",
        repo.owner, repo.name
    );
    gh.get(route, None::<&()>)
        .await
        .context("reading a collaborator permission")
}

/// A completed check run with its output (GitHub takes at most 50 annotations per request).
pub struct CheckRunRequest<'a> {
    pub name: &'a str,
    pub head_sha: &'a str,
    /// tfgate's own id of the check run, to find it again.
    pub external_id: Option<&'a str>,
    /// `success`, `failure`, `neutral` …
    pub conclusion: &'a str,
    pub title: &'a str,
    pub summary: &'a str,
    pub text: &'a str,
    pub annotations: &'a [crate::render::AnnotationView],
}

pub async fn create_check_run(
    gh: &Octocrab,
    repo: &RepoRef,
    r: &CheckRunRequest<'_>,
) -> Result<()> {
    let annotations: Vec<serde_json::Value> = r
        .annotations
        .iter()
        .take(50)
        .map(|a| {
            json!({
                "path": a.path,
                "start_line": a.start_line.max(1),
                "end_line": a.end_line.max(a.start_line).max(1),
                "annotation_level": match a.level {
                    crate::render::AnnotationLevel::Notice => "notice",
                    crate::render::AnnotationLevel::Warning => "warning",
                    crate::render::AnnotationLevel::Failure => "failure",
                },
                "title": a.title,
                "message": a.message,
            })
        })
        .collect();
    let mut output = json!({ "title": r.title, "summary": r.summary, "annotations": annotations });
    if !r.text.is_empty() {
        output["text"] = json!(r.text);
    }
    let route = format!("/repos/{}/{}/check-runs", repo.owner, repo.name);
    let mut body = json!({
        "name": r.name,
        "head_sha": r.head_sha,
        "status": "completed",
        "conclusion": r.conclusion,
        "output": output,
    });
    if let Some(id) = r.external_id {
        body["external_id"] = json!(id);
    }
    let _: serde_json::Value = gh
        .post(route, Some(&body))
        .await
        .context("creating a check run")?;
    Ok(())
}

#[derive(Debug, Clone, Deserialize)]
pub struct IssueComment {
    pub id: i64,
    #[serde(default)]
    pub body: Option<String>,
    #[serde(default)]
    pub user: Option<Login>,
}

/// The PR's comments (first 100 pages of 100 at most; newest tfgate comments are what matter).
pub async fn list_comments(
    gh: &Octocrab,
    repo: &RepoRef,
    number: i64,
) -> Result<Vec<IssueComment>> {
    let mut all = Vec::new();
    for page in 1..=10 {
        let route = format!(
            "/repos/{}/{}/issues/{number}/comments?per_page=100&page={page}",
            repo.owner, repo.name
        );
        let batch: Vec<IssueComment> = gh
            .get(route, None::<&()>)
            .await
            .context("listing comments")?;
        let n = batch.len();
        all.extend(batch);
        if n < 100 {
            break;
        }
    }
    Ok(all)
}

/// Whether `user` is an active member of the organisation team `team` (404: not a member).
pub async fn team_member(gh: &Octocrab, org: &str, team: &str, user: &str) -> Result<bool> {
    let route = format!("/orgs/{org}/teams/{team}/memberships/{user}");
    match gh.get::<serde_json::Value, _, ()>(route, None::<&()>).await {
        Ok(v) => Ok(v["state"] == "active"),
        Err(octocrab::Error::GitHub { source, .. }) if source.status_code.as_u16() == 404 => {
            Ok(false)
        }
        Err(e) => Err(e).context("reading a team membership"),
    }
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
    gh: &Octocrab,
    repo: &RepoRef,
    path: &str,
    git_ref: &str,
) -> Result<Option<FileContent>> {
    let route = format!("/repos/{}/{}/contents/{path}", repo.owner, repo.name);
    match gh
        .get::<FileContent, _, _>(route, Some(&[("ref", git_ref)]))
        .await
    {
        Ok(file) => Ok(Some(file)),
        Err(octocrab::Error::GitHub { source, .. }) if source.status_code.as_u16() == 404 => {
            Ok(None)
        }
        Err(e) => Err(e).with_context(|| format!("reading {path} at {git_ref}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
