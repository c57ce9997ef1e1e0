//! Plan policy samples (issue 42): a root with a blocking set, a warning set and a set that
//! failed closed; the same root once an owner approved.

use super::{eks_root, plan_no_changes};
use crate::model::view::*;
use crate::model::PolicyMessage;

fn message(rule: &str, address: Option<&str>, text: &str) -> PolicyMessage {
    PolicyMessage {
        rule: rule.into(),
        message: text.into(),
        address: address.map(str::to_string),
    }
}

/// `eks` planned with changes; `network-guard` (deny) fails twice, `tags` (warn) warns,
/// `s3` (deny) fails closed, `baseline` passes.
pub fn plan_with_policy_checks() -> PlanComment {
    let mut comment = plan_no_changes();
    let mut root = eks_root(
        PlanStatus::Changes,
        PlanCounts {
            add: 2,
            ..PlanCounts::default()
        },
    );
    root.policy_checks = vec![
        PolicyCheckView {
            set: "network-guard".into(),
            enforcement: "deny".into(),
            failures: vec![
                message(
                    "deny",
                    Some("aws_security_group.admin"),
                    "security group is open to the world on port 22",
                ),
                message("deny", None, "ingress from ‹cidr-1› on port 22"),
            ],
            warnings: vec![],
            error: None,
            blocks_apply: true,
            owners: vec!["@alice".into(), "@acme/security".into()],
            approved_by: vec![],
        },
        PolicyCheckView {
            set: "tags".into(),
            enforcement: "warn".into(),
            failures: vec![message(
                "deny",
                Some("aws_s3_bucket.logs"),
                "missing required tag `owner`",
            )],
            warnings: vec![message("warn", None, "tag `cost-center` is recommended")],
            error: None,
            blocks_apply: false,
            owners: vec![],
            approved_by: vec![],
        },
        PolicyCheckView {
            set: "s3".into(),
            enforcement: "deny".into(),
            failures: vec![],
            warnings: vec![],
            error: Some("rule `main.deny` ran out of time at plan/s3.rego:4:1; the set fails closed until its policy is fixed".into()),
            blocks_apply: true,
            owners: vec![],
            approved_by: vec![],
        },
        PolicyCheckView {
            set: "baseline".into(),
            enforcement: "deny".into(),
            failures: vec![],
            warnings: vec![],
            error: None,
            blocks_apply: false,
            owners: vec![],
            approved_by: vec![],
        },
    ];
    comment.repo_root_summaries = vec![root];
    comment
}

/// `/apply` of `network` blocked by `ssh` (2 failures) and `s3` (failed closed, no owners).
pub(super) fn policy_blocked() -> NoticeBody {
    NoticeBody::PolicyBlocked(PolicyBlocked {
        project: "network".into(),
        sets: vec![
            BlockedSet {
                set: "ssh".into(),
                failures: 2,
                failed_closed: false,
                owners: vec!["@alice".into(), "@acme/security".into()],
                messages: vec![message(
                    "deny",
                    Some("aws_security_group.admin"),
                    "security group is open to the world on port 22",
                )],
                error: None,
            },
            BlockedSet {
                set: "s3".into(),
                failures: 0,
                failed_closed: true,
                owners: vec![],
                messages: vec![],
                error: Some("rule `main.deny` ran out of time at plan/s3.rego:4:1; the set fails closed until its policy is fixed".into()),
            },
        ],
    })
}

/// `/approve-policies` by bob: `ssh` approved on `network`, `s3` refused (not an owner).
pub(super) fn policy_approval() -> NoticeBody {
    NoticeBody::PolicyApproval(policy_approval_report())
}

pub(super) fn policy_approval_report() -> PolicyApprovalReport {
    PolicyApprovalReport {
        user: "bob".into(),
        head_sha_short: "9c1b2d4".into(),
        approved: vec![ApprovalLine {
            project: "network".into(),
            set: "ssh".into(),
            refusal: None,
            owners: vec!["@bob".into()],
        }],
        refused: vec![ApprovalLine {
            project: "network".into(),
            set: "s3".into(),
            refusal: Some("not_owner".into()),
            owners: vec!["@alice".into()],
        }],
        filter: None,
    }
}
