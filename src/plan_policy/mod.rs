//! Plan policies as code (issue 42): Rego policy sets, compiled once per policy version with
//! the embedded interpreter `regorus` (no OPA binary, no network), evaluated on a root's plan
//! JSON (`terraform show -json`) with conftest's conventions.
//!
//! Pure module: the caller reads the `.rego` files (`policy_repo`, `cli`) and the plan JSON
//! (`worker`); [`compile`] checks and prepares a set, [`evaluate`] runs it under a [`Budget`]
//! and fails closed (`SetOutcome.error`) when the set errors, runs out of time or is given a
//! plan over the size limit.

mod compile;
mod evaluate;
mod messages;
mod select;

pub use compile::{compile, rego_files_of_set, CompiledSet, RegoProblem};
pub use evaluate::{evaluate, Budget, DEFAULT_MAX_INPUT_BYTES, DEFAULT_TIME_LIMIT};
pub use select::sets_for_project;

#[cfg(test)]
mod tests;
