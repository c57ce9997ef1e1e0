//! View models naming the plan an apply applies: in the apply comment, and in the reply that
//! refuses a plan whose flags its author may not have applied.

use serde::{Deserialize, Serialize};

/// The plan run a root's apply applied (or refused): its id, who asked for it, its flags.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppliedPlan {
    pub run_id: i64,
    /// GitHub login of whoever commented the `/plan` (the PR's author for an autoplan).
    pub author: String,
    /// Its Terraform flags as Terraform got them, addresses redacted; `None`: not recorded
    /// (a plan made before tfgate recorded flags).
    pub flags: Option<Vec<String>>,
}

/// Why a plan with flags that change the apply is not applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PlanRefusal {
    /// The policy does not let the plan's author apply the root; `denial` is why.
    AuthorMayNotApply { denial: crate::model::PolicyDenial },
    /// The plan was made after the `/apply` was accepted, by someone else, so nobody checked
    /// whether its author may apply the root.
    Unchecked,
}

/// The reply refusing to apply one root's plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanAuthorRefused {
    pub project: String,
    pub plan: AppliedPlan,
    pub why: PlanRefusal,
}
