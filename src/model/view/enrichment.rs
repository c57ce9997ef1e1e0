//! What the result comment shows about one failure's denied call (built by `enrich::view`).

use serde::{Deserialize, Serialize};

use crate::model::DenyKind;

/// PR-safe facts about one failure's denial, for the result comment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnrichmentView {
    /// The address as the comment's table shows it (already redacted).
    pub address: String,
    pub iam_action: Option<String>,
    pub deny_kind: Option<DenyKind>,
    /// `implicit deny (no identity-based policy allows it)` …
    pub deny_kind_label: Option<String>,
    /// `role AWSServiceRoleForAmazonEKSNodegroup`.
    pub resource: Option<String>,
    /// From [`minimal_statement`], when the action is known.
    pub statement: Option<String>,
    pub hint: Option<String>,
    /// `confirming with CloudTrail…`, `confirmed by CloudTrail`, or a give-up note.
    pub status: String,
}
