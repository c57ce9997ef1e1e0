//! What is read of the `jobs` table to show it: the queue's depth, the newest jobs, one job's
//! repository and kind.

use anyhow::{Context, Result};
use serde::Serialize;

use crate::db::Db;

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

/// The repository of job `id` and its kind, if it exists.
pub async fn job_repo_and_kind(db: &Db, id: i64) -> Result<Option<(Option<String>, String)>> {
    sqlx::query_as("SELECT repo, kind FROM jobs WHERE id = $1")
        .bind(id)
        .fetch_optional(&db.pool)
        .await
        .context("reading a job")
}
