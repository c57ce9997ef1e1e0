//! The `tfgate/apply` check's view of stale plans (effects): which of a PR's latest plans
//! another PR's apply made stale since (`run_planner::stale_plans::stale_by` decides).

use crate::db::stale_plans::{self as db, RootKey};
use crate::jobs::JobError;
use crate::model::RepoRef;
use crate::run_planner::apply_status::RootRuns;
use crate::run_planner::latest_runs::AffectedRoot;
use crate::run_planner::record::RunStatus;
use crate::run_planner::stale_plans::stale_by;
use crate::state::AppState;

/// Mark the plans among `latest` (the PR's latest runs of `roots`, in the same order) that
/// another PR's apply made stale since, for the `tfgate/apply` check.
pub(super) async fn mark_stale_roots(
    state: &AppState,
    repo: &RepoRef,
    number: i64,
    roots: &[AffectedRoot<'_>],
    latest: &mut [RootRuns],
) -> Result<(), JobError> {
    let repo = repo.full_name();
    for (root, runs) in roots.iter().zip(latest.iter_mut()) {
        let Some(plan) = runs
            .plan
            .as_mut()
            .filter(|p| p.status == Some(RunStatus::Planned))
        else {
            continue;
        };
        let finished = db::finished_at(&state.db, plan.id)
            .await
            .map_err(JobError::Transient)?;
        let Some(finished) = finished else {
            continue;
        };
        let key = RootKey {
            repo: &repo,
            project: root.project,
            workspace: root.workspace,
        };
        let applies = db::other_applies_since(&state.db, key, number, finished)
            .await
            .map_err(JobError::Transient)?;
        plan.stale_by =
            stale_by(Some(finished), &applies).map(|c| (c.pr, utc_minute(c.started_at)));
    }
    Ok(())
}

/// `YYYY-MM-DD HH:MM UTC` of a time in ms.
pub(super) fn utc_minute(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_else(|| "an unknown time".to_string())
}
