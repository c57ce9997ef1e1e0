//! The `jobs` table, the durable queue: jobs are rows, claimed with a lease that the worker
//! renews by heartbeat; a job whose worker dies is re-claimed once its lease expires.
//! Claiming is one statement: on PostgreSQL the candidate row is locked with
//! `FOR UPDATE SKIP LOCKED`; SQLite serialises writers, so the same statement is atomic there.
//! The queued jobs of a PR and one job by id are in [`queued`]; what is listed in [`listing`].

mod listing;
mod queued;

pub use listing::{job_repo_and_kind, queue_depth, recent, JobRow};
#[cfg(test)]
pub(crate) use queued::QUEUED_FOR_PR;
pub use queued::{
    cancel_queued_for_pr, cancel_queued_job, queued_for_pr, retry_failed_job, update_if_queued,
};

use anyhow::{Context, Result};

use super::{now_ms, Backend, Db};
use crate::model::job::JobKind;

/// A job to enqueue.
#[derive(Debug, Clone)]
pub struct NewJob {
    pub kind: JobKind,
    pub payload: String,
    pub repo: Option<String>,
    pub pr: Option<i64>,
    pub max_attempts: i64,
}

/// A job a worker holds the lease of.
#[derive(Debug, Clone)]
pub struct ClaimedJob {
    pub id: i64,
    pub kind: String,
    pub payload: String,
    pub delivery_id: Option<String>,
    pub attempts: i64,
    pub max_attempts: i64,
    /// How often a worker died holding this job (lease expired while running).
    pub interruptions: i64,
    /// This claim took over a job whose previous worker died.
    pub reclaimed: bool,
    pub lease_owner: String,
}

/// Backoff before attempt `attempts + 1`: 2s, 4s, 8s … capped at 5 minutes.
pub fn retry_backoff_ms(attempts: i64) -> i64 {
    let exp = attempts.clamp(1, 20) as u32;
    (1000i64 << exp).min(300_000)
}

pub async fn insert_job(
    conn: &mut sqlx::AnyConnection,
    job: &NewJob,
    delivery_id: Option<&str>,
    now: i64,
) -> Result<i64> {
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO jobs (kind, delivery_id, repo, pr, payload, status, attempts, max_attempts, \
         run_at, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, 'queued', 0, $6, $7, $7, $7) RETURNING id",
    )
    .bind(job.kind.as_str())
    .bind(delivery_id)
    .bind(job.repo.as_deref())
    .bind(job.pr)
    .bind(&job.payload)
    .bind(job.max_attempts)
    .bind(now)
    .fetch_one(conn)
    .await
    .context("enqueueing job")?;
    Ok(id)
}

/// Whether `job` still holds its lease (read inside the caller's transaction, so what it
/// writes next is written only by the lease holder).
pub async fn lease_held(conn: &mut sqlx::AnyConnection, job: &ClaimedJob) -> Result<bool> {
    let held: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM jobs WHERE id = $1 AND lease_owner = $2 AND status = 'running'",
    )
    .bind(job.id)
    .bind(&job.lease_owner)
    .fetch_one(conn)
    .await
    .context("checking the job's lease")?;
    Ok(held > 0)
}

/// Enqueue a job outside an intake transaction (e.g. a run job created by a worker).
pub async fn enqueue(db: &Db, job: &NewJob) -> Result<i64> {
    enqueue_after(db, job, 0).await
}

/// Enqueue a job that becomes claimable `delay_ms` from now.
pub async fn enqueue_after(db: &Db, job: &NewJob, delay_ms: i64) -> Result<i64> {
    let mut conn = db.pool.acquire().await?;
    let now = now_ms();
    let id = insert_job(&mut conn, job, None, now).await?;
    if delay_ms > 0 {
        sqlx::query("UPDATE jobs SET run_at = $1 WHERE id = $2")
            .bind(now + delay_ms)
            .bind(id)
            .execute(&mut *conn)
            .await?;
    }
    Ok(id)
}

