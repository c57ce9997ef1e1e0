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
