//! The `enrich` job's payload (CloudTrail polls for a failed apply or plan). The other payloads
//! and the job kinds are plain types in `model::job`.

use serde::{Deserialize, Serialize};

use crate::enrich::PendingFailure;
use crate::model::RepoRef;

/// Payload of an `enrich` job: the result comment to update and the failures to confirm.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EnrichJob {
    pub repo: RepoRef,
    pub number: i64,
    pub comment_id: i64,
    /// The rendered comment's model; rows are filled in as CloudTrail answers.
    pub comment: EnrichedComment,
    pub pending: Vec<PendingFailure>,
    /// Polls made so far.
    pub attempt: usize,
}

/// The result comment an `enrich` job updates: an apply's, or a plan's (plan-time denials).
/// Untagged, so that jobs queued before plans were enriched (an apply comment) still read.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum EnrichedComment {
    Apply(crate::model::view::ApplyComment),
    Plan(crate::model::view::PlanComment),
}
