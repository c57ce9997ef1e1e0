use std::sync::Arc;

use super::payload;
use crate::db::audit::{self, AuditEvent};
use crate::db::locks;
use crate::jobs::{queue, ClaimedJob, JobError, JobKind};
use crate::state::AppState;
use crate::webhook::event::{InstallationJob, PullRequestJob, ReviewJob};

pub async fn pull_request(state: &Arc<AppState>, job: &ClaimedJob) -> Result<(), JobError> {
    let pr: PullRequestJob = payload(job)?;
    if pr.action == "closed" {
        // Merged or closed: the PR's locks go; queued runs are dropped.
        let repo = pr.repo.full_name();
        locks::release(&state.db, &repo, pr.number, None)
            .await
            .map_err(JobError::Transient)?;
        queue::cancel_queued_for_pr(&state.db, &repo, pr.number, JobKind::Run.as_str())
            .await
            .map_err(JobError::Transient)?;
    }
    audit::record(
        &state.db,
        &AuditEvent {
            actor: pr.sender.clone(),
            repo: Some(pr.repo.full_name()),
            pr: Some(pr.number),
            action: format!("pull_request.{}", pr.action),
            rule: None,
            result: "recorded".into(),
            detail: Some(format!("head {}", short_sha(&pr.head_sha))),
        },
    )
    .await
    .map_err(JobError::Transient)
}

pub async fn review(state: &Arc<AppState>, job: &ClaimedJob) -> Result<(), JobError> {
    let review: ReviewJob = payload(job)?;
    audit::record(
        &state.db,
        &AuditEvent {
            actor: review.reviewer.clone(),
            repo: Some(review.repo.full_name()),
            pr: Some(review.number),
            action: format!("review.{}", review.action),
            rule: None,
            result: review.state.to_lowercase(),
            detail: review
                .commit_id
                .as_deref()
                .map(|c| format!("on {}", short_sha(c))),
        },
    )
    .await
    .map_err(JobError::Transient)
}

pub async fn installation(state: &Arc<AppState>, job: &ClaimedJob) -> Result<(), JobError> {
    let inst: InstallationJob = payload(job)?;
    if matches!(inst.action.as_str(), "deleted" | "suspend") {
        if let Some(app) = state.github() {
            app.forget_installation(inst.installation_id);
        }
    }
    audit::record(
        &state.db,
        &AuditEvent {
            actor: inst.sender.clone(),
            repo: None,
            pr: None,
            action: format!("installation.{}", inst.action),
            rule: None,
            result: "recorded".into(),
            detail: Some(format!(
                "installation {} on {}",
                inst.installation_id, inst.account
            )),
        },
    )
    .await
    .map_err(JobError::Transient)
}

fn short_sha(sha: &str) -> &str {
    &sha[..sha.len().min(12)]
}
