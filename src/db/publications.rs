//! The outbox: a finished run job's result, or a notice a job raised on the way, waiting to be
//! published. The job writes the row and queues its `publish` job in one transaction; the
//! publish job records the comment it posted (with the CloudTrail polls that follow it, in one
//! transaction) and when it is done. A job leaves one row per key: its result (`result`) and
//! each of its notices (`run_planner::outbox::notice_key`).

use anyhow::{Context, Result};

use super::jobs::{insert_job, ClaimedJob, NewJob};
use super::{now_ms, Db};

/// A result to publish, as the run job leaves it.
#[derive(Debug, Clone)]
pub struct NewPublication<'a> {
    /// `result` for a run's result ([`RESULT_KEY`]), the notice's key otherwise.
    pub key: &'a str,
    pub repo: &'a str,
    pub pr: i64,
    /// `plan`, `apply` or `notice`.
    pub command: &'a str,
    pub head_sha: &'a str,
    /// Sealed JSON of `run_planner::outbox::RunResult` (of a `render::Notice` for a notice).
    pub result: &'a str,
    /// The plan batch a part's root result belongs to (`db::plan_batches`).
    pub batch_id: Option<i64>,
}

#[derive(Debug, Clone)]
pub struct PublicationRow {
    pub id: i64,
    pub job_id: i64,
    /// `result`, a notice's key, or `root:<project>` for a part's root result.
    pub key: String,
    pub command: String,
    pub head_sha: String,
    pub result: String,
    pub comment_id: Option<i64>,
    pub published_at: Option<i64>,
    /// Set on a part's root result: the plan batch whose comment it updates.
    pub batch_id: Option<i64>,
}

/// The key of a run's result (one a job).
pub const RESULT_KEY: &str = "result";

/// Record `job`'s publication under `new.key` and queue `publish` (made from the new row's id)
/// in one transaction, while `job` still holds its lease. `None` when the job
/// already recorded this key (a retry) or lost its lease: nothing is written then.
pub async fn record(
    db: &Db,
    job: &ClaimedJob,
    new: &NewPublication<'_>,
    publish: impl FnOnce(i64) -> NewJob,
    then: Option<&NewJob>,
) -> Result<Option<i64>> {
    let mut tx = db
        .pool
        .begin()
        .await
        .context("starting the outbox transaction")?;
    if !super::jobs::lease_held(&mut tx, job).await? {
        return Ok(None);
    }
    let now = now_ms();
    let id: Option<i64> = sqlx::query_scalar(
        "INSERT INTO publications (job_id, key, repo, pr, command, head_sha, result, created_at, \
         batch_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (job_id, key) DO NOTHING \
         RETURNING id",
    )
    .bind(job.id)
    .bind(new.key)
    .bind(new.repo)
    .bind(new.pr)
    .bind(new.command)
    .bind(new.head_sha)
    .bind(new.result)
    .bind(now)
    .bind(new.batch_id)
    .fetch_optional(&mut *tx)
    .await
    .context("recording a run's result")?;
    let Some(id) = id else {
        return Ok(None);
    };
    insert_job(&mut tx, &publish(id), None, now).await?;
    if let Some(next) = then {
        insert_job(&mut tx, next, None, now).await?;
    }
    tx.commit().await.context("committing a run's result")?;
    Ok(Some(id))
}

/// The result a run job recorded, if any (not its notices).
pub async fn of_job(db: &Db, job_id: i64) -> Result<Option<i64>> {
    sqlx::query_scalar("SELECT id FROM publications WHERE job_id = $1 AND key = $2")
        .bind(job_id)
        .bind(RESULT_KEY)
        .fetch_optional(&db.pool)
        .await
        .context("looking up a run job's result")
}

/// The result a run job recorded, read whole (`None` for a job that recorded none).
pub async fn row_of_job(db: &Db, job_id: i64) -> Result<Option<PublicationRow>> {
    match of_job(db, job_id).await? {
        Some(id) => get(db, id).await,
        None => Ok(None),
    }
}

pub async fn get(db: &Db, id: i64) -> Result<Option<PublicationRow>> {
    let row: Option<Row> = sqlx::query_as(&format!("{SELECT_ROW} WHERE id = $1"))
        .bind(id)
        .fetch_optional(&db.pool)
        .await
        .context("reading a result to publish")?;
    Ok(row.map(publication_row))
}

type Row = (
    i64,
    i64,
    String,
    String,
    String,
    String,
    Option<i64>,
    Option<i64>,
    Option<i64>,
);

const SELECT_ROW: &str = "SELECT id, job_id, key, command, head_sha, result, comment_id, \
     published_at, batch_id FROM publications";

fn publication_row(row: Row) -> PublicationRow {
    let (id, job_id, key, command, head_sha, result, comment_id, published_at, batch_id) = row;
    PublicationRow {
        id,
        job_id,
        key,
        command,
        head_sha,
        result,
        comment_id,
        published_at,
        batch_id,
    }
}

/// Every root result recorded for a plan batch so far, oldest first.
pub async fn of_batch(db: &Db, batch_id: i64) -> Result<Vec<PublicationRow>> {
    let rows: Vec<Row> = sqlx::query_as(&format!("{SELECT_ROW} WHERE batch_id = $1 ORDER BY id"))
        .bind(batch_id)
        .fetch_all(&db.pool)
        .await
        .context("reading a plan batch's results")?;
    Ok(rows.into_iter().map(publication_row).collect())
}

/// Whether `job` recorded a publication under `key` (a retried part skips the roots it did).
pub async fn has_key(db: &Db, job_id: i64, key: &str) -> Result<bool> {
    let n: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM publications WHERE job_id = $1 AND key = $2")
            .bind(job_id)
            .bind(key)
            .fetch_one(&db.pool)
            .await
            .context("looking up a job's publication")?;
    Ok(n > 0)
}

/// Remember the posted comment and, in the same transaction, queue `follow_up` (`delay_ms`
/// from now) the first time only. False when a comment was already recorded.
pub async fn record_comment(
    db: &Db,
    id: i64,
    comment_id: i64,
    follow_up: Option<(NewJob, i64)>,
) -> Result<bool> {
    let mut tx = db.pool.begin().await.context("starting a transaction")?;
    let first =
        sqlx::query("UPDATE publications SET comment_id = $1 WHERE id = $2 AND comment_id IS NULL")
            .bind(comment_id)
            .bind(id)
            .execute(&mut *tx)
            .await
            .context("recording the posted comment")?
            .rows_affected()
            == 1;
    if let (true, Some((job, delay_ms))) = (first, follow_up) {
        let now = now_ms();
        let job_id = insert_job(&mut tx, &job, None, now).await?;
        sqlx::query("UPDATE jobs SET run_at = $1 WHERE id = $2")
            .bind(now + delay_ms)
            .bind(job_id)
            .execute(&mut *tx)
            .await
            .context("scheduling the follow-up job")?;
    }
    tx.commit().await.context("committing the posted comment")?;
    Ok(first)
}

pub async fn mark_published(db: &Db, id: i64) -> Result<()> {
    sqlx::query("UPDATE publications SET published_at = $1 WHERE id = $2")
        .bind(now_ms())
        .bind(id)
        .execute(&db.pool)
        .await
        .context("marking a result published")?;
    Ok(())
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
