//! Webhook payloads → the jobs they enqueue. Pure: bytes in, typed job payloads out.
//! Only the fields tfgate uses are read; job payloads keep only those fields.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::jobs::JobKind;
pub use crate::model::job::{CommentJob, InstallationJob, PullRequestJob, PushJob, ReviewJob};
use crate::model::RepoRef;

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
    /// `None` when absent (treated as public: the safe side for replies to outsiders).
    #[serde(default)]
    private: Option<bool>,
    #[serde(default)]
    default_branch: Option<String>,
}

/// What an unhandled event is stored with.
#[derive(Debug, Deserialize)]
struct Envelope {
    action: Option<String>,
    repository: Option<Repository>,
    installation: Option<InstallationRef>,
}

/// Every field a handled event reads, so that a delivery is parsed once; which fields an event
/// requires is checked after parsing ([`need`]). Everything else is skipped unparsed.
#[derive(Debug, Deserialize)]
struct Delivery {
    action: Option<String>,
    repository: Option<Repository>,
    installation: Option<InstallationRef>,
    issue: Option<Issue>,
    comment: Option<Comment>,
    pull_request: Option<PullRequest>,
    review: Option<Review>,
    sender: Option<User>,
    /// `push`: the ref pushed and the commit it points to now.
    #[serde(rename = "ref")]
    git_ref: Option<String>,
    after: Option<String>,
    /// `pull_request.synchronize`: the head before the push.
    before: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Issue {
    number: i64,
    /// Present (an object) when the issue is a pull request; its content is not read.
    #[serde(default)]
    pull_request: Option<serde::de::IgnoredAny>,
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
struct Review {
    id: i64,
    user: User,
    state: String,
    #[serde(default)]
    commit_id: Option<String>,
}

/// `installation` is `{id, node_id}` in most events and the full installation (with
/// `account`) in `installation` events.
#[derive(Debug, Clone, Deserialize)]
struct InstallationRef {
    id: i64,
    #[serde(default)]
    account: Option<Owner>,
}

/// GitHub event names are lower-case words joined by `_`.
pub fn valid_event_name(event: &str) -> bool {
    !event.is_empty()
        && event.len() <= 64
        && event.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
}

/// The events tfgate acts on; every other event is answered as ignored (nothing stored) without
/// a full parse.
const HANDLED_EVENTS: [&str; 6] = [
    "issue_comment",
    "pull_request",
    "pull_request_review",
    "installation",
    "ping",
    "push",
];

/// The `event` label of the deliveries metric. An unsigned request may name any event, and each
/// new label value is a new time series kept for the life of the process: only a handled event,
/// or any well-formed name on a delivery signed with a configured secret, is kept as given.
pub fn metric_label(event: &str, signed: bool) -> Cow<'static, str> {
    if let Some(handled) = HANDLED_EVENTS.iter().find(|e| **e == event) {
        Cow::Borrowed(handled)
    } else if !valid_event_name(event) {
        Cow::Borrowed("invalid")
    } else if signed {
        Cow::Owned(event.to_string())
    } else {
        Cow::Borrowed("unsigned")
    }
}

/// Route a verified delivery.
pub fn route(event: &str, body: &[u8]) -> Result<Routed, IntakeError> {
    if !valid_event_name(event) {
        return Err(IntakeError::BadEventName);
    }
    // JSON is UTF-8; serde_json does not check the strings it skips, so check the whole body.
    let body = std::str::from_utf8(body)
        .map_err(|e| IntakeError::MalformedJson(format!("body is not UTF-8: {e}")))?;
    if !HANDLED_EVENTS.contains(&event) {
        return route_unhandled(body);
    }
    let shape_error = |e: serde_json::Error| match e.classify() {
        serde_json::error::Category::Data => IntakeError::MissingFields {
            event: event.to_string(),
            detail: e.to_string(),
        },
        _ => IntakeError::MalformedJson(e.to_string()),
    };
    let d: Delivery = serde_json::from_str(body).map_err(shape_error)?;
    let mut routed = Routed {
        action: d.action.clone(),
        repo: d.repository.as_ref().map(|r| r.full_name.clone()),
        installation_id: d.installation.as_ref().map(|i| i.id),
        jobs: Vec::new(),
        ignored: None,
    };
    let action = d.action.clone().unwrap_or_default();
    let job = match (event, action.as_str()) {
        ("ping", _) => Err("ping"),
        ("issue_comment", "created") => comment_job(event, d)?,
        ("issue_comment", _) => Err("comment not created (edited comments never execute)"),
        ("pull_request", "opened" | "reopened" | "synchronize" | "closed") => {
            pull_request_job(event, &action, d)?
        }
        ("pull_request", _) => Err("pull_request action not handled"),
        ("pull_request_review", _) => review_job(event, &action, d)?,
        ("installation", _) => installation_job(event, &action, d)?,
        ("push", _) => push_job(event, d)?,
        _ => Err("event not handled"),
    };
    match job {
        Ok(job) => routed.jobs.push(job),
        Err(reason) => routed.ignored = Some(reason),
    }
    Ok(routed)
}

/// An event tfgate does not act on: only the envelope is read, for the delivery log.
fn route_unhandled(body: &str) -> Result<Routed, IntakeError> {
    let envelope: Envelope =
        serde_json::from_str(body).map_err(|e| IntakeError::MalformedJson(e.to_string()))?;
    Ok(Routed {
        action: envelope.action,
        repo: envelope.repository.map(|r| r.full_name),
        installation_id: envelope.installation.map(|i| i.id),
        jobs: Vec::new(),
        ignored: Some("event not handled"),
    })
}

/// A job to enqueue, or why the delivery is ignored.
type JobOrIgnored = Result<RoutedJob, &'static str>;

fn missing(event: &str, field: &'static str) -> IntakeError {
    IntakeError::MissingFields {
        event: event.to_string(),
        detail: format!("missing field `{field}`"),
    }
}

fn comment_job(event: &str, d: Delivery) -> Result<JobOrIgnored, IntakeError> {
    let need = |field| missing(event, field);
    let issue = d.issue.ok_or_else(|| need("issue"))?;
    let comment = d.comment.ok_or_else(|| need("comment"))?;
    let repository = d.repository.as_ref().ok_or_else(|| need("repository"))?;
    let Some(installation) = d.installation else {
        return Ok(Err("no installation"));
    };
    let job = CommentJob {
        repo: repo_ref(installation.id, repository),
        number: issue.number,
        is_pull_request: issue.pull_request.is_some(),
        comment_id: comment.id,
        body: comment.body.unwrap_or_default(),
        author_is_bot: comment.user.kind == "Bot",
        author: comment.user.login,
        author_association: comment.author_association,
        repo_is_public: repository.private != Some(true),
    };
    Ok(Ok(RoutedJob {
        kind: JobKind::Comment,
        pr: Some(job.number),
        payload: to_json(&job),
    }))
}

fn pull_request_job(event: &str, action: &str, d: Delivery) -> Result<JobOrIgnored, IntakeError> {
    let need = |field| missing(event, field);
    let pr = d.pull_request.ok_or_else(|| need("pull_request"))?;
    let repository = d.repository.as_ref().ok_or_else(|| need("repository"))?;
    let sender = d.sender.ok_or_else(|| need("sender"))?;
    let Some(installation) = d.installation else {
        return Ok(Err("no installation"));
    };
    let head_repo = pr.head.repo.as_ref().map(|r| r.full_name.as_str());
    let job = PullRequestJob {
        repo: repo_ref(installation.id, repository),
        number: pr.number,
        action: action.to_string(),
        is_fork: head_repo != Some(repository.full_name.as_str()),
        head_sha: pr.head.sha,
        head_ref: pr.head.name,
        base_ref: pr.base.name,
        author: pr.user.login,
        sender: sender.login,
        merged: pr.merged.unwrap_or(false),
        before: d.before,
    };
    Ok(Ok(RoutedJob {
        kind: JobKind::PullRequest,
        pr: Some(job.number),
        payload: to_json(&job),
    }))
}

fn push_job(event: &str, d: Delivery) -> Result<JobOrIgnored, IntakeError> {
    let need = |field| missing(event, field);
    let git_ref = d.git_ref.ok_or_else(|| need("ref"))?;
    let sha = d.after.ok_or_else(|| need("after"))?;
    let repository = d.repository.as_ref().ok_or_else(|| need("repository"))?;
    let default_branch = repository
        .default_branch
        .clone()
        .ok_or_else(|| need("repository.default_branch"))?;
    let Some(installation) = d.installation else {
        return Ok(Err("no installation"));
    };
    if !crate::policy_repo::is_default_branch_push(&git_ref, &default_branch) {
        return Ok(Err("push to a branch other than the default branch"));
    }
    if sha.bytes().all(|b| b == b'0') {
        return Ok(Err("the default branch was deleted"));
    }
    let job = PushJob {
        repo: repo_ref(installation.id, repository),
        sha,
        default_branch,
    };
    Ok(Ok(RoutedJob {
        kind: JobKind::Push,
        pr: None,
        payload: to_json(&job),
    }))
}

fn review_job(event: &str, action: &str, d: Delivery) -> Result<JobOrIgnored, IntakeError> {
    let need = |field| missing(event, field);
    let review = d.review.ok_or_else(|| need("review"))?;
    let pr = d.pull_request.ok_or_else(|| need("pull_request"))?;
    let repository = d.repository.as_ref().ok_or_else(|| need("repository"))?;
    let Some(installation) = d.installation else {
        return Ok(Err("no installation"));
    };
    let job = ReviewJob {
        repo: repo_ref(installation.id, repository),
        number: pr.number,
        action: action.to_string(),
        review_id: review.id,
        reviewer: review.user.login,
        state: review.state,
        commit_id: review.commit_id,
    };
    Ok(Ok(RoutedJob {
        kind: JobKind::Review,
        pr: Some(job.number),
        payload: to_json(&job),
    }))
}

fn installation_job(event: &str, action: &str, d: Delivery) -> Result<JobOrIgnored, IntakeError> {
    let need = |field| missing(event, field);
    let installation = d.installation.ok_or_else(|| need("installation"))?;
    let account = installation
        .account
        .ok_or_else(|| need("installation.account"))?;
    let sender = d.sender.ok_or_else(|| need("sender"))?;
    let job = InstallationJob {
        installation_id: installation.id,
        action: action.to_string(),
        account: account.login,
        sender: sender.login,
    };
    Ok(Ok(RoutedJob {
        kind: JobKind::Installation,
        pr: None,
        payload: to_json(&job),
    }))
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
