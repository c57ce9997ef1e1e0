//! The intake writer: requests hand their verified delivery to one task that commits pending
//! deliveries together (group commit), so each request waits for one shared transaction instead
//! of paying for its own. A request is answered only after its delivery and jobs are committed.

use std::sync::Arc;

use anyhow::{anyhow, Result};
use tokio::sync::{mpsc, oneshot, Notify};

use crate::db::deliveries::{record_deliveries, DeliveryOutcome, NewDelivery};
use crate::db::Db;
use crate::metrics::Metrics;

const MAX_BATCH: usize = 256;

type Reply = oneshot::Sender<Result<DeliveryOutcome, String>>;

#[derive(Clone)]
pub struct IntakeWriter {
    tx: mpsc::Sender<(NewDelivery, Reply)>,
}

impl IntakeWriter {
    /// Start the writer task. `wake` is notified after each commit that enqueued jobs.
    /// False once the writer task has stopped (then `/healthz` fails and deliveries get 503).
    pub fn is_running(&self) -> bool {
        !self.tx.is_closed()
    }

    pub fn start(db: Db, metrics: Arc<Metrics>, wake: Arc<Notify>) -> IntakeWriter {
        let (tx, rx) = mpsc::channel(4096);
        tokio::spawn(write_loop(db, metrics, wake, rx));
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

async fn write_loop(
    db: Db,
    metrics: Arc<Metrics>,
    wake: Arc<Notify>,
    mut rx: mpsc::Receiver<(NewDelivery, Reply)>,
) {
    let mut batch: Vec<(NewDelivery, Reply)> = Vec::with_capacity(MAX_BATCH);
    while let Some(first) = rx.recv().await {
        batch.push(first);
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(item) => batch.push(item),
                Err(_) => break,
            }
        }
        let deliveries: Vec<NewDelivery> = batch.iter().map(|(d, _)| d.clone()).collect();
        match record_deliveries(&db, &deliveries).await {
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
}
