//! Jobs: their kinds and payloads, how a handler ends, and the runner that claims them from
//! the durable queue (the `jobs` table, [`crate::db::jobs`]), heartbeats while the handler
//! runs and records how it ended. A job whose worker dies is re-claimed once its lease expires
//! and its handler is told so. Transient failures are retried with exponential backoff.

pub mod owner;
mod payload;
pub mod runner;

pub use crate::db::jobs::{ClaimedJob, NewJob};
pub use crate::enrich::PendingFailure;
pub use crate::model::job::{DriftJob, JobKind, PublishJob, RunCommand, RunJob};
pub use payload::{EnrichJob, EnrichedComment};

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

/// Attempts of a `publish` job: with [`crate::db::jobs::retry_backoff_ms`] about an hour of retries in all.
pub const PUBLISH_MAX_ATTEMPTS: i64 = 20;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::jobs::retry_backoff_ms;

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
