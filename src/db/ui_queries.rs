//! Reads and the two queue actions of the web UI (the rest it shares with the operator CLI in
//! [`super::operator`]).

use anyhow::{Context, Result};
use serde::Serialize;

use super::{now_ms, Db};

/// `(repo, created_at ms, status)` of every run since `since_ms`.
pub async fn run_statuses_since(db: &Db, since_ms: i64) -> Result<Vec<(String, i64, String)>> {
    sqlx::query_as("SELECT repo, created_at, status FROM runs WHERE created_at >= $1")
        .bind(since_ms)
        .fetch_all(&db.pool)
        .await
        .context("reading run statuses")
}

/// `(repo, created_at ms, sealed result)` of apply publications since `since_ms` (newest 500).
pub async fn apply_results_since(db: &Db, since_ms: i64) -> Result<Vec<(String, i64, String)>> {
    sqlx::query_as(
        "SELECT repo, created_at, result FROM publications WHERE command = 'apply' AND created_at >= $1 \
         ORDER BY id DESC LIMIT 500",
    )
    .bind(since_ms)
    .fetch_all(&db.pool)
    .await
    .context("reading apply results")
}

/// The comment id a job's result was posted as.
pub async fn comment_of_job(db: &Db, job_id: i64) -> Result<Option<i64>> {
    let id: Option<Option<i64>> =
        sqlx::query_scalar("SELECT comment_id FROM publications WHERE job_id = $1")
            .bind(job_id)
            .fetch_optional(&db.pool)
            .await
            .context("reading a publication")?;
    Ok(id.flatten())
}

/// One input's fingerprint at a root's last apply.
#[derive(Debug, Clone, Serialize)]
pub struct AppliedInput {
    pub repo: String,
    pub project: String,
    pub workspace: String,
    pub input: String,
    pub fingerprint: String,
    pub run_id: i64,
    pub applied_ms: i64,
}

pub async fn applied_inputs(db: &Db) -> Result<Vec<AppliedInput>> {
    type Row = (String, String, String, String, String, i64, i64);
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT repo, project, workspace, input, fingerprint, run_id, applied_at \
         FROM input_fingerprints ORDER BY repo, project, workspace, input LIMIT 2000",
    )
    .fetch_all(&db.pool)
    .await
    .context("reading input fingerprints")?;
    Ok(rows
        .into_iter()
        .map(
            |(repo, project, workspace, input, fingerprint, run_id, applied_ms)| AppliedInput {
                repo,
                project,
                workspace,
                input,
                fingerprint,
                run_id,
                applied_ms,
            },
        )
        .collect())
}

/// The repository of job `id` and its kind, if it exists.
pub async fn job_repo_and_kind(db: &Db, id: i64) -> Result<Option<(Option<String>, String)>> {
    sqlx::query_as("SELECT repo, kind FROM jobs WHERE id = $1")
        .bind(id)
        .fetch_optional(&db.pool)
        .await
        .context("reading a job")
}

/// Cancels a queued job; false when it is not queued (any more).
pub async fn cancel_queued_job(db: &Db, id: i64) -> Result<bool> {
    let n = sqlx::query(
        "UPDATE jobs SET status = 'cancelled', updated_at = $1 WHERE id = $2 AND status = 'queued'",
    )
    .bind(now_ms())
    .bind(id)
    .execute(&db.pool)
    .await
    .context("cancelling a job")?
    .rows_affected();
    Ok(n == 1)
}

/// Gives a failed job one more attempt now. Never a `run` job: a Terraform run is started
/// again by a person on the PR, never from here. False when the job is not such a job.
pub async fn retry_failed_job(db: &Db, id: i64) -> Result<bool> {
    let n = sqlx::query(
        "UPDATE jobs SET status = 'queued', run_at = $1, max_attempts = attempts + 1, \
         lease_until = NULL, lease_owner = NULL, updated_at = $1 \
         WHERE id = $2 AND status = 'failed' AND kind <> 'run'",
    )
    .bind(now_ms())
    .bind(id)
    .execute(&db.pool)
    .await
    .context("retrying a job")?
    .rows_affected();
    Ok(n == 1)
}
