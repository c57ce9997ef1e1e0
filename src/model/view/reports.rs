//! View models of the replies to `/cancel` and `/inputs`.

use serde::{Deserialize, Serialize};

/// The reply to `/cancel`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CancelReport {
    /// The projects `/cancel` was allowed on (named when nothing was queued).
    pub asked: Vec<String>,
    /// What was cancelled, in queue order; empty when nothing was queued.
    pub cancelled: Vec<CancelledRun>,
}

/// One queued run job's cancelled part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CancelledRun {
    /// `plan` or `apply`.
    pub command: String,
    /// The projects it no longer runs.
    pub projects: Vec<String>,
}

/// The reply to `/inputs`: fingerprints only, never values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputsReport {
    /// The repository's shared inputs; empty when none are declared.
    pub inputs: Vec<InputRow>,
    /// The lock file's name (`tfgate.inputs.lock`).
    pub lock_file_name: String,
    /// The lock file text that commits to the readable inputs' current fingerprints.
    pub lock_file: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputRow {
    pub name: String,
    /// The Terraform variable it is given as.
    pub variable: String,
    /// Short live fingerprint; `None` when the server cannot read the input.
    pub fingerprint_short: Option<String>,
}
