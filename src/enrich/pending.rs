//! A failure waiting for CloudTrail to name its denied call (part of an `enrich` job's payload,
//! and what a run's outbox row carries for it).

use serde::{Deserialize, Serialize};

use super::FailureToEnrich;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PendingFailure {
    pub root: String,
    pub failure: FailureToEnrich,
    /// The failure's address as the comment shows it (redacted with the run's placeholders).
    #[serde(default)]
    pub shown_address: String,
    /// The run's RoleSessionName (`tfgate-<run id>`), the CloudTrail `Username`.
    pub session_name: String,
    pub account_id: String,
    pub read_role: String,
}
