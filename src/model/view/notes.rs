//! Notes under a plan or apply comment, and why an apply skipped a root.

use serde::{Deserialize, Serialize};

/// Why a release could not be installed, as a PR may be told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolProblem {
    DownloadFailed,
    Refused,
    NoBuild,
}

/// One note line under a plan or apply comment (`_notes.md.j2`). `project` is the name of
/// the project the note is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RunNote {
    TerraformMissing {
        project: String,
    },
    /// The project's Terraform or OpenTofu release could not be installed.
    ToolUnavailable {
        project: String,
        /// `Terraform 1.9.8`.
        release: String,
        problem: ToolProblem,
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
    /// A shared input changed since the last apply, and no resource change of the plan comes
    /// from it: it feeds only `outputs` (or nothing), and the next apply takes it unseen.
    InputReachesNoResource {
        project: String,
        input: String,
        outputs: Vec<String>,
    },
    DriftUnchecked {
        project: String,
    },
    AlreadyApplied {
        project: String,
    },
    /// The root's plan failed `deny` plan policy sets that owners approved (`/approve-policies`);
    /// who approved which set.
    PoliciesApproved {
        project: String,
        approvals: Vec<crate::model::PolicyApproval>,
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
    /// The run's proxy refused connections; counts per kind of destination.
    EgressBlocked {
        project: String,
        blocked: Vec<BlockedCount>,
    },
    /// The policy asks for `network: shared` and the server allows it: the run used the
    /// host's network (said on every run).
    HostNetwork {
        project: String,
    },
    /// The policy asks for `network: shared`, which the server does not allow: the run used
    /// the egress allowlist.
    HostNetworkRefused {
        project: String,
    },
    /// Provider settings committed in the checkout were removed before `init`.
    ProviderFilesRemoved {
        project: String,
        paths: Vec<String>,
    },
    /// CloudTrail polling ended before every denied action was confirmed.
    CloudTrailUnconfirmed,
    /// The next step under a plan with changes.
    ApplyToProceed,
    /// After an interrupted apply: what is left is unknown until the next plan.
    PlanAgainToSeeWhatIsLeft,
    /// The sandboxed run hit a resource limit and was ended; `limit` names which
    /// (`sandbox::ResourceLimit::describe`).
    ResourceLimit {
        project: String,
        limit: String,
    },
    /// Output lines longer than the server's line limit were left out of the result.
    LongLinesDropped {
        project: String,
        lines: u64,
    },
}

impl RunNote {
    /// Adds `new` notes to `notes`; a note about the checkout (the same for every root of a
    /// run) is said once.
    pub fn add_all(notes: &mut Vec<RunNote>, new: &[RunNote]) {
        for note in new {
            let about_checkout = matches!(note, RunNote::ProviderFilesRemoved { .. });
            let said = notes
                .iter()
                .any(|n| matches!(n, RunNote::ProviderFilesRemoved { .. }));
            if !(about_checkout && said) {
                notes.push(note.clone());
            }
        }
    }
}

/// How many connections the proxy refused for one kind of destination.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockedCount {
    pub count: usize,
    /// What they were going to ("a link-local address").
    pub to: String,
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
    /// The root's last apply of its plan failed part-way; a new plan is needed.
    PlanSpent {
        project: String,
    },
    /// The root's plan was made with flags that change the apply by someone not known to be
    /// allowed to apply it; a new plan is needed.
    PlanAuthorRefused {
        project: String,
    },
    /// The root's plan failed a `deny` plan policy set no owner approved.
    PolicyBlocked {
        project: String,
    },
    /// This root depends on `dependency`, which failed.
    DependencyFailed {
        dependency: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkout_note_is_said_once_other_notes_each_time() {
        let removed = |project: &str| RunNote::ProviderFilesRemoved {
            project: project.into(),
            paths: vec![".terraformrc".into()],
        };
        let host = |project: &str| RunNote::HostNetwork {
            project: project.into(),
        };
        let mut notes = Vec::new();
        RunNote::add_all(&mut notes, &[removed("a"), host("a")]);
        RunNote::add_all(&mut notes, &[removed("b"), host("b")]);
        assert_eq!(notes, vec![removed("a"), host("a"), host("b")]);
    }
}
