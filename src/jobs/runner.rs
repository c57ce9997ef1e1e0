//! The worker loop: claim, heartbeat while the handler runs, then complete or fail.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::{watch, Notify};
use tracing::Instrument;

use super::{ClaimedJob, JobError};
use crate::db::jobs as queue;
use crate::db::Db;
use crate::metrics::Metrics;

/// What runs a claimed job. Implemented by the app's dispatcher and by tests.
pub trait JobHandler: Send + Sync + 'static {
    fn handle(&self, job: &ClaimedJob) -> impl Future<Output = Result<(), JobError>> + Send;

    /// Called once when a job failed for good (a permanent error, or its last attempt), so
    /// that whoever asked for it is told.
    fn on_failed(&self, _job: &ClaimedJob, _error: &JobError) -> impl Future<Output = ()> + Send {
        async {}
    }
}

#[derive(Debug, Clone)]
pub struct WorkerOptions {
    pub name: String,
    pub lease: Duration,
    pub poll_interval: Duration,
}

/// Run until `shutdown` becomes true. `wake` is notified when new jobs are enqueued locally.
pub async fn run_worker<H: JobHandler>(
    db: Db,
    handler: Arc<H>,
    opts: WorkerOptions,
    metrics: Arc<Metrics>,
    wake: Arc<Notify>,
    mut shutdown: watch::Receiver<bool>,
) {
    let lease_ms = opts.lease.as_millis() as i64;
    tracing::info!(worker = %opts.name, "worker started");
    loop {
        if *shutdown.borrow() {
            break;
        }
        let claim_started = Instant::now();
        let job = match queue::claim(&db, &opts.name, lease_ms).await {
            Ok(job) => job,
            Err(e) => {
                tracing::warn!(worker = %opts.name, error = %format!("{e:#}"), "claim failed");
                None
            }
        };
        let Some(job) = job else {
            tokio::select! {
                _ = wake.notified() => {}
                _ = tokio::time::sleep(opts.poll_interval) => {}
                _ = shutdown.changed() => {}
            }
            continue;
        };
        let claim_us = claim_started.elapsed().as_micros() as u64;
        run_one(&db, handler.as_ref(), &job, &opts, &metrics, claim_us).await;
    }
    tracing::info!(worker = %opts.name, "worker stopped");
}

async fn run_one<H: JobHandler>(
    db: &Db,
    handler: &H,
    job: &ClaimedJob,
    opts: &WorkerOptions,
    metrics: &Metrics,
    claim_us: u64,
) {
    let span = tracing::info_span!("job", id = job.id, kind = %job.kind, attempt = job.attempts);
    // The span is attached to the future (never entered across an await: a guard held over an
    // await leaks into other tasks on the same thread and corrupts the subscriber's state).
    run_one_in_span(db, handler, job, opts, metrics, claim_us)
        .instrument(span)
        .await
}

async fn run_one_in_span<H: JobHandler>(
    db: &Db,
    handler: &H,
    job: &ClaimedJob,
    opts: &WorkerOptions,
    metrics: &Metrics,
    claim_us: u64,
) {
    let started = Instant::now();
    let lease_ms = opts.lease.as_millis() as i64;
    if job.reclaimed {
        tracing::warn!("job re-claimed after its previous worker stopped heartbeating");
    }
    let beat_db = db.clone();
    let beat_job = job.clone();
    let heartbeat = tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_millis((lease_ms / 3).max(200) as u64));
        tick.tick().await;
        loop {
            tick.tick().await;
            match queue::heartbeat(&beat_db, &beat_job, lease_ms).await {
                Ok(true) => {}
                Ok(false) => {
                    tracing::warn!(job = beat_job.id, "lease lost");
                    break;
                }
                Err(e) => {
                    tracing::warn!(job = beat_job.id, error = %format!("{e:#}"), "heartbeat failed")
                }
            }
        }
    });
    let result = handler.handle(job).await;
    heartbeat.abort();
    let status = record_result(db, handler, job, result).await;
    if status == "lease_lost" {
        // Another worker re-claimed the job while this one ran it (heartbeats failed for a
        // whole lease); its outcome stands and this one's is not recorded.
        tracing::warn!("lease lost while running: another worker took the job over");
    }
    metrics.job_finished(&job.kind, status);
    // The claim (the shared queue's serialized step) and the job's own time, per job: what
    // bench/workers reads to find the serialized parts of a run (docs/operations.md).
    tracing::info!(
        claim_us,
        run_us = started.elapsed().as_micros() as u64,
        status,
        "job finished"
    );
}

/// Complete the job, or record how it ended; the job's status, as the metric labels it.
async fn record_result<H: JobHandler>(
    db: &Db,
    handler: &H,
    job: &ClaimedJob,
    result: Result<(), JobError>,
) -> &'static str {
    match result {
        Ok(()) => match queue::complete(db, job).await {
            Ok(true) => "succeeded",
            Ok(false) => "lease_lost",
            Err(e) => {
                tracing::error!(error = %format!("{e:#}"), "could not mark job done");
                "unknown"
            }
        },
        Err(JobError::Interrupted(e)) => {
            tracing::warn!(error = %format!("{e:#}"), "job ended: its previous worker died mid-apply");
            match queue::end_interrupted(db, job, &format!("{e:#}")).await {
                Ok(true) => "interrupted",
                Ok(false) => "lease_lost",
                Err(e) => {
                    tracing::error!(error = %format!("{e:#}"), "could not record the interruption");
                    "unknown"
                }
            }
        }
        Err(err) => {
            let transient = matches!(err, JobError::Transient(_));
            // A rate limit names when GitHub takes calls again: the retry waits for it.
            let wait = match &err {
                JobError::Transient(e) => crate::github::retry_delay(e, SystemTime::now()),
                JobError::Permanent(_) | JobError::Interrupted(_) => None,
            };
            tracing::warn!(error = %err, "job failed");
            let status =
                match queue::fail_not_before(db, job, transient, &err.to_string(), wait).await {
                    Ok(s) => s,
                    Err(e) => {
                        tracing::error!(error = %format!("{e:#}"), "could not record job failure");
                        "unknown"
                    }
                };
            if status == "failed" {
                handler.on_failed(job, &err).await;
            }
            status
        }
    }
}
