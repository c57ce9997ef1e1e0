//! The SQLite side of webhook intake: one connection of its own on one thread, which commits the
//! deliveries handed to it together (group commit) with prepared statements it keeps.
//!
//! Why not through sqlx: sqlx runs each SQLite statement on its worker thread and hands every
//! `BEGIN`, statement and `COMMIT` across threads and back, and a batch insert written as one
//! statement is a new SQL text (to prepare again) for every batch size. Here a batch is one hop
//! in (the channel) and one wake-up per request out (its reply), and the statements are prepared
//! once. The same rows as [`super::deliveries::record_deliveries`] are written, with the same
//! outcomes (tested against each other).

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use rusqlite::{params, Connection};

use super::deliveries::{DeliveryOutcome, NewDelivery};

const INSERT_DELIVERY: &str = "INSERT INTO deliveries (id, event, action, repo, installation_id, \
     received_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (id) DO NOTHING";

const INSERT_JOB: &str = "INSERT INTO jobs (kind, delivery_id, repo, pr, payload, status, \
     attempts, max_attempts, run_at, created_at, updated_at) \
     VALUES (?1, ?2, ?3, ?4, ?5, 'queued', 0, ?6, ?7, ?7, ?7)";

/// The intake's own connection to the SQLite file (already migrated, in WAL mode).
pub struct SqliteIntake {
    conn: Connection,
}

impl SqliteIntake {
    pub fn open(path: &Path) -> Result<SqliteIntake> {
        let conn = Connection::open(path)
            .with_context(|| format!("opening {} for webhook intake", path.display()))?;
        conn.execute_batch(
            "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0;",
        )
        .context("configuring the intake connection")?;
        // Another connection (workers, the checkpointer) may hold the write lock for a moment:
        // wait in short naps rather than SQLite's default 1, 2, 5, 10 … ms.
        conn.busy_handler(Some(wait_for_writer))
            .context("setting the intake busy handler")?;
        Ok(SqliteIntake { conn })
    }

    /// Store `batch` in one transaction; one outcome per delivery, in order. A delivery id seen
    /// before (also earlier in the same batch) is a duplicate: nothing stored or enqueued.
    pub fn record(&mut self, batch: &[&NewDelivery], now_ms: i64) -> Result<Vec<DeliveryOutcome>> {
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .context("starting intake transaction")?;
        let mut outcomes = Vec::with_capacity(batch.len());
        {
            let mut insert_delivery = tx.prepare_cached(INSERT_DELIVERY)?;
            let mut insert_job = tx.prepare_cached(INSERT_JOB)?;
            for d in batch {
                let stored = insert_delivery
                    .execute(params![
                        d.id,
                        d.event,
                        d.action,
                        d.repo,
                        d.installation_id,
                        now_ms
                    ])
                    .context("storing deliveries")?;
                if stored == 0 {
                    outcomes.push(DeliveryOutcome::Duplicate);
                    continue;
                }
                for j in &d.jobs {
                    insert_job
                        .execute(params![
                            j.kind.as_str(),
                            d.id,
                            j.repo,
                            j.pr,
                            j.payload,
                            j.max_attempts,
                            now_ms
                        ])
                        .context("enqueueing jobs")?;
                }
                outcomes.push(DeliveryOutcome::Enqueued(d.jobs.len()));
            }
        }
        tx.commit().context("committing intake transaction")?;
        Ok(outcomes)
    }
}

/// SQLite busy handler: `true` = try again. Naps of 50 µs growing to 1 ms, for about 10 s.
fn wait_for_writer(attempt: i32) -> bool {
    nap_unless_past(attempt, 10_000 + 20)
}

/// Sleep [`nap`]`(attempt)` and say `true`, unless `attempt` has reached `limit`.
pub(super) fn nap_unless_past(attempt: i32, limit: i32) -> bool {
    if attempt >= limit {
        return false;
    }
    std::thread::sleep(nap(attempt));
    true
}

/// 50 µs for the first attempt, 50 µs more for each further one, at most 1 ms.
fn nap(attempt: i32) -> Duration {
    Duration::from_micros(50 * u64::from(attempt.clamp(1, 20) as u32))
}
