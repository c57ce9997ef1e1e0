//! Plain types that every layer may use: references to repositories and commits, job payloads,
//! run records, view models, decisions as data, the readiness report. This module imports
//! nothing else of the crate (`tests/layers.rs` checks), so it can sit below the pure core and
//! the effect shell alike.

mod check_texts;
mod deny;
mod deploy_check;
mod drift_report;
pub mod gitops;
mod input_drift_refusal;
pub mod job;
pub mod marker;
pub mod plan_policy;
mod policy_denial;
pub mod readiness;
mod repo;
mod resource_limit;
mod sha;
pub mod stale_plan;
pub mod view;

pub use check_texts::{ApplyCheckKind, ApplyCheckRoot, ApplyCheckText, PolicyCheckText};
pub use deny::DenyKind;
pub use deploy_check::{
    DeployAcknowledged, DeployChange, DeployCheckBody, DeployCheckText, DeployRow,
};
pub use drift_report::{
    DriftAttributeChange, DriftFindingText, DriftReportText, DriftRootRow, DriftRootSection,
    DriftRootStatus, DriftValue, PrincipalText, WhoChangedText,
};
pub use input_drift_refusal::InputDriftRefusal;
pub use plan_policy::{
    Enforcement, PlanPolicySet, PolicyApproval, PolicyMessage, PolicyOwners, SetOutcome,
};
pub use policy_denial::{
    ApprovalProblem, CheckProblem, NotCounted, NotCountedWhy, PolicyDenial, UnmetRequirement,
};
pub use repo::RepoRef;
pub use resource_limit::ResourceLimit;
pub use sha::{short_sha, CommitSha};
