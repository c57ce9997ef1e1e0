//! Plan policy results as the PR reads them (issue 42): one entry per policy set evaluated on
//! a root's plan, with who may approve a blocking failure.

use serde::{Deserialize, Serialize};

use crate::model::{Enforcement, PolicyMessage, PolicyOwners, SetOutcome};

/// One plan policy set's result on one root's plan. Messages are already redacted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyCheckView {
    pub set: String,
    /// `deny` or `warn`.
    pub enforcement: String,
    pub failures: Vec<PolicyMessage>,
    pub warnings: Vec<PolicyMessage>,
    /// The set could not be evaluated and fails closed; a short reason.
    pub error: Option<String>,
    /// A failure that blocks `/apply` until an owner approves.
    pub blocks_apply: bool,
    /// Who may approve: `@login` and `@org/team` (empty: nobody is named).
    pub owners: Vec<String>,
    /// Owners' approvals of this plan, as `@login`.
    #[serde(default)]
    pub approved_by: Vec<String>,
}

impl PolicyCheckView {
    pub fn of(outcome: &SetOutcome, owners: Option<&PolicyOwners>) -> PolicyCheckView {
        PolicyCheckView {
            set: outcome.set.clone(),
            enforcement: match outcome.enforcement {
                Enforcement::Deny => "deny".into(),
                Enforcement::Warn => "warn".into(),
            },
            failures: outcome.failures.clone(),
            warnings: outcome.warnings.clone(),
            error: outcome.error.clone(),
            blocks_apply: outcome.blocks_apply(),
            owners: owners.map(owner_handles).unwrap_or_default(),
            approved_by: Vec::new(),
        }
    }

    /// Passed: no failure, no error (warnings may be present).
    pub fn passed(&self) -> bool {
        self.failures.is_empty() && self.error.is_none()
    }
}

/// `@login` for each user and `@org/team` for each team, in the policy's order.
pub fn owner_handles(owners: &PolicyOwners) -> Vec<String> {
    owners
        .users
        .iter()
        .chain(owners.teams.iter())
        .map(|o| format!("@{o}"))
        .collect()
}

/// `/apply` of a root whose plan failed `deny` plan policy sets no owner approved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyBlocked {
    pub project: String,
    pub sets: Vec<BlockedSet>,
}

/// One set that blocks an apply, and who may approve it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockedSet {
    pub set: String,
    /// Failed rule messages on the plan (0 when it failed closed).
    pub failures: usize,
    /// The set could not be evaluated (fails closed).
    pub failed_closed: bool,
    /// `@login` / `@org/team`; empty when the policy names no owner.
    pub owners: Vec<String>,
    /// The first failed rules' messages (redacted, as stored with the plan).
    #[serde(default)]
    pub messages: Vec<PolicyMessage>,
    /// Why it failed closed, when it did.
    #[serde(default)]
    pub error: Option<String>,
}

/// The answer to `/approve-policies`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyApprovalReport {
    pub user: String,
    pub head_sha_short: String,
    pub approved: Vec<ApprovalLine>,
    pub refused: Vec<ApprovalLine>,
    /// `-p`/`--set` as written, when given (to say what matched nothing).
    pub filter: Option<String>,
}

/// One root's set in an `/approve-policies` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalLine {
    pub project: String,
    pub set: String,
    /// Why it was refused: `own_pull_request`, `not_owner` or `set_gone`.
    pub refusal: Option<String>,
    pub owners: Vec<String>,
}

/// The `tfgate/plan-policy` check run of a PR's head: each root's latest plan of that head
/// with what its policy sets found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanPolicyCheckText {
    pub head_sha_short: String,
    pub roots: Vec<PlanPolicyCheckRoot>,
    /// Roots whose apply a `deny` failure blocks (not approved).
    pub blocked: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanPolicyCheckRoot {
    pub project: String,
    pub workspace: String,
    pub checks: Vec<PolicyCheckView>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(enforcement: Enforcement, failures: usize, error: bool) -> SetOutcome {
        SetOutcome {
            set: "base".into(),
            enforcement,
            failures: (0..failures)
                .map(|i| PolicyMessage {
                    rule: "deny".into(),
                    message: format!("m{i}"),
                    address: None,
                })
                .collect(),
            warnings: vec![],
            error: error.then(|| "rule failed".to_string()),
        }
    }

    #[test]
    fn a_set_blocks_only_when_deny_and_failed() {
        let owners = PolicyOwners {
            users: vec!["alice".into()],
            teams: vec!["acme/sec".into()],
        };
        let table = [
            (Enforcement::Deny, 1, false, true, false),
            (Enforcement::Deny, 0, true, true, false),
            (Enforcement::Deny, 0, false, false, true),
            (Enforcement::Warn, 2, false, false, false),
            (Enforcement::Warn, 0, true, false, false),
        ];
        for (enforcement, failures, error, blocks, passed) in table {
            let view = PolicyCheckView::of(&outcome(enforcement, failures, error), Some(&owners));
            assert_eq!(
                view.blocks_apply, blocks,
                "{enforcement:?} {failures} {error}"
            );
            assert_eq!(view.passed(), passed, "{enforcement:?} {failures} {error}");
            assert_eq!(view.owners, ["@alice", "@acme/sec"]);
        }
    }
}
