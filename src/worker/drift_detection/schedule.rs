//! Scheduled drift detection: every minute, each repository the App is installed on whose
//! policy has `drift_detection` gets a `drift` job when its schedule's latest slot is newer
//! than the one recorded (`drift_slot:OWNER/NAME` in `server_settings`). The slot is moved
//! with a compare-and-set, so among several `serve` processes exactly one enqueues it.
//! Whether a slot is due is [`crate::drift_detection::schedule`]; the clock is a parameter.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use chrono::{DateTime, Utc};
use tokio::sync::watch;

use crate::db::jobs as queue;
use crate::db::server_settings;
use crate::drift_detection::schedule::{Schedule, SlotDecision};
use crate::jobs::{DriftJob, JobKind, NewJob};
use crate::model::RepoRef;
use crate::state::AppState;

const POLL: Duration = Duration::from_secs(60);
/// Repositories of the App's installations looked at.
const MAX_REPOS: usize = 1000;
const DRIFT_MAX_ATTEMPTS: i64 = 3;

/// Runs [`poll_once`] every minute until shutdown (in `serve`).
pub fn spawn_drift_schedule(
    state: &Arc<AppState>,
    mut shutdown: watch::Receiver<bool>,
) -> tokio::task::JoinHandle<()> {
    let state = state.clone();
    tokio::spawn(async move {
        loop {
            if let Err(e) = poll_once(&state, Utc::now()).await {
                tracing::warn!(error = %format!("{e:#}"), "drift schedule poll failed");
            }
            tokio::select! {
                _ = tokio::time::sleep(POLL) => {}
                _ = shutdown.changed() => return,
            }
        }
    })
}

/// One poll at `now`: returns the `drift` jobs it enqueued (repository, slot).
pub async fn poll_once(state: &AppState, now: DateTime<Utc>) -> Result<Vec<(String, String)>> {
    let Some(app) = state.github() else {
        return Ok(vec![]);
    };
    let set = state.policies.current();
    let has_schedule = set.policies().iter().any(|p| p.drift_detection.is_some());
    if !has_schedule {
        return Ok(vec![]);
    }
    let repos = app.installed_repositories(MAX_REPOS).await?;
    let mut enqueued = Vec::new();
    for full_name in repos {
        let Some(policy) = set.for_repo(&full_name) else {
            continue;
        };
        let Some(detection) = &policy.drift_detection else {
            continue;
        };
        let schedule = Schedule::parse(&detection.schedule).map_err(anyhow::Error::msg)?;
        if let Some(slot) = claim_slot(state, &full_name, &schedule, now).await? {
            let (owner, name) = full_name.split_once('/').context("a repository name")?;
            let installation_id = app.repository_installation(owner, name).await?;
            let repo = RepoRef {
                installation_id,
                owner: owner.into(),
                name: name.into(),
            };
            let id = enqueue_drift(state, repo, vec![], &format!("schedule {slot}")).await?;
            tracing::info!(repo = %full_name, %slot, job = id, "drift check scheduled");
            enqueued.push((full_name.clone(), slot));
        }
    }
    Ok(enqueued)
}

/// The slot to run now, when this process moved the recorded slot to it.
async fn claim_slot(
    state: &AppState,
    repo: &str,
    schedule: &Schedule,
    now: DateTime<Utc>,
) -> Result<Option<String>> {
    let key = format!("drift_slot:{repo}");
    let recorded = server_settings::get(&state.db, &key).await?;
    let recorded_at = recorded
        .as_deref()
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&Utc));
    match schedule.decide(recorded_at, now) {
        SlotDecision::Wait => Ok(None),
        SlotDecision::Record(slot) => {
            server_settings::insert_if_absent(&state.db, &key, &slot.to_rfc3339()).await?;
            Ok(None)
        }
        SlotDecision::Run(slot) => {
            let slot = slot.to_rfc3339();
            let expected = recorded.unwrap_or_default();
            let moved = server_settings::compare_and_set(&state.db, &key, &expected, &slot).await?;
            Ok(moved.then_some(slot))
        }
    }
}

/// Queues a drift check of `repo` (all of its drift projects when `projects` is empty).
pub async fn enqueue_drift(
    state: &AppState,
    repo: RepoRef,
    projects: Vec<String>,
    trigger: &str,
) -> Result<i64> {
    let full_name = repo.full_name();
    let job = NewJob {
        kind: JobKind::Drift,
        payload: serde_json::to_string(&DriftJob {
            repo,
            projects,
            trigger: trigger.into(),
        })
        .context("a drift payload")?,
        repo: Some(full_name),
        pr: None,
        max_attempts: DRIFT_MAX_ATTEMPTS,
    };
    let id = queue::enqueue(&state.db, &job).await?;
    state.wake.notify_waiters();
    Ok(id)
}
