//! A notice a job raises (head moved, plan stale, a root's lock held, a job failed for good…)
//! goes through the outbox like a run's result: recorded with its key in one transaction with
//! its `publish` job, then posted by that job once (`publish::publish_notice`). A retried job
//! that raises the same notice again records nothing new.

use anyhow::anyhow;

use crate::crypto::seal_job_payload;
use crate::db::publications::{self, NewPublication};
use crate::jobs::{ClaimedJob, JobError, JobKind, NewJob, PublishJob, PUBLISH_MAX_ATTEMPTS};
use crate::model::view::Notice;
use crate::model::RepoRef;
use crate::run_planner::outbox::{notice_key, NOTICE_COMMAND, PUBLICATION_AAD};
use crate::state::AppState;

/// Where a notice goes and which job raises it.
pub struct NoticeTarget<'a> {
    pub job: &'a ClaimedJob,
    pub repo: &'a RepoRef,
    pub number: i64,
    /// The commit the notice is about ('' when none).
    pub head_sha: &'a str,
}

/// Record `notice` in the outbox and queue its `publish` job. It is rendered once here so that
/// a model that cannot be shown fails the job that raised it, not the publish.
pub async fn record_notice(
    state: &AppState,
    target: &NoticeTarget<'_>,
    notice: &Notice,
) -> Result<(), JobError> {
    state
        .renderer
        .render_notice(notice)
        .map_err(|e| JobError::Permanent(anyhow!("rendering a notice: {e}")))?;
    let json = serde_json::to_string(notice).expect("a notice serialises");
    let entry = OutboxEntry {
        key: &notice_key(notice),
        command: NOTICE_COMMAND,
        head_sha: target.head_sha,
        json: &json,
        batch_id: None,
        then: None,
    };
    record_in_outbox(state, target.job, target.repo, target.number, &entry).await
}

/// One publication: its key, the command it reports, the commit and the view model's JSON.
pub struct OutboxEntry<'a> {
    pub key: &'a str,
    pub command: &'a str,
    pub head_sha: &'a str,
    pub json: &'a str,
    /// A part's root result: the plan batch it belongs to.
    pub batch_id: Option<i64>,
    /// A job queued in the same transaction (the part that plans the next roots).
    pub then: Option<&'a NewJob>,
}

/// Seal `entry` and record it with its `publish` job in one transaction, while `job` still
/// holds its lease; then wake the workers. Shared by run results and notices.
pub async fn record_in_outbox(
    state: &AppState,
    job: &ClaimedJob,
    repo_ref: &RepoRef,
    number: i64,
    entry: &OutboxEntry<'_>,
) -> Result<(), JobError> {
    let sealed = seal_job_payload(&state.seal_key, PUBLICATION_AAD, entry.json);
    let repo = repo_ref.full_name();
    let new = NewPublication {
        key: entry.key,
        repo: &repo,
        pr: number,
        command: entry.command,
        head_sha: entry.head_sha,
        result: &sealed,
        batch_id: entry.batch_id,
    };
    let publish = |publication_id| NewJob {
        kind: JobKind::Publish,
        payload: serde_json::to_string(&PublishJob {
            repo: repo_ref.clone(),
            number,
            publication_id,
        })
        .expect("a publish payload serialises"),
        repo: Some(repo.clone()),
        pr: Some(number),
        max_attempts: PUBLISH_MAX_ATTEMPTS,
    };
    publications::record(&state.db, job, &new, publish, entry.then)
        .await
        .map_err(JobError::Transient)?;
    state.wake.notify_waiters();
    Ok(())
}
