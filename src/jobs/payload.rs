//! Payload of a `run` job: one command over an ordered list of roots of one PR.

use serde::{Deserialize, Serialize};

use crate::webhook::event::RepoRef;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunJob {
    pub repo: RepoRef,
    pub number: i64,
    /// `plan` or `apply`.
    pub command: String,
    /// Project names, in dependency order.
    pub projects: Vec<String>,
    /// Who asked (becomes the STS SourceIdentity).
    pub actor: String,
    /// Allowlisted Terraform flags (`-target=…`), plan only.
    #[serde(default)]
    pub terraform_args: Vec<String>,
    #[serde(default)]
    pub accept_inputs: Vec<String>,
}

/// Payload of an `enrich` job: the apply comment to update and the failures to confirm.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EnrichJob {
    pub repo: RepoRef,
    pub number: i64,
    pub comment_id: i64,
    /// The rendered comment's model; rows are filled in as CloudTrail answers.
    pub comment: crate::render::ApplyComment,
    pub pending: Vec<PendingFailure>,
    /// Polls made so far.
    pub attempt: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PendingFailure {
    pub root: String,
    pub failure: crate::enrich::FailureToEnrich,
    /// The failure's address as the comment shows it (redacted with the run's placeholders).
    #[serde(default)]
    pub shown_address: String,
    /// The run's RoleSessionName (`tfgate-<run id>`), the CloudTrail `Username`.
    pub session_name: String,
    pub account_id: String,
    pub read_role: String,
}
