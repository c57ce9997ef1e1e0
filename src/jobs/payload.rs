//! Job payloads: a `run` job (one command over an ordered list of roots of one PR, bound to
//! the commit that was authorised), an `enrich` job (CloudTrail polls for a failed apply) and a
//! `publish` job (a finished run's result, from the outbox).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::RepoRef;

/// The Terraform command a run job carries out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunCommand {
    Plan,
    Apply,
}

impl RunCommand {
    pub fn name(self) -> &'static str {
        match self {
            RunCommand::Plan => "plan",
            RunCommand::Apply => "apply",
        }
    }

    pub fn parse(name: &str) -> Option<RunCommand> {
        [RunCommand::Plan, RunCommand::Apply]
            .into_iter()
            .find(|c| c.name() == name)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunJob {
    pub repo: RepoRef,
    pub number: i64,
    pub command: RunCommand,
    /// Project names, in dependency order.
    pub projects: Vec<String>,
    /// Who asked (becomes the STS SourceIdentity).
    pub actor: String,
    /// The PR head the policy decided on. The run checks out exactly this commit, and runs
    /// nothing when the PR head has moved since. Empty in jobs queued before runs were bound.
    #[serde(default)]
    pub head_sha: String,
    /// Apply only: the plan run each project applies (project name → run id), when a plan
    /// existed at authorisation; otherwise the latest plan of `head_sha`.
    #[serde(default)]
    pub plan_runs: BTreeMap<String, i64>,
    /// Apply only: the author and flags of every plan in `plan_runs` were checked when the
    /// `/apply` was authorised (`run_planner::plan_author`). False in jobs queued before that
    /// check existed: their plans count as unchecked.
    #[serde(default)]
    pub plan_authors_checked: bool,
    /// Allowlisted Terraform flags (`-target=…`; for an apply only `-lock-timeout=`).
    #[serde(default)]
    pub terraform_args: Vec<String>,
    #[serde(default)]
    pub accept_inputs: Vec<String>,
    /// The comment that asked for the run (none for autoplan), for a 😕 if the job fails.
    #[serde(default)]
    pub comment_id: Option<i64>,
}

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

/// Payload of a `drift` job: check the default branch's roots of one repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriftJob {
    pub repo: RepoRef,
    /// Project names to check; empty: the policy's `drift_detection.projects`.
    #[serde(default)]
    pub projects: Vec<String>,
    /// What started it (`schedule 2026-12-05T06:00:00Z`, `tfgate drift run`), for the log.
    pub trigger: String,
}

/// Payload of a `publish` job: the outbox row to publish, and the PR it goes to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublishJob {
    pub repo: RepoRef,
    pub number: i64,
    pub publication_id: i64,
}
