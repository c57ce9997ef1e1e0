//! Queue SQL. Claiming is one statement: on PostgreSQL the candidate row is locked with
//! `FOR UPDATE SKIP LOCKED`; SQLite serialises writers, so the same statement is atomic there.

use anyhow::{Context, Result};
use serde::Serialize;

use super::{retry_backoff_ms, ClaimedJob, NewJob};
use crate::db::{now_ms, Backend, Db};

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
pub async fn claim(db: &Db, owner: &str, lease_ms: i64) -> Result<Option<ClaimedJob>> {
    let now = now_ms();
    let lock = match db.backend {
        Backend::Postgres => " FOR UPDATE SKIP LOCKED",
        Backend::Sqlite => "",
    };
    let sql = format!(
        "UPDATE jobs SET status = 'running', attempts = attempts + 1, \
           interruptions = interruptions + CASE WHEN status = 'running' THEN 1 ELSE 0 END, \
           takeover = CASE WHEN status = 'running' THEN 1 ELSE 0 END, \
           lease_until = $1, lease_owner = $2, updated_at = $3 \
         WHERE id = (SELECT id FROM jobs \
           WHERE (status = 'queued' AND run_at <= $3) OR (status = 'running' AND lease_until < $3) \
           ORDER BY run_at, id LIMIT 1{lock}) \
         RETURNING id, kind, payload, delivery_id, attempts, max_attempts, interruptions, takeover"
    );
    type Row = (i64, String, String, Option<String>, i64, i64, i64, i64);
    let row: Option<Row> = sqlx::query_as(&sql)
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

/// Record a failure: retried with backoff when transient and attempts remain.
pub async fn fail(db: &Db, job: &ClaimedJob, transient: bool, error: &str) -> Result<&'static str> {
    let now = now_ms();
    let error = truncate(error, 2000);
    if transient && job.attempts < job.max_attempts {
        sqlx::query(
            "UPDATE jobs SET status = 'queued', run_at = $1, lease_until = NULL, lease_owner = NULL, \
             last_error = $2, updated_at = $3 WHERE id = $4 AND lease_owner = $5",
        )
        .bind(now + retry_backoff_ms(job.attempts))
        .bind(&error)
        .bind(now)
        .bind(job.id)
        .bind(&job.lease_owner)
        .execute(&db.pool)
        .await?;
        Ok("retrying")
    } else {
        finish(db, job, "failed", Some(&error)).await?;
        Ok("failed")
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

pub async fn queue_depth(db: &Db) -> Result<i64> {
    Ok(
        sqlx::query_scalar("SELECT COUNT(*) FROM jobs WHERE status IN ('queued', 'running')")
            .fetch_one(&db.pool)
            .await?,
    )
}

/// A row of `tfgate jobs`.
#[derive(Debug, Clone, Serialize)]
pub struct JobRow {
    pub id: i64,
    pub kind: String,
    pub delivery_id: Option<String>,
    pub repo: Option<String>,
    pub pr: Option<i64>,
    pub status: String,
    pub attempts: i64,
    pub interruptions: i64,
    pub last_error: Option<String>,
}

pub async fn recent(db: &Db, limit: i64) -> Result<Vec<JobRow>> {
    type Row = (
        i64,
        String,
        Option<String>,
        Option<String>,
        Option<i64>,
        String,
        i64,
        i64,
        Option<String>,
    );
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT id, kind, delivery_id, repo, pr, status, attempts, interruptions, last_error \
         FROM jobs ORDER BY id DESC LIMIT $1",
    )
    .bind(limit)
    .fetch_all(&db.pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(
            |(id, kind, delivery_id, repo, pr, status, attempts, interruptions, last_error)| {
                JobRow {
                    id,
                    kind,
                    delivery_id,
                    repo,
                    pr,
                    status,
                    attempts,
                    interruptions,
                    last_error,
                }
            },
        )
        .collect())
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
