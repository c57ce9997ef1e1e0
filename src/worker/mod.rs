//! Job handlers: they read the job, call the pure deciders in `run_planner`, and carry out the
//! effects (GitHub calls, database writes). Internal errors are logged with context; a PR only
//! ever sees a short line.

mod apply_check;
mod approve_policies;
mod authorize;
mod cloudtrail_poll;
mod comment;
mod deploy_ack;
pub mod drift_detection;
mod enriched_comment;
mod events;
mod failed;
mod gitops_check;
pub mod input_drift;
pub mod layout;
mod notice_outbox;
mod plan_authors;
mod plan_policy_check;
pub mod policy_repo;
mod pr_changes;
mod pr_snapshot;
mod publish;
mod publish_batch;
mod publish_checks;
mod pushers;
mod replies;

mod run;
mod stale_check;
mod stale_plans;

use std::sync::Arc;

use crate::github::InstallationClient;

use crate::github::GitHubApp;
use crate::jobs::runner::JobHandler;
use crate::jobs::{ClaimedJob, JobError, JobKind};
use crate::model::RepoRef;
use crate::state::AppState;

pub struct JobRouter {
    state: Arc<AppState>,
}

impl JobRouter {
    pub fn new(state: Arc<AppState>) -> JobRouter {
        JobRouter { state }
    }
}

impl JobHandler for JobRouter {
    async fn handle(&self, job: &ClaimedJob) -> Result<(), JobError> {
        match JobKind::parse(&job.kind) {
            Some(JobKind::Comment) => comment::handle(&self.state, job).await,
            Some(JobKind::PullRequest) => events::pull_request(&self.state, job).await,
            Some(JobKind::Review) => events::review(&self.state, job).await,
            Some(JobKind::Installation) => events::installation(&self.state, job).await,
            Some(JobKind::Run) => run::handle(&self.state, job).await,
            Some(JobKind::Enrich) => cloudtrail_poll::handle(&self.state, job).await,
            Some(JobKind::Publish) => publish::handle(&self.state, job).await,
            Some(JobKind::Push) => events::push(&self.state, job).await,
            Some(JobKind::Drift) => run::drift_detection::handle(&self.state, job).await,
            Some(JobKind::MarkStale) => stale_plans::handle(&self.state, job).await,
            None => Err(JobError::Permanent(anyhow::anyhow!(
                "unknown job kind {}",
                job.kind
            ))),
        }
    }

    async fn on_failed(&self, job: &ClaimedJob, error: &JobError) {
        failed::report(&self.state, job, error).await
    }
}

/// The App and a client acting as the repository's installation. No App configured yet is
/// transient (the job waits for setup); a client that cannot be made is permanent.
fn installation_client(
    state: &AppState,
    repo: &RepoRef,
) -> Result<(Arc<GitHubApp>, Arc<InstallationClient>), JobError> {
    let app = state
        .github()
        .ok_or_else(|| JobError::Transient(anyhow::anyhow!("no GitHub App configured yet")))?;
    let gh = app
        .installation(repo.installation_id)
        .map_err(JobError::Permanent)?;
    Ok((app, gh))
}

/// Decode a job payload; a payload that does not decode will never succeed.
fn payload<T: serde::de::DeserializeOwned>(job: &ClaimedJob) -> Result<T, JobError> {
    decode_payload(job, &job.payload)
}

/// Decode a payload stored with [`crate::crypto::seal_job_payload`].
fn sealed_payload<T: serde::de::DeserializeOwned>(
    key: &crate::crypto::SealKey,
    job: &ClaimedJob,
) -> Result<T, JobError> {
    let plain = crate::crypto::open_job_payload(key, &job.kind, &job.payload)
        .map_err(|e| JobError::Permanent(anyhow::anyhow!("{} job payload: {e}", job.kind)))?;
    decode_payload(job, &plain)
}

fn decode_payload<T: serde::de::DeserializeOwned>(
    job: &ClaimedJob,
    text: &str,
) -> Result<T, JobError> {
    serde_json::from_str(text)
        .map_err(|e| JobError::Permanent(anyhow::anyhow!("bad {} job payload: {e}", job.kind)))
}

/// GitHub refused the call (a 4xx that is no rate limit): retrying will not help; the rest
/// (5xx, no answer, rate limits) may, and the job runner reads any wait GitHub asked for.
fn github_error(e: anyhow::Error) -> JobError {
    if crate::github::retry::is_permanent(&e) {
        JobError::Permanent(e)
    } else {
        JobError::Transient(e)
    }
}
