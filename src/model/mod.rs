//! Plain types that every layer may use: references to repositories and commits, job payloads,
//! run records, view models, the readiness report. This module imports nothing else of the crate (`tests/layers.rs`
//! checks), so it can sit below the pure core and the effect shell alike.

mod check_texts;
mod deploy_check;
mod drift_report;
pub mod readiness;
mod repo;
mod sha;

pub use check_texts::PolicyCheckText;
pub use deploy_check::{
    DeployAcknowledged, DeployChange, DeployCheckBody, DeployCheckText, DeployRow,
};
pub use drift_report::{
    DriftAttributeChange, DriftFindingText, DriftReportText, DriftRootRow, DriftRootSection,
    DriftRootStatus, DriftValue,
};
pub use repo::RepoRef;
pub use sha::{short_sha, CommitSha};
