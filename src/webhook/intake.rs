//! The intake writer: requests hand their verified delivery to one writer that commits pending
//! deliveries together (group commit), so each request waits for one shared transaction instead
//! of paying for its own. A request is answered only after its delivery and jobs are committed.
//!
//! On a SQLite file the writer is a thread with its own connection
//! ([`crate::db::sqlite_intake`]); on PostgreSQL (and in-memory SQLite) it is a task writing
//! through the pool ([`record_deliveries`]).

use std::sync::Arc;

use anyhow::{anyhow, Result};
use tokio::sync::{mpsc, oneshot, Notify};

use crate::db::deliveries::{record_deliveries, DeliveryOutcome, NewDelivery};
use crate::db::sqlite_intake::SqliteIntake;
use crate::db::{now_ms, Db};
use crate::metrics::Metrics;

const MAX_BATCH: usize = 256;

/// When the previous batch held more than one delivery (requests are arriving together) and
/// fewer than [`LINGER_BELOW`] are waiting, the SQLite writer waits [`LINGER`] before committing.
const LINGER_BELOW: usize = 16;
/// How long the SQLite writer lingers for more deliveries under load: fewer, larger commits write
/// less WAL per delivery (values compared in bench/README.md).
const LINGER: std::time::Duration = std::time::Duration::from_micros(750);

type Reply = oneshot::Sender<Result<DeliveryOutcome, String>>;
type Pending = (NewDelivery, Reply);

#[derive(Clone)]
pub struct IntakeWriter {
    tx: mpsc::Sender<Pending>,
}

impl IntakeWriter {
    /// False once the writer has stopped (then `/healthz` fails and deliveries get 503).
    pub fn is_running(&self) -> bool {
        !self.tx.is_closed()
    }

    /// Start the writer. `wake` is notified after each commit that enqueued jobs.
    pub fn start(db: Db, metrics: Arc<Metrics>, wake: Arc<Notify>) -> IntakeWriter {
        let (tx, rx) = mpsc::channel(4096);
        let own_connection = db.sqlite_file().map(|path| {
            SqliteIntake::open(path).map_err(|e| {
                tracing::warn!(error = %format!("{e:#}"), "intake writes through the pool instead");
            })
        });
        match own_connection {
            Some(Ok(intake)) => {
                std::thread::Builder::new()
                    .name("tfgate-intake".into())
                    .spawn(move || sqlite_write_loop(intake, &metrics, &wake, rx))
                    .expect("spawning the intake thread");
            }
            _ => {
                tokio::spawn(pool_write_loop(db, metrics, wake, rx));
            }
        }
        IntakeWriter { tx }
    }

    /// Store a delivery and its jobs; returns once committed.
    pub async fn submit(&self, delivery: NewDelivery) -> Result<DeliveryOutcome> {
        let (reply, rx) = oneshot::channel();
        self.tx
            .send((delivery, reply))
            .await
            .map_err(|_| anyhow!("intake writer stopped"))?;
        rx.await
            .map_err(|_| anyhow!("intake writer dropped the request"))?
            .map_err(|e| anyhow!(e))
    }
}

fn sqlite_write_loop(
    mut intake: SqliteIntake,
    metrics: &Metrics,
    wake: &Notify,
    mut rx: mpsc::Receiver<Pending>,
) {
    let mut batch: Vec<Pending> = Vec::with_capacity(MAX_BATCH);
    let mut last_size = 0;
    while let Some(first) = rx.blocking_recv() {
        batch.push(first);
        fill(&mut batch, &mut rx);
        if last_size > 1 && batch.len() < LINGER_BELOW {
            // Under load: wait a moment for more. Fewer, larger commits write far fewer WAL
            // pages per delivery.
            std::thread::sleep(LINGER);
            fill(&mut batch, &mut rx);
        }
        last_size = batch.len();
        let deliveries: Vec<&NewDelivery> = batch.iter().map(|(d, _)| d).collect();
        let result = intake.record(&deliveries, now_ms());
        answer(&mut batch, result, metrics, wake);
    }
}

async fn pool_write_loop(
    db: Db,
    metrics: Arc<Metrics>,
    wake: Arc<Notify>,
    mut rx: mpsc::Receiver<Pending>,
) {
    let mut batch: Vec<Pending> = Vec::with_capacity(MAX_BATCH);
    while let Some(first) = rx.recv().await {
        batch.push(first);
        fill(&mut batch, &mut rx);
        let deliveries: Vec<&NewDelivery> = batch.iter().map(|(d, _)| d).collect();
        let result = record_deliveries(&db, &deliveries).await;
        answer(&mut batch, result, &metrics, &wake);
    }
}

/// Adds what is already waiting, up to [`MAX_BATCH`].
fn fill(batch: &mut Vec<Pending>, rx: &mut mpsc::Receiver<Pending>) {
    while batch.len() < MAX_BATCH {
        match rx.try_recv() {
            Ok(item) => batch.push(item),
            Err(_) => break,
        }
    }
}

/// Replies to every request of a committed (or failed) batch and empties it.
fn answer(
    batch: &mut Vec<Pending>,
    result: Result<Vec<DeliveryOutcome>>,
    metrics: &Metrics,
    wake: &Notify,
) {
    match result {
        Ok(outcomes) => {
            let mut enqueued = false;
            for ((delivery, reply), outcome) in batch.drain(..).zip(outcomes) {
                if let DeliveryOutcome::Enqueued(n) = &outcome {
                    enqueued |= *n > 0;
                    for job in &delivery.jobs {
                        metrics.job_enqueued(job.kind.as_str());
                    }
                }
                let _ = reply.send(Ok(outcome));
            }
            if enqueued {
                wake.notify_waiters();
            }
        }
        Err(e) => {
            let msg = format!("{e:#}");
            tracing::error!(error = %msg, size = batch.len(), "intake transaction failed");
            for (_, reply) in batch.drain(..) {
                let _ = reply.send(Err(msg.clone()));
            }
        }
    }
}
