//! Plan policies (issue 42): the admin policy's Rego policy sets, and what evaluating them on a
//! root's plan found. Shared by the engine (`plan_policy/`), the policy file (`policy/`), the
//! apply gate (`run_planner/`) and the texts (`render/`).

use serde::{Deserialize, Serialize};

/// Whether a set's failures block the apply (`deny`) or are only shown (`warn`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Enforcement {
    #[default]
    Deny,
    Warn,
}

/// Who may approve a set's failures with `/approve-policies`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct PolicyOwners {
    #[serde(default)]
    pub users: Vec<String>,
    /// `org/team` slugs.
    #[serde(default)]
    pub teams: Vec<String>,
}

/// One entry of `plan_policies:` in the admin policy file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanPolicySet {
    pub name: String,
    /// Directory of `.rego` files, relative to the policy file's directory.
    pub path: String,
    /// Project names (globs) the set applies to; empty: every project.
    #[serde(default)]
    pub projects: Vec<String>,
    #[serde(default)]
    pub enforcement: Enforcement,
    #[serde(default)]
    pub owners: PolicyOwners,
    /// Extra Rego packages whose rules count, beside `main` (conftest's `--namespace`).
    #[serde(default)]
    pub namespaces: Vec<String>,
}

/// One failed rule: its message (already redacted when stored in a record) and the resource
/// address it names, when the message object carries one (`resource`/`address`) or the text
/// starts with one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyMessage {
    /// `deny`, `violation` or `warn`.
    pub rule: String,
    pub message: String,
    #[serde(default)]
    pub address: Option<String>,
}

/// What one set found on one root's plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetOutcome {
    pub set: String,
    pub enforcement: Enforcement,
    /// Messages of `deny` and `violation` rules.
    #[serde(default)]
    pub failures: Vec<PolicyMessage>,
    /// Messages of `warn` rules.
    #[serde(default)]
    pub warnings: Vec<PolicyMessage>,
    /// The set could not be evaluated (did not compile, errored, ran out of time or memory):
    /// it fails closed. A short reason for the PR, never raw plan values.
    #[serde(default)]
    pub error: Option<String>,
}

impl SetOutcome {
    /// The outcome of `set` when it could not be evaluated: no messages, `reason` (fails
    /// closed).
    pub fn failed_closed(set: &PlanPolicySet, reason: &str) -> SetOutcome {
        SetOutcome {
            set: set.name.clone(),
            enforcement: set.enforcement,
            failures: Vec::new(),
            warnings: Vec::new(),
            error: Some(reason.to_string()),
        }
    }

    /// The set failed (a failure message, or an error: fail closed).
    pub fn failed(&self) -> bool {
        !self.failures.is_empty() || self.error.is_some()
    }

    /// The failure blocks `/apply` until an owner approves.
    pub fn blocks_apply(&self) -> bool {
        self.enforcement == Enforcement::Deny && self.failed()
    }
}

/// One owner's approval (`/approve-policies`) of one set's failures on one plan run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyApproval {
    pub set: String,
    pub approver: String,
}
