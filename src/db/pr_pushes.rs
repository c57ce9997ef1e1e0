//! Who moved each PR's head, as tfgate received it (`policy::PushRecord`, table `pr_pushes`).

use anyhow::{Context, Result};

use super::{now_ms, Db};
use crate::policy::PushRecord;

/// Store one record; a record received twice (a redelivery, a retried job) is stored once.
pub async fn record(db: &Db, repo: &str, pr: i64, action: &str, push: &PushRecord) -> Result<()> {
    sqlx::query(
        "INSERT INTO pr_pushes (repo, pr, head_sha, before_sha, pusher, action, recorded_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7) \
         ON CONFLICT (repo, pr, head_sha, before_sha, pusher, action) DO NOTHING",
    )
    .bind(repo)
    .bind(pr)
    .bind(&push.head_sha)
    .bind(push.before_sha.as_deref().unwrap_or(""))
    .bind(&push.pusher)
    .bind(action)
    .bind(now_ms())
    .execute(&db.pool)
    .await
    .context("recording who pushed to a pull request")?;
    Ok(())
}

/// Every record of the PR (`before_sha` is `None` for the records that start its history).
pub async fn of_pr(db: &Db, repo: &str, pr: i64) -> Result<Vec<PushRecord>> {
    let rows: Vec<(String, String, String, String)> = sqlx::query_as(
        "SELECT head_sha, before_sha, pusher, action FROM pr_pushes \
         WHERE repo = $1 AND pr = $2",
    )
    .bind(repo)
    .bind(pr)
    .fetch_all(&db.pool)
    .await
    .context("reading who pushed to a pull request")?;
    Ok(rows
        .into_iter()
        .map(|(head_sha, before_sha, pusher, action)| PushRecord {
            head_sha,
            before_sha: (action == "synchronize").then_some(before_sha),
            pusher,
        })
        .collect())
}
