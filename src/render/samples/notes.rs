//! Samples of the typed notes, skip reasons and the short replies.

use super::{apply_root, eks_root, meta};
use crate::model::view::*;

/// One body of each reply kind after `InternalError` (the first sample of its kind).
pub fn new_notice_bodies() -> Vec<NoticeBody> {
    vec![
        NoticeBody::LocksReleased {
            released: 2,
            kept_until_run_ends: 0,
        },
        NoticeBody::CancelReport(CancelReport {
            asked: vec!["eks".into(), "network".into()],
            cancelled: vec![
                CancelledRun {
                    command: "plan".into(),
                    projects: vec!["eks".into(), "network".into()],
                },
                CancelledRun {
                    command: "apply".into(),
                    projects: vec!["eks".into()],
                },
            ],
        }),
        NoticeBody::InputsReport(InputsReport {
            inputs: vec![
                InputRow {
                    name: "ADMIN_CIDRS".into(),
                    variable: "admin_cidrs".into(),
                    fingerprint_short: Some("9c1b2d4e".into()),
                },
                InputRow {
                    name: "VPN_CIDRS".into(),
                    variable: "vpn_cidrs".into(),
                    fingerprint_short: None,
                },
            ],
            lock_file_name: "tfgate.inputs.lock".into(),
            lock_file: "# tfgate.inputs.lock\nADMIN_CIDRS = 9c1b2d4e0f\n".into(),
        }),
        NoticeBody::LayoutProblems {
            base_ref: "main".into(),
            problems: vec![
                "tfgate.yaml:3:5: `apply_role` is not allowed in a layout".into(),
                "tfgate.yaml:7:18: depends_on names unknown project `nope`".into(),
            ],
        },
        NoticeBody::NotAPullRequest,
        NoticeBody::NoAffectedRoot,
        NoticeBody::ProjectsGone {
            base_ref: "main".into(),
            projects: vec!["eks".into(), "network".into()],
        },
        NoticeBody::InputDriftRefused {
            project: "eks".into(),
            refusal: crate::model::InputDriftRefusal::Confirm {
                inputs: vec!["ADMIN_CIDRS".into()],
            },
        },
        NoticeBody::HeadMoved {
            authorised_sha_short: "3f2a9e0".into(),
            head_sha_short: "9c1b2d4".into(),
            command: "plan".into(),
        },
        NoticeBody::JobFailed {
            what: "GitHub did not answer while the plan comment was posted".into(),
            job_id: 17,
        },
        NoticeBody::RootBusy {
            project: "eks".into(),
            command: "apply".into(),
            run_id: 42,
        },
        NoticeBody::Outsider {
            user: "octocat".into(),
            needed: "write".into(),
        },
        NoticeBody::RateLimited {
            user: "octocat".into(),
            limit: 30,
        },
        NoticeBody::MoreRejected { more: 495 },
    ]
}

/// The notice that part of what decides the affected roots could not be read.
pub fn affected_roots_incomplete() -> NoticeBody {
    NoticeBody::AffectedRootsIncomplete {
        modules_unread: true,
        inputs_lock_unread: false,
    }
}

/// Second samples of kinds whose template has two shapes.
pub fn alternate_notices() -> Vec<Notice> {
    [
        NoticeBody::CancelReport(CancelReport {
            asked: vec!["eks".into()],
            cancelled: vec![],
        }),
        NoticeBody::InputsReport(InputsReport {
            inputs: vec![],
            lock_file_name: "tfgate.inputs.lock".into(),
            lock_file: "# tfgate.inputs.lock\n".into(),
        }),
    ]
    .into_iter()
    .map(|body| Notice {
        meta: meta(30),
        body,
    })
    .collect()
}

/// A plan with every note a plan can carry.
pub fn plan_with_every_note() -> PlanComment {
    let project = || "eks".to_string();
    PlanComment {
        meta: meta(18),
        repo_root_summaries: vec![eks_root(PlanStatus::NoChanges, PlanCounts::default())],
        drift_warnings: vec![],
        denials: vec![],
        notes: vec![
            RunNote::TerraformMissing { project: project() },
            RunNote::ToolUnavailable {
                project: project(),
                release: "Terraform 1.9.8".into(),
                problem: crate::model::view::ToolProblem::DownloadFailed,
            },
            RunNote::ToolUnavailable {
                project: project(),
                release: "OpenTofu 1.8.1".into(),
                problem: crate::model::view::ToolProblem::Refused,
            },
            RunNote::ToolUnavailable {
                project: project(),
                release: "Terraform 1.9.8".into(),
                problem: crate::model::view::ToolProblem::NoBuild,
            },
            RunNote::CouldNotStart {
                project: project(),
                command: "plan".into(),
                reason: "the checkout of `9c1b2d4` failed".into(),
            },
            RunNote::InputUnreadable {
                project: project(),
                input: "VPN_CIDRS".into(),
            },
            RunNote::LockFileInvalid {
                project: project(),
                line: 4,
            },
            RunNote::LockFileDiffers {
                project: project(),
                input: "ADMIN_CIDRS".into(),
                committed: "3f2a9e0c".into(),
                live: "9c1b2d4e".into(),
            },
            RunNote::InputReachesNoResource {
                project: project(),
                input: "ADMIN_CIDRS".into(),
                outputs: vec!["admins".into()],
            },
            RunNote::DriftUnchecked { project: project() },
            RunNote::ApplyToProceed,
        ],
        still_planning: Vec::new(),
    }
}

/// An apply that stopped: one skipped root per reason, and every note an apply can carry.
pub fn apply_with_every_skip_reason() -> ApplyComment {
    let eks = || "eks".to_string();
    let reasons = [
        SkipReason::NoCurrentPlan { project: eks() },
        SkipReason::Locked { project: eks() },
        SkipReason::AwaitingInputDecision { project: eks() },
        SkipReason::NoReadablePlan { project: eks() },
        SkipReason::NoTerraform { project: eks() },
        SkipReason::CouldNotStart { project: eks() },
        SkipReason::Failed { project: eks() },
        SkipReason::ApplyInterrupted { project: eks() },
        SkipReason::PlanSpent { project: eks() },
        SkipReason::PlanAuthorRefused { project: eks() },
        SkipReason::PolicyBlocked { project: eks() },
        SkipReason::DependencyFailed {
            dependency: "eks".into(),
        },
    ];
    let roots = reasons
        .into_iter()
        .enumerate()
        .map(|(i, reason)| {
            let mut root = apply_root(ApplyStatus::Skipped { reason }, vec![]);
            root.project = format!("root-{i}");
            root
        })
        .collect();
    ApplyComment {
        meta: meta(25),
        roots,
        notes: vec![
            RunNote::AlreadyApplied {
                project: "network".into(),
            },
            RunNote::PoliciesApproved {
                project: "dns".into(),
                approvals: vec![crate::model::PolicyApproval {
                    set: "ssh".into(),
                    approver: "alice".into(),
                }],
            },
            RunNote::PlanExpired {
                project: "eks".into(),
                retention_days: 30,
            },
            RunNote::PlanUnreadable {
                project: "eks".into(),
            },
            RunNote::TerraformMissing {
                project: "eks".into(),
            },
            RunNote::CouldNotStart {
                project: "eks".into(),
                command: "apply".into(),
                reason: "internal error; an admin can read the server log".into(),
            },
            RunNote::CloudTrailUnconfirmed,
            RunNote::PlanAgainToSeeWhatIsLeft,
        ],
    }
}
