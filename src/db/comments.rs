//! Comments tfgate has handled: once per comment id, and a count of each user's commands for
//! the per-user rate limit.

use anyhow::{Context, Result};

use super::{now_ms, Db};

/// Record that job `job_id` handles the comment; false when another job handled it before
/// (a replayed body under another delivery id). A retry of the same job may go on.
pub async fn claim(db: &Db, repo: &str, comment_id: i64, actor: &str, job_id: i64) -> Result<bool> {
    sqlx::query(
        "INSERT INTO handled_comments (repo, comment_id, actor, job_id, commands, at) \
         VALUES ($1, $2, $3, $4, 0, $5) ON CONFLICT (repo, comment_id) DO NOTHING",
    )
    .bind(repo)
    .bind(comment_id)
    .bind(actor)
    .bind(job_id)
    .bind(now_ms())
    .execute(&db.pool)
    .await
    .context("recording a handled comment")?;
    let holder: i64 = sqlx::query_scalar(
        "SELECT job_id FROM handled_comments WHERE repo = $1 AND comment_id = $2",
    )
    .bind(repo)
    .bind(comment_id)
    .fetch_one(&db.pool)
    .await
    .context("reading a handled comment")?;
    Ok(holder == job_id)
}

/// How many commands the comment ran (counted against its author's hourly limit).
pub async fn set_commands(db: &Db, repo: &str, comment_id: i64, commands: i64) -> Result<()> {
    sqlx::query("UPDATE handled_comments SET commands = $1 WHERE repo = $2 AND comment_id = $3")
        .bind(commands)
        .bind(repo)
        .bind(comment_id)
        .execute(&db.pool)
        .await
        .context("counting a comment's commands")?;
    Ok(())
}

/// Commands `actor` ran on `repo` in the last hour.
pub async fn commands_last_hour(db: &Db, repo: &str, actor: &str) -> Result<i64> {
    let since = now_ms() - 3_600_000;
    let n: Option<i64> = sqlx::query_scalar(
        "SELECT CAST(SUM(commands) AS BIGINT) FROM handled_comments \
         WHERE repo = $1 AND actor = $2 AND at > $3",
    )
    .bind(repo)
    .bind(actor)
    .bind(since)
    .fetch_one(&db.pool)
    .await
    .context("counting recent commands")?;
    Ok(n.unwrap_or(0))
}

/// Queue the comment's run jobs and mark them queued, in one transaction. Returns false, and
/// queues nothing, when they were queued before: by an earlier attempt of the same comment job
/// (its worker died before completing it, or it failed afterwards and is retried).
pub async fn queue_runs_once(
    db: &Db,
    repo: &str,
    comment_id: i64,
    jobs: &[super::jobs::NewJob],
) -> Result<bool> {
    let mut tx = db.pool.begin().await.context("starting a transaction")?;
    let marked = sqlx::query(
        "UPDATE handled_comments SET runs_queued = 1 \
         WHERE repo = $1 AND comment_id = $2 AND runs_queued = 0",
    )
    .bind(repo)
    .bind(comment_id)
    .execute(&mut *tx)
    .await
    .context("marking a comment's runs queued")?
    .rows_affected();
    if marked == 0 {
        return Ok(false);
    }
    let now = now_ms();
    for job in jobs {
        super::jobs::insert_job(&mut tx, job, None, now).await?;
    }
    tx.commit().await.context("queueing a comment's runs")?;
    Ok(true)
}
