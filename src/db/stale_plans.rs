//! The runs that tell which plans another PR's apply made stale
//! (`run_planner::stale_plans` decides).

use anyhow::{Context, Result};

use super::Db;
use crate::run_planner::record::{ApplyRecord, RunStatus};
use crate::run_planner::stale_plans::{changed_state, RootRun, StateChange};

/// The root's identity in a repository.
#[derive(Debug, Clone, Copy)]
pub struct RootKey<'a> {
    pub repo: &'a str,
    pub project: &'a str,
    pub workspace: &'a str,
}

/// An apply run: the state change it made (`None` when it changed nothing).
pub async fn state_change(db: &Db, apply_run_id: i64) -> Result<Option<StateChange>> {
    type Row = (i64, i64, String, Option<String>);
    let row: Option<Row> = sqlx::query_as(
        "SELECT pr, created_at, status, outcome FROM runs WHERE id = $1 AND command = 'apply'",
    )
    .bind(apply_run_id)
    .fetch_optional(&db.pool)
    .await
    .context("reading an apply run")?;
    Ok(row.and_then(|(pr, started_at, status, outcome)| {
        let record = outcome.as_deref().map(ApplyRecord::decode);
        changed_state(RunStatus::parse(&status), record.as_ref())
            .then_some(StateChange { pr, started_at })
    }))
}

/// The PR's latest apply run of each root that changed the root's state:
/// `(run id, project, workspace)`.
pub async fn state_changing_applies(
    db: &Db,
    repo: &str,
    pr: i64,
) -> Result<Vec<(i64, String, String)>> {
    type Row = (i64, String, String, String, Option<String>);
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT id, project, workspace, status, outcome FROM runs \
         WHERE repo = $1 AND pr = $2 AND command = 'apply' ORDER BY id DESC",
    )
    .bind(repo)
    .bind(pr)
    .fetch_all(&db.pool)
    .await
    .context("reading a PR's applies")?;
    let mut latest: Vec<(i64, String, String)> = Vec::new();
    for (id, project, workspace, status, outcome) in rows {
        let record = outcome.as_deref().map(ApplyRecord::decode);
        let seen = latest
            .iter()
            .any(|(_, p, w)| *p == project && *w == workspace);
        if !seen && changed_state(RunStatus::parse(&status), record.as_ref()) {
            latest.push((id, project, workspace));
        }
    }
    Ok(latest)
}

/// Every plan and apply run of the root, in any PR.
pub async fn root_runs(db: &Db, root: RootKey<'_>) -> Result<Vec<RootRun>> {
    type Row = (i64, i64, Option<i64>, String, String, String, Option<i64>);
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT id, pr, job_id, head_sha, command, status, finished_at FROM runs \
         WHERE repo = $1 AND project = $2 AND workspace = $3 AND command IN ('plan', 'apply') \
         ORDER BY id",
    )
    .bind(root.repo)
    .bind(root.project)
    .bind(root.workspace)
    .fetch_all(&db.pool)
    .await
    .context("reading a root's runs")?;
    Ok(rows
        .into_iter()
        .map(
            |(id, pr, job_id, head_sha, command, status, finished_at)| RootRun {
                id,
                pr,
                job_id,
                head_sha,
                is_plan: command == "plan",
                status: RunStatus::parse(&status),
                finished_at,
            },
        )
        .collect())
}

/// When a run finished (`None` while it runs, or for an unknown run).
pub async fn finished_at(db: &Db, run_id: i64) -> Result<Option<i64>> {
    let at: Option<Option<i64>> = sqlx::query_scalar("SELECT finished_at FROM runs WHERE id = $1")
        .bind(run_id)
        .fetch_optional(&db.pool)
        .await
        .context("reading when a run finished")?;
    Ok(at.flatten())
}

/// Applies of the root by PRs other than `pr` that started at or after `since` (ms):
/// `(run id, changed the state, the change)`.
pub async fn other_applies_since(
    db: &Db,
    root: RootKey<'_>,
    pr: i64,
    since: i64,
) -> Result<Vec<(i64, bool, StateChange)>> {
    type Row = (i64, i64, i64, String, Option<String>);
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT id, pr, created_at, status, outcome FROM runs \
         WHERE repo = $1 AND project = $2 AND workspace = $3 AND command = 'apply' \
         AND pr <> $4 AND created_at >= $5 ORDER BY id",
    )
    .bind(root.repo)
    .bind(root.project)
    .bind(root.workspace)
    .bind(pr)
    .bind(since)
    .fetch_all(&db.pool)
    .await
    .context("reading other PRs' applies of a root")?;
    Ok(rows
        .into_iter()
        .map(|(id, pr, started_at, status, outcome)| {
            let record = outcome.as_deref().map(ApplyRecord::decode);
            let changed = changed_state(RunStatus::parse(&status), record.as_ref());
            (id, changed, StateChange { pr, started_at })
        })
        .collect())
}

/// The comment a run job's result was posted as (not its notices').
pub async fn result_comment(db: &Db, job_id: i64) -> Result<Option<i64>> {
    let id: Option<Option<i64>> =
        sqlx::query_scalar("SELECT comment_id FROM publications WHERE job_id = $1 AND key = $2")
            .bind(job_id)
            .bind(super::publications::RESULT_KEY)
            .fetch_optional(&db.pool)
            .await
            .context("reading a run's result comment")?;
    Ok(id.flatten())
}
