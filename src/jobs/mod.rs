//! The durable job queue: jobs are rows, claimed with a lease that the worker renews by
//! heartbeat; a job whose worker dies is re-claimed once its lease expires and its handler is
//! told so. Transient failures are retried with exponential backoff.

pub mod owner;
mod payload;
pub mod queue;
pub mod runner;

pub use crate::enrich::PendingFailure;
pub use crate::model::job::{DriftJob, JobKind, PublishJob, RunCommand, RunJob};
pub use payload::{EnrichJob, EnrichedComment};

/// A job to enqueue.
#[derive(Debug, Clone)]
pub struct NewJob {
    pub kind: JobKind,
    pub payload: String,
    pub repo: Option<String>,
    pub pr: Option<i64>,
    pub max_attempts: i64,
}

/// A job a worker holds the lease of.
#[derive(Debug, Clone)]
pub struct ClaimedJob {
    pub id: i64,
    pub kind: String,
    pub payload: String,
    pub delivery_id: Option<String>,
    pub attempts: i64,
    pub max_attempts: i64,
    /// How often a worker died holding this job (lease expired while running).
    pub interruptions: i64,
    /// This claim took over a job whose previous worker died.
    pub reclaimed: bool,
    pub lease_owner: String,
}

/// How a handler ended.
#[derive(Debug)]
pub enum JobError {
    /// Worth retrying (network, GitHub 5xx, database busy).
    Transient(anyhow::Error),
    /// Retrying would not help.
    Permanent(anyhow::Error),
    /// A previous worker died mid-apply: the PR was told, nothing runs again, and the job is
    /// recorded `interrupted` (not retried, not reported as failed).
    Interrupted(anyhow::Error),
}

impl std::fmt::Display for JobError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JobError::Transient(e) => write!(f, "transient: {e:#}"),
            JobError::Permanent(e) => write!(f, "permanent: {e:#}"),
            JobError::Interrupted(e) => write!(f, "interrupted: {e:#}"),
        }
    }
}

/// Attempts of a `publish` job: with [`retry_backoff_ms`] about an hour of retries in all.
pub const PUBLISH_MAX_ATTEMPTS: i64 = 20;

/// Backoff before attempt `attempts + 1`: 2s, 4s, 8s … capped at 5 minutes.
pub fn retry_backoff_ms(attempts: i64) -> i64 {
    let exp = attempts.clamp(1, 20) as u32;
    (1000i64 << exp).min(300_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_caps() {
        assert_eq!(retry_backoff_ms(1), 2000);
        assert_eq!(retry_backoff_ms(2), 4000);
        assert_eq!(retry_backoff_ms(3), 8000);
        assert_eq!(retry_backoff_ms(30), 300_000);
    }

    #[test]
    fn publish_retries_for_about_an_hour() {
        let total_ms: i64 = (1..PUBLISH_MAX_ATTEMPTS).map(retry_backoff_ms).sum();
        let minutes = total_ms / 60_000;
        assert!((55..=75).contains(&minutes), "{minutes} minutes");
    }

    #[test]
    fn kinds_round_trip() {
        for k in JobKind::ALL {
            assert_eq!(JobKind::parse(k.as_str()), Some(k));
        }
        assert_eq!(JobKind::parse("nope"), None);
    }
}
