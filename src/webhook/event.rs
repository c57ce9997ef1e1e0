//! Webhook payloads → the jobs they enqueue. Pure: bytes in, typed job payloads out.
//! Only the fields tfgate uses are read; job payloads keep only those fields.

use serde::{Deserialize, Serialize};

use crate::jobs::JobKind;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IntakeError {
    #[error("malformed JSON payload: {0}")]
    MalformedJson(String),
    #[error("payload is missing fields for {event}: {detail}")]
    MissingFields { event: String, detail: String },
    #[error("invalid X-GitHub-Event header")]
    BadEventName,
}

/// A job to enqueue, with its JSON payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoutedJob {
    pub kind: JobKind,
    pub pr: Option<i64>,
    pub payload: String,
}

/// What a verified delivery leads to.
#[derive(Debug, Clone, PartialEq)]
pub struct Routed {
    pub action: Option<String>,
    pub repo: Option<String>,
    pub installation_id: Option<i64>,
    pub jobs: Vec<RoutedJob>,
    /// Why nothing is enqueued (`None` when jobs were produced).
    pub ignored: Option<&'static str>,
}

#[derive(Debug, Clone, Deserialize)]
struct User {
    login: String,
    #[serde(rename = "type", default)]
    kind: String,
}

#[derive(Debug, Clone, Deserialize)]
struct Owner {
    login: String,
}

#[derive(Debug, Clone, Deserialize)]
struct Repository {
    full_name: String,
    name: String,
    owner: Owner,
}

#[derive(Debug, Clone, Deserialize)]
struct Installation {
    id: i64,
}

#[derive(Debug, Deserialize)]
struct Envelope {
    action: Option<String>,
    repository: Option<Repository>,
    installation: Option<Installation>,
}

#[derive(Debug, Deserialize)]
struct IssueCommentPayload {
    issue: Issue,
    comment: Comment,
    repository: Repository,
    installation: Option<Installation>,
}

#[derive(Debug, Deserialize)]
struct Issue {
    number: i64,
    #[serde(default)]
    pull_request: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
struct Comment {
    id: i64,
    #[serde(default)]
    body: Option<String>,
    user: User,
    #[serde(default)]
    author_association: Option<String>,
}

#[derive(Debug, Deserialize)]
struct PullRequestPayload {
    pull_request: PullRequest,
    repository: Repository,
    installation: Option<Installation>,
    sender: User,
}

#[derive(Debug, Deserialize)]
struct PullRequest {
    number: i64,
    head: GitRef,
    base: GitRef,
    user: User,
    #[serde(default)]
    merged: Option<bool>,
}

#[derive(Debug, Deserialize)]
struct GitRef {
    sha: String,
    #[serde(rename = "ref")]
    name: String,
    #[serde(default)]
    repo: Option<RepoName>,
}

#[derive(Debug, Deserialize)]
struct RepoName {
    full_name: String,
}

#[derive(Debug, Deserialize)]
struct ReviewPayload {
    review: Review,
    pull_request: PullRequest,
    repository: Repository,
    installation: Option<Installation>,
}

#[derive(Debug, Deserialize)]
struct Review {
    id: i64,
    user: User,
    state: String,
    #[serde(default)]
    commit_id: Option<String>,
}

#[derive(Debug, Deserialize)]
struct InstallationPayload {
    installation: InstallationFull,
    sender: User,
}

#[derive(Debug, Deserialize)]
struct InstallationFull {
    id: i64,
    account: Owner,
}

/// The repository a job is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepoRef {
    pub installation_id: i64,
    pub owner: String,
    pub name: String,
}

impl RepoRef {
    pub fn full_name(&self) -> String {
        format!("{}/{}", self.owner, self.name)
    }
}

/// Payload of a `comment` job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommentJob {
    pub repo: RepoRef,
    pub number: i64,
    pub is_pull_request: bool,
    pub comment_id: i64,
    pub body: String,
    pub author: String,
    pub author_is_bot: bool,
    pub author_association: Option<String>,
}

/// Payload of a `pull_request` job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PullRequestJob {
    pub repo: RepoRef,
    pub number: i64,
    pub action: String,
    pub head_sha: String,
    pub head_ref: String,
    pub base_ref: String,
    pub is_fork: bool,
    pub author: String,
    pub sender: String,
    pub merged: bool,
}

/// Payload of a `review` job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewJob {
    pub repo: RepoRef,
    pub number: i64,
    pub action: String,
    pub review_id: i64,
    pub reviewer: String,
    pub state: String,
    pub commit_id: Option<String>,
}

/// Payload of an `installation` job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstallationJob {
    pub installation_id: i64,
    pub action: String,
    pub account: String,
    pub sender: String,
}

