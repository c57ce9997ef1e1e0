//! Retention: what tfgate forgets, and when. Finished jobs, received deliveries, the sealed plan
//! files and raw logs of finished runs, records of handled comments and published outbox rows
//! (`publications`) are kept for `TFGATE_RETENTION_DAYS` (default 30), then deleted in small
//! batches (a batch is one short transaction, so webhook intake on SQLite waits for at most one
//! batch). Run rows themselves, locks, audit events, shared-input fingerprints and unpublished
//! results are kept: they are small, and audit is what an admin reads back months later.
//!
//! Why at least [`crate::config::MIN_RETENTION_DAYS`]: a delivery id is how a redelivery is recognised. GitHub
//! lets a user redeliver a delivery for 3 days (7 on GitHub Enterprise Server); an id forgotten
//! sooner would make a redelivered `/apply` run again.

use anyhow::{Context, Result};

use super::{Backend, Db};

/// Rows per transaction.
const BATCH: i64 = 500;
const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// Rows last changed before this time (epoch ms) are pruned.
pub fn cutoff_ms(now_ms: i64, days: u32) -> i64 {
    now_ms - i64::from(days) * DAY_MS
}

/// What one pruning pass removed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Pruned {
    pub jobs: u64,
    pub deliveries: u64,
    /// Finished runs whose sealed plan file and raw log were dropped (the run row stays).
    pub run_blobs: u64,
    /// Records of handled comments (replay protection and the hourly command count).
    pub handled_comments: u64,
    /// Outbox rows of results published before the cutoff (unpublished rows are kept).
    pub publications: u64,
}

impl Pruned {
    pub fn is_empty(&self) -> bool {
        *self == Pruned::default()
    }
}

/// Delete what is older than `days` days from now ([`prune`]); what the server's hourly pass
/// and `tfgate prune` run.
pub async fn prune_older_than(db: &Db, days: u32) -> Result<Pruned> {
    prune(db, cutoff_ms(super::now_ms(), days)).await
}

/// Delete what is older than `before_ms`: finished jobs (not queued or running) last updated
/// before it, deliveries received before it, and the plan files and raw logs of runs finished
/// before it, records of comments handled before it and publications published before it. A job does not need its delivery row
/// (no foreign key): the row only recognises a redelivery.
pub async fn prune(db: &Db, before_ms: i64) -> Result<Pruned> {
    Ok(Pruned {
        jobs: in_batches(|| prune_jobs(db, before_ms)).await?,
        deliveries: match db.backend {
            Backend::Postgres => {
                in_batches(|| {
                    batch_statement(
                        db,
                        "DELETE FROM deliveries WHERE id IN (SELECT id FROM deliveries \
                           WHERE received_at < $1 ORDER BY received_at LIMIT $2)",
                        before_ms,
                        "deleting old deliveries",
                    )
                })
                .await?
            }
            Backend::Sqlite => prune_sqlite_deliveries(db, before_ms).await?,
        },
        run_blobs: in_batches(|| {
            batch_statement(
                db,
                "UPDATE runs SET plan_blob = NULL, raw_log = NULL WHERE id IN (SELECT id FROM \
                   runs WHERE finished_at < $1 AND (plan_blob IS NOT NULL OR raw_log IS NOT NULL) \
                   ORDER BY id LIMIT $2)",
                before_ms,
                "dropping old plan files and logs",
            )
        })
        .await?,
        handled_comments: in_batches(|| {
            batch_statement(
                db,
                "DELETE FROM handled_comments WHERE (repo, comment_id) IN (SELECT repo, \
                   comment_id FROM handled_comments WHERE at < $1 LIMIT $2)",
                before_ms,
                "deleting old handled-comment records",
            )
        })
        .await?,
        publications: in_batches(|| {
            batch_statement(
                db,
                "DELETE FROM publications WHERE id IN (SELECT id FROM publications \
                   WHERE published_at < $1 ORDER BY id LIMIT $2)",
                before_ms,
                "deleting old publications",
            )
        })
        .await?,
    })
}

/// Runs `batch` until it changes fewer than [`BATCH`] rows; the rows changed in all.
async fn in_batches<F, Fut>(mut batch: F) -> Result<u64>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<u64>>,
{
    let mut total = 0;
    loop {
        let n = batch().await?;
        total += n;
        if n < BATCH as u64 {
            return Ok(total);
        }
    }
}

