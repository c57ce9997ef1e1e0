//! `plan_batches`: a `/plan` split into run jobs any worker can take (one row per split command,
//! its id the id of the run job that split it), and the one PR comment all parts update. The
//! split job writes the row and its parts in one transaction, while it holds its lease.

use anyhow::{Context, Result};

use super::jobs::{insert_job, ClaimedJob, NewJob};
use super::{now_ms, Db};
use crate::model::view::PlanningRoot;

/// A batch as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanBatch {
    pub id: i64,
    pub repo: String,
    pub pr: i64,
    pub head_sha: String,
    /// The roots, in the order the command listed them.
    pub roots: Vec<PlanningRoot>,
    pub comment_id: Option<i64>,
}

/// A batch to create: the split job's id is its id.
pub struct NewBatch<'a> {
    pub repo: &'a str,
    pub pr: i64,
    pub head_sha: &'a str,
    pub roots: &'a [PlanningRoot],
}

/// Record the batch and queue its parts in one transaction, while `job` holds its lease.
/// False when the job lost its lease or split before (a retry): nothing is written then.
pub async fn split(
    db: &Db,
    job: &ClaimedJob,
    batch: &NewBatch<'_>,
    parts: &[NewJob],
) -> Result<bool> {
    let mut tx = db
        .pool
        .begin()
        .await
        .context("starting the split transaction")?;
    if !super::jobs::lease_held(&mut tx, job).await? {
        return Ok(false);
    }
    let now = now_ms();
    let roots = serde_json::to_string(batch.roots).expect("roots serialise");
    let inserted = sqlx::query(
        "INSERT INTO plan_batches (id, repo, pr, head_sha, roots, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING",
    )
    .bind(job.id)
    .bind(batch.repo)
    .bind(batch.pr)
    .bind(batch.head_sha)
    .bind(&roots)
    .bind(now)
    .execute(&mut *tx)
    .await
    .context("recording a plan batch")?
    .rows_affected();
    if inserted == 0 {
        return Ok(false);
    }
    for part in parts {
        insert_job(&mut tx, part, None, now).await?;
    }
    tx.commit().await.context("committing a plan batch")?;
    Ok(true)
}

pub async fn get(db: &Db, id: i64) -> Result<Option<PlanBatch>> {
    type Row = (i64, String, i64, String, String, Option<i64>);
    let row: Option<Row> = sqlx::query_as(
        "SELECT id, repo, pr, head_sha, roots, comment_id FROM plan_batches WHERE id = $1",
    )
    .bind(id)
    .fetch_optional(&db.pool)
    .await
    .context("reading a plan batch")?;
    row.map(|(id, repo, pr, head_sha, roots, comment_id)| {
        Ok(PlanBatch {
            id,
            repo,
            pr,
            head_sha,
            roots: serde_json::from_str(&roots).context("a plan batch's roots")?,
            comment_id,
        })
    })
    .transpose()
}

/// Take the right to create the batch's comment for `lease_ms`: true for one caller at a time,
/// and never once the comment is recorded.
pub async fn claim_comment_creation(db: &Db, id: i64, lease_ms: i64) -> Result<bool> {
    let now = now_ms();
    let n = sqlx::query(
        "UPDATE plan_batches SET comment_claimed_until = $1 WHERE id = $2 AND comment_id IS NULL \
         AND (comment_claimed_until IS NULL OR comment_claimed_until < $3)",
    )
    .bind(now + lease_ms)
    .bind(id)
    .bind(now)
    .execute(&db.pool)
    .await
    .context("claiming a plan batch's comment")?
    .rows_affected();
    Ok(n == 1)
}

/// Record the batch's comment (the first time only).
pub async fn record_comment(db: &Db, id: i64, comment_id: i64) -> Result<()> {
    sqlx::query("UPDATE plan_batches SET comment_id = $1 WHERE id = $2 AND comment_id IS NULL")
        .bind(comment_id)
        .bind(id)
        .execute(&db.pool)
        .await
        .context("recording a plan batch's comment")?;
    Ok(())
}

/// Queue the batch's follow-up job (`delay_ms` from now) once, when its last part is published.
/// False when another publish queued it already.
pub async fn queue_follow_up_once(db: &Db, id: i64, job: &NewJob, delay_ms: i64) -> Result<bool> {
    let mut tx = db.pool.begin().await.context("starting a transaction")?;
    let first = sqlx::query(
        "UPDATE plan_batches SET follow_ups_queued = 1 WHERE id = $1 AND follow_ups_queued = 0",
    )
    .bind(id)
    .execute(&mut *tx)
    .await
    .context("marking a batch's follow-up queued")?
    .rows_affected()
        == 1;
    if first {
        let now = now_ms();
        let job_id = insert_job(&mut tx, job, None, now).await?;
        sqlx::query("UPDATE jobs SET run_at = $1 WHERE id = $2")
            .bind(now + delay_ms)
            .bind(job_id)
            .execute(&mut *tx)
            .await
            .context("scheduling the follow-up job")?;
    }
    tx.commit().await.context("committing the follow-up")?;
    Ok(first)
}