/// GitHub event names are lower-case words joined by `_`.
pub fn valid_event_name(event: &str) -> bool {
    !event.is_empty()
        && event.len() <= 64
        && event.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
}

/// Route a verified delivery.
pub fn route(event: &str, body: &[u8]) -> Result<Routed, IntakeError> {
    if !valid_event_name(event) {
        return Err(IntakeError::BadEventName);
    }
    let envelope: Envelope =
        serde_json::from_slice(body).map_err(|e| IntakeError::MalformedJson(e.to_string()))?;
    let mut routed = Routed {
        action: envelope.action.clone(),
        repo: envelope.repository.as_ref().map(|r| r.full_name.clone()),
        installation_id: envelope.installation.as_ref().map(|i| i.id),
        jobs: Vec::new(),
        ignored: None,
    };
    let action = envelope.action.as_deref().unwrap_or("");
    let missing = |e: serde_json::Error| IntakeError::MissingFields {
        event: event.to_string(),
        detail: e.to_string(),
    };
    match (event, action) {
        ("ping", _) => routed.ignored = Some("ping"),
        ("issue_comment", "created") => {
            let p: IssueCommentPayload = serde_json::from_slice(body).map_err(missing)?;
            let Some(installation) = p.installation else {
                routed.ignored = Some("no installation");
                return Ok(routed);
            };
            let job = CommentJob {
                repo: repo_ref(installation.id, &p.repository),
                number: p.issue.number,
                is_pull_request: p.issue.pull_request.is_some(),
                comment_id: p.comment.id,
                body: p.comment.body.unwrap_or_default(),
                author_is_bot: p.comment.user.kind == "Bot",
                author: p.comment.user.login,
                author_association: p.comment.author_association,
            };
            routed.jobs.push(RoutedJob {
                kind: JobKind::Comment,
                pr: Some(job.number),
                payload: to_json(&job),
            });
        }
        ("issue_comment", _) => {
            routed.ignored = Some("comment not created (edited comments never execute)")
        }
        ("pull_request", "opened" | "reopened" | "synchronize" | "closed") => {
            let p: PullRequestPayload = serde_json::from_slice(body).map_err(missing)?;
            let Some(installation) = p.installation else {
                routed.ignored = Some("no installation");
                return Ok(routed);
            };
            let head_repo = p
                .pull_request
                .head
                .repo
                .as_ref()
                .map(|r| r.full_name.as_str());
            let job = PullRequestJob {
                repo: repo_ref(installation.id, &p.repository),
                number: p.pull_request.number,
                action: action.to_string(),
                head_sha: p.pull_request.head.sha,
                head_ref: p.pull_request.head.name,
                base_ref: p.pull_request.base.name,
                is_fork: head_repo != Some(p.repository.full_name.as_str()),
                author: p.pull_request.user.login,
                sender: p.sender.login,
                merged: p.pull_request.merged.unwrap_or(false),
            };
            routed.jobs.push(RoutedJob {
                kind: JobKind::PullRequest,
                pr: Some(job.number),
                payload: to_json(&job),
            });
        }
        ("pull_request", _) => routed.ignored = Some("pull_request action not handled"),
        ("pull_request_review", _) => {
            let p: ReviewPayload = serde_json::from_slice(body).map_err(missing)?;
            let Some(installation) = p.installation else {
                routed.ignored = Some("no installation");
                return Ok(routed);
            };
            let job = ReviewJob {
                repo: repo_ref(installation.id, &p.repository),
                number: p.pull_request.number,
                action: action.to_string(),
                review_id: p.review.id,
                reviewer: p.review.user.login,
                state: p.review.state,
                commit_id: p.review.commit_id,
            };
            routed.jobs.push(RoutedJob {
                kind: JobKind::Review,
                pr: Some(job.number),
                payload: to_json(&job),
            });
        }
        ("installation", _) => {
            let p: InstallationPayload = serde_json::from_slice(body).map_err(missing)?;
            routed.installation_id = Some(p.installation.id);
            let job = InstallationJob {
                installation_id: p.installation.id,
                action: action.to_string(),
                account: p.installation.account.login,
                sender: p.sender.login,
            };
            routed.jobs.push(RoutedJob {
                kind: JobKind::Installation,
                pr: None,
                payload: to_json(&job),
            });
        }
        _ => routed.ignored = Some("event not handled"),
    }
    Ok(routed)
}

fn repo_ref(installation_id: i64, r: &Repository) -> RepoRef {
    RepoRef {
        installation_id,
        owner: r.owner.login.clone(),
        name: r.name.clone(),
    }
}

fn to_json<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("job payloads serialise")
}

#[cfg(test)]
mod tests;