/// One batch of a statement binding `before_ms` and the batch size; the rows it changed.
async fn batch_statement(db: &Db, sql: &str, before_ms: i64, what: &'static str) -> Result<u64> {
    Ok(sqlx::query(sql)
        .bind(before_ms)
        .bind(BATCH)
        .execute(&db.pool)
        .await
        .context(what)?
        .rows_affected())
}

/// The last rowid of the window of at most [`BATCH`] deliveries after rowid `$1`.
pub(crate) const SQLITE_DELIVERY_WINDOW: &str = "SELECT max(rowid) FROM (SELECT rowid FROM \
     deliveries WHERE rowid > $1 ORDER BY rowid LIMIT $2)";
/// Deletes the deliveries of the window ($1, $2] received before $3.
pub(crate) const SQLITE_DELETE_OLD_IN_WINDOW: &str =
    "DELETE FROM deliveries WHERE rowid > $1 AND rowid <= $2 AND received_at < $3";

/// Old deliveries on SQLite, which has no index on `received_at` (migration 0005: intake
/// writes one index fewer). Rows are walked in rowid order, the order they were received in, a
/// window of [`BATCH`] at a time: each window's old rows are deleted (one short transaction),
/// and the walk stops at the first window without one, so a pass reads about one window more
/// than it deletes. A row received after a later one (the clock set back) can hold the walk up
/// until it is old itself: deliveries are then kept longer, never forgotten sooner.
async fn prune_sqlite_deliveries(db: &Db, before_ms: i64) -> Result<u64> {
    let (mut after, mut total) = (0_i64, 0);
    loop {
        let upto: Option<i64> = sqlx::query_scalar(SQLITE_DELIVERY_WINDOW)
            .bind(after)
            .bind(BATCH)
            .fetch_one(&db.pool)
            .await
            .context("reading a window of deliveries")?;
        let Some(upto) = upto else {
            return Ok(total);
        };
        let n = sqlx::query(SQLITE_DELETE_OLD_IN_WINDOW)
            .bind(after)
            .bind(upto)
            .bind(before_ms)
            .execute(&db.pool)
            .await
            .context("deleting old deliveries")?
            .rows_affected();
        if n == 0 {
            return Ok(total);
        }
        total += n;
        after = upto;
    }
}

/// One batch of finished jobs. Runs keep their rows; their link to a deleted job is cleared in
/// the same transaction.
async fn prune_jobs(db: &Db, before_ms: i64) -> Result<u64> {
    let ids: Vec<i64> = sqlx::query_scalar(
        "SELECT id FROM jobs WHERE status NOT IN ('queued', 'running') AND updated_at < $1 \
         ORDER BY id LIMIT $2",
    )
    .bind(before_ms)
    .bind(BATCH)
    .fetch_all(&db.pool)
    .await
    .context("finding old finished jobs")?;
    if ids.is_empty() {
        return Ok(0);
    }
    // Integers read from the database, so writing them into the statement is safe; a one-off
    // statement, so it is not kept prepared.
    let list = id_list(&ids);
    let mut tx = db.pool.begin().await.context("starting a pruning batch")?;
    sqlx::query(&format!(
        "UPDATE runs SET job_id = NULL WHERE job_id IN ({list})"
    ))
    .persistent(false)
    .execute(&mut *tx)
    .await
    .context("unlinking runs from old jobs")?;
    let n = sqlx::query(&format!(
        "DELETE FROM jobs WHERE id IN ({list}) AND status NOT IN ('queued', 'running')"
    ))
    .persistent(false)
    .execute(&mut *tx)
    .await
    .context("deleting old jobs")?
    .rows_affected();
    tx.commit().await.context("committing a pruning batch")?;
    Ok(n)
}

fn id_list(ids: &[i64]) -> String {
    ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cutoff_is_whole_days_before_now() {
        assert_eq!(cutoff_ms(10 * DAY_MS + 5, 8), 2 * DAY_MS + 5);
        assert_eq!(cutoff_ms(0, 30), -30 * DAY_MS);
    }

    #[test]
    fn id_lists_are_plain_integers() {
        assert_eq!(id_list(&[3, 14, 159]), "3,14,159");
        assert_eq!(id_list(&[-1]), "-1");
    }

    #[test]
    fn empty_pass() {
        assert!(Pruned::default().is_empty());
        assert!(!Pruned {
            jobs: 1,
            ..Pruned::default()
        }
        .is_empty());
    }
}
