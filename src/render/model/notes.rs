//! Notes under a plan or apply comment, and why an apply skipped a root.

use serde::{Deserialize, Serialize};

/// One note line under a plan or apply comment (`_notes.md.j2`). `project` is the name of
/// the project the note is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RunNote {
    TerraformMissing {
        project: String,
    },
    CouldNotStart {
        project: String,
        /// `plan` or `apply`.
        command: String,
        /// A public one-line reason.
        reason: String,
    },
    InputUnreadable {
        project: String,
        input: String,
    },
    LockFileInvalid {
        project: String,
        line: u64,
    },
    LockFileDiffers {
        project: String,
        input: String,
        /// Short fingerprints (never values).
        committed: String,
        live: String,
    },
    DriftUnchecked {
        project: String,
    },
    AlreadyApplied {
        project: String,
    },
    PlanExpired {
        project: String,
        retention_days: u32,
    },
    PlanUnreadable {
        project: String,
    },
    /// The backend has no such Terraform workspace and the policy does not let tfgate
    /// create it (`create_workspace`).
    WorkspaceMissing {
        project: String,
        workspace: String,
    },
    /// CloudTrail polling ended before every denied action was confirmed.
    CloudTrailUnconfirmed,
    /// The next step under a plan with changes.
    ApplyToProceed,
    /// After an interrupted apply: what is left is unknown until the next plan.
    PlanAgainToSeeWhatIsLeft,
}

/// Why an apply did not run a root (`_skip_reason.md.j2`); `project` is the project that
/// stopped the apply (this root or one before it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SkipReason {
    NoCurrentPlan {
        project: String,
    },
    Locked {
        project: String,
    },
    /// Another plan or apply of the root is running.
    Busy {
        project: String,
    },
    AwaitingInputDecision {
        project: String,
    },
    NoReadablePlan {
        project: String,
    },
    NoTerraform {
        project: String,
    },
    CouldNotStart {
        project: String,
    },
    Failed {
        project: String,
    },
    /// The root's last apply of its plan was interrupted; a new plan is needed.
    ApplyInterrupted {
        project: String,
    },
    /// This root depends on `dependency`, which failed.
    DependencyFailed {
        dependency: String,
    },
}