/// Claim the oldest ready job (queued and due, or running with an expired lease).
///
/// Each kind of ready job is looked up on its own, first in `jobs_claimable (status, run_at)`
/// order, and the older of the (at most) two is taken: one `WHERE (queued …) OR (running …)
/// ORDER BY run_at` made SQLite collect and sort every due job on each claim, so a backlog of
/// n jobs cost O(n log n) per claim (`claim_cost_does_not_grow_with_the_backlog`).
pub async fn claim(db: &Db, owner: &str, lease_ms: i64) -> Result<Option<ClaimedJob>> {
    let now = now_ms();
    type Row = (i64, String, String, Option<String>, i64, i64, i64, i64);
    let row: Option<Row> = sqlx::query_as(&claim_sql(db.backend))
        .bind(now + lease_ms)
        .bind(owner)
        .bind(now)
        .fetch_optional(&db.pool)
        .await
        .context("claiming a job")?;
    Ok(row.map(
        |(id, kind, payload, delivery_id, attempts, max_attempts, interruptions, takeover)| {
            ClaimedJob {
                id,
                kind,
                payload,
                delivery_id,
                attempts,
                max_attempts,
                interruptions,
                // SET expressions read the old row, so `takeover` says whether this claim took a
                // job over from a worker whose lease expired.
                reclaimed: takeover == 1,
                lease_owner: owner.to_string(),
            }
        },
    ))
}

/// `$1` lease until, `$2` owner, `$3` now.
fn claim_sql(backend: Backend) -> String {
    let lock = match backend {
        Backend::Postgres => " FOR UPDATE SKIP LOCKED",
        Backend::Sqlite => "",
    };
    format!(
        "UPDATE jobs SET status = 'running', attempts = attempts + 1, \
           interruptions = interruptions + CASE WHEN status = 'running' THEN 1 ELSE 0 END, \
           takeover = CASE WHEN status = 'running' THEN 1 ELSE 0 END, \
           lease_until = $1, lease_owner = $2, updated_at = $3 \
         WHERE id = (SELECT id FROM ( \
             SELECT id, run_at FROM (SELECT id, run_at FROM jobs \
               WHERE status = 'queued' AND run_at <= $3 ORDER BY run_at, id LIMIT 1{lock}) AS due \
             UNION ALL \
             SELECT id, run_at FROM (SELECT id, run_at FROM jobs \
               WHERE status = 'running' AND lease_until < $3 ORDER BY run_at, id LIMIT 1{lock}) AS expired \
           ) AS ready ORDER BY run_at, id LIMIT 1) \
         RETURNING id, kind, payload, delivery_id, attempts, max_attempts, interruptions, takeover"
    )
}

/// Renew the lease; false when the lease was lost (another worker took the job).
pub async fn heartbeat(db: &Db, job: &ClaimedJob, lease_ms: i64) -> Result<bool> {
    let now = now_ms();
    let n = sqlx::query(
        "UPDATE jobs SET lease_until = $1, updated_at = $2 \
         WHERE id = $3 AND lease_owner = $4 AND status = 'running'",
    )
    .bind(now + lease_ms)
    .bind(now)
    .bind(job.id)
    .bind(&job.lease_owner)
    .execute(&db.pool)
    .await?
    .rows_affected();
    Ok(n == 1)
}

pub async fn complete(db: &Db, job: &ClaimedJob) -> Result<bool> {
    finish(db, job, "succeeded", None).await
}

/// End a job whose previous worker died mid-apply as `interrupted` (never retried); false when
/// this worker no longer holds it.
pub async fn end_interrupted(db: &Db, job: &ClaimedJob, error: &str) -> Result<bool> {
    finish(db, job, "interrupted", Some(&truncate(error, 2000))).await
}

/// Record a failure: retried with backoff when transient and attempts remain. `"lease_lost"`
/// when this worker no longer holds the job (another one took it over): nothing is recorded.
pub async fn fail(db: &Db, job: &ClaimedJob, transient: bool, error: &str) -> Result<&'static str> {
    fail_not_before(db, job, transient, error, None).await
}

