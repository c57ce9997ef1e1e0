//! Changes to queued jobs: the queued jobs of a PR (replaced, cancelled), and one job by id
//! (cancelled while queued, or given one more attempt after it failed).

use anyhow::{Context, Result};

use crate::db::{now_ms, Db};

/// Found among the queued jobs through `jobs_claimable` (status, run_at): on SQLite there is
/// no index by PR (migration 0005), and few jobs wait at a time.
pub(crate) const QUEUED_FOR_PR: &str = "SELECT id, payload FROM jobs WHERE repo = $1 AND pr = $2 \
     AND kind = $3 AND status = 'queued' ORDER BY id";

/// The queued jobs of one kind of a PR, oldest first: (id, payload).
pub async fn queued_for_pr(db: &Db, repo: &str, pr: i64, kind: &str) -> Result<Vec<(i64, String)>> {
    let rows: Vec<(i64, String)> = sqlx::query_as(QUEUED_FOR_PR)
        .bind(repo)
        .bind(pr)
        .bind(kind)
        .fetch_all(&db.pool)
        .await?;
    Ok(rows)
}

/// Set a job's status (and its payload, when given) if it is still queued: a worker may have
/// claimed it since it was read. `("cancelled", None)` cancels it; `("queued", Some(p))`
/// replaces what it will run.
pub async fn update_if_queued(
    db: &Db,
    id: i64,
    status: &str,
    payload: Option<&str>,
) -> Result<bool> {
    let n = sqlx::query(
        "UPDATE jobs SET status = $1, payload = COALESCE($2, payload), updated_at = $3 \
         WHERE id = $4 AND status = 'queued'",
    )
    .bind(status)
    .bind(payload)
    .bind(now_ms())
    .bind(id)
    .execute(&db.pool)
    .await?
    .rows_affected();
    Ok(n == 1)
}

/// Cancel queued (not running) jobs of a PR; returns how many.
pub async fn cancel_queued_for_pr(db: &Db, repo: &str, pr: i64, kind: &str) -> Result<u64> {
    let n = sqlx::query(
        "UPDATE jobs SET status = 'cancelled', updated_at = $1 \
         WHERE repo = $2 AND pr = $3 AND kind = $4 AND status = 'queued'",
    )
    .bind(now_ms())
    .bind(repo)
    .bind(pr)
    .bind(kind)
    .execute(&db.pool)
    .await?
    .rows_affected();
    Ok(n)
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
