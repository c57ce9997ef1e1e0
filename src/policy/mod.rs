//! Admin policy: who may plan and apply which roots, under which requirements.
//!
//! Policy lives only on the server (`policies/*.yaml`), never in a PR branch. Pure module:
//! the caller reads the files; [`load_policies`] validates them; [`decide`] takes every
//! authorisation decision.

mod approval;
pub mod atlantis;
mod checker;
mod decide;
mod explain;
mod facts;
mod load;
pub(crate) mod locate;
mod model;
mod plan_sets;
mod problem;
mod pushers;
mod requirements;
pub(crate) mod resolve;
pub mod schema;
mod schema_ops;
mod snapshot;
pub mod sources;
pub(crate) mod validate;
pub(crate) mod values;

pub use decide::{decide, Decision, Outcome, RULES};
/// The decision tables, for the render tests that word every denial.
#[cfg(test)]
pub(crate) use decide::{pr_tests as decide_pr_cases, tests as decide_cases};
pub use explain::explain;
pub use facts::{Actor, CheckRun, PolicyCommand, PrFacts, PrState, Review, ReviewState, Target};
pub use load::{
    is_policy_file_name, load_policies, load_policy, not_enabled_notice, AmbiguousPolicy, PolicySet,
};
pub use model::{
    DriftDetection, GitopsFolder, Input, InputSource, ProjectOrigin, RepoPolicy, ResolvedProject,
    SessionPolicy, TerraformSpec, DEFAULT_PARALLELISM, DEFAULT_SESSION_DURATION, DEFAULT_TIMEOUT,
};
pub use plan_sets::is_rego_file_name;
pub use problem::PolicyProblem;
pub use pushers::{push_history, PushHistory, PushRecord};
pub use schema::{
    ApplyRequirement, BackendConfig, GitHubPermission, Network, OnInputDrift, RequiredCheck,
};
pub use snapshot::{ChangesRead, PrSnapshot};