/// [`fail`], and a transient failure is retried no sooner than `wait` from now (when the
/// cause named a time, e.g. a GitHub rate limit), else after the usual backoff.
pub async fn fail_not_before(
    db: &Db,
    job: &ClaimedJob,
    transient: bool,
    error: &str,
    wait: Option<std::time::Duration>,
) -> Result<&'static str> {
    let now = now_ms();
    let wait_ms = wait.map_or(0, |w| i64::try_from(w.as_millis()).unwrap_or(i64::MAX / 2));
    let error = truncate(error, 2000);
    if transient && job.attempts < job.max_attempts {
        let n = sqlx::query(
            "UPDATE jobs SET status = 'queued', run_at = $1, lease_until = NULL, lease_owner = NULL, \
             last_error = $2, updated_at = $3 WHERE id = $4 AND lease_owner = $5 \
             AND status = 'running'",
        )
        .bind(now + retry_backoff_ms(job.attempts).max(wait_ms))
        .bind(&error)
        .bind(now)
        .bind(job.id)
        .bind(&job.lease_owner)
        .execute(&db.pool)
        .await?
        .rows_affected();
        Ok(if n == 1 { "retrying" } else { "lease_lost" })
    } else if finish(db, job, "failed", Some(&error)).await? {
        Ok("failed")
    } else {
        Ok("lease_lost")
    }
}

async fn finish(db: &Db, job: &ClaimedJob, status: &str, error: Option<&str>) -> Result<bool> {
    let n = sqlx::query(
        "UPDATE jobs SET status = $1, lease_until = NULL, last_error = COALESCE($2, last_error), \
         updated_at = $3 WHERE id = $4 AND lease_owner = $5 AND status = 'running'",
    )
    .bind(status)
    .bind(error)
    .bind(now_ms())
    .bind(job.id)
    .bind(&job.lease_owner)
    .execute(&db.pool)
    .await?
    .rows_affected();
    Ok(n == 1)
}

/// The distinct lease owners of running jobs.
pub async fn running_owners(db: &Db) -> Result<Vec<String>> {
    let owners: Vec<String> = sqlx::query_scalar(
        "SELECT DISTINCT lease_owner FROM jobs WHERE status = 'running' AND lease_owner IS NOT NULL",
    )
    .fetch_all(&db.pool)
    .await?;
    Ok(owners)
}

/// End the leases of `owner`'s running jobs now: the next claim takes them over, as it would
/// once they expired (the handler is told the previous worker died). Returns how many.
pub async fn expire_leases_of(db: &Db, owner: &str) -> Result<u64> {
    let n = sqlx::query(
        "UPDATE jobs SET lease_until = 0, updated_at = $1 \
         WHERE status = 'running' AND lease_owner = $2",
    )
    .bind(now_ms())
    .bind(owner)
    .execute(&db.pool)
    .await?
    .rows_affected();
    Ok(n)
}

fn truncate(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

#[cfg(test)]
mod tests {
    use rusqlite::{params, StatementStatus};

    use super::*;

    /// SQLite VM steps of one claim with `waiting` due jobs queued.
    fn claim_steps(waiting: i64) -> i32 {
        let conn = crate::db::migrated_sqlite();
        for at in 0..waiting {
            conn.execute(
                "INSERT INTO jobs (kind, payload, status, max_attempts, run_at, created_at, \
                 updated_at) VALUES ('comment', '{}', 'queued', 3, ?1, ?1, ?1)",
                params![at],
            )
            .unwrap();
        }
        let mut claim = conn.prepare(&claim_sql(Backend::Sqlite)).unwrap();
        let claimed: i64 = claim
            .query_row(params![i64::MAX, "w", waiting], |row| row.get(0))
            .unwrap();
        assert_eq!(claimed, 1, "the oldest job is claimed first");
        claim.get_status(StatementStatus::VmStep)
    }

    #[test]
    fn backoff_doubles_and_caps() {
        assert_eq!(retry_backoff_ms(1), 2000);
        assert_eq!(retry_backoff_ms(2), 4000);
        assert_eq!(retry_backoff_ms(3), 8000);
        assert_eq!(retry_backoff_ms(30), 300_000);
    }

    /// A claim reads the oldest due job from `jobs_claimable` in index order: its cost does not
    /// grow with the backlog (it did, collecting and sorting every due job, before).
    #[test]
    fn claim_cost_does_not_grow_with_the_backlog() {
        let (few, many) = (claim_steps(10), claim_steps(5_000));
        assert!(
            many <= few + few / 2,
            "10 waiting: {few} steps, 5,000 waiting: {many}"
        );
    }
}
