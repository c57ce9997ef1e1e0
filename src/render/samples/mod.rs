//! Sample view models, modelled on seed 000's EKS pull request.
//!
//! Used at load time to render every template once (so a broken override fails when it is
//! loaded, not when a real run needs it) and by the snapshot tests.

use crate::model::view::*;
use crate::model::PolicyDenial;

mod failures;
mod notes;
mod policy;
pub use failures::{plan_denied_at_plan_time, plan_egress_blocked, plan_provider_not_allowed};
pub use notes::{alternate_notices, apply_with_every_skip_reason, plan_with_every_note};
pub use policy::plan_with_policy_checks;

pub fn meta(pr: u64) -> CommentMeta {
    CommentMeta {
        pr,
        marker_root: "all".into(),
        run_id: "r-0042".into(),
        head_sha_short: Some("9c1b2d4".into()),
        command_by: Some("kukie-dev".into()),
        check_run_url: Some("https://github.com/acme/infra/runs/123456".into()),
    }
}

fn attr(path: &str, before: Option<&str>, after: Option<&str>) -> AttrView {
    AttrView {
        path: path.into(),
        before: before.map(Into::into),
        after: after.map(Into::into),
        sensitive: false,
        unknown: false,
    }
}

pub(super) fn eks_root(status: PlanStatus, counts: PlanCounts) -> RootPlan {
    RootPlan {
        project: "eks".into(),
        dir: "infra/eks".into(),
        workspace: "default".into(),
        status,
        counts,
        warnings: vec![],
        resources: vec![],
        errors: vec![],
        advice: vec![],
        denials: vec![],
        pending_enrichment: false,
        policy_checks: Vec::new(),
    }
}

/// Three resources: an in-place update, a tainted replacement, a create.
pub fn plan_with_changes() -> PlanComment {
    let mut root = eks_root(
        PlanStatus::Changes,
        PlanCounts {
            add: 1,
            change: 1,
            destroy: 0,
            replace: 1,
            read: 0,
        },
    );
    root.warnings = vec!["Argument is deprecated: use `aws_s3_bucket_acl` instead".into()];
    root.resources = vec![
        PlannedResourceView {
            address: "aws_eks_cluster.this".into(),
            action: "update".into(),
            action_reason: None,
            omitted_attributes: 0,
            attributes: vec![
                attr("vpc_config.public_access_cidrs[1]", None, Some("<cidr-2>")),
                AttrView {
                    sensitive: true,
                    ..attr("encryption_config.provider.key_arn", Some("x"), Some("y"))
                },
            ],
        },
        PlannedResourceView {
            address: "module.nodes.aws_autoscaling_group.this[\"a\"]".into(),
            action: "replace".into(),
            action_reason: Some("replace_because_tainted".into()),
            omitted_attributes: 0,
            attributes: vec![
                attr("desired_capacity", Some("2"), Some("2")),
                AttrView {
                    unknown: true,
                    ..attr("id", Some("<asg-id-1>"), None)
                },
            ],
        },
        PlannedResourceView {
            address: "aws_eks_node_group.main".into(),
            action: "create".into(),
            action_reason: None,
            omitted_attributes: 0,
            attributes: vec![
                attr("node_group_name", None, Some("main")),
                attr("instance_types", None, Some("[\"t3.large\"]")),
            ],
        },
    ];
    PlanComment {
        meta: meta(17),
        repo_root_summaries: vec![root],
        drift_warnings: vec![],
        denials: vec![],
        notes: vec![RunNote::ApplyToProceed],
        still_planning: Vec::new(),
    }
}

pub fn plan_no_changes() -> PlanComment {
    PlanComment {
        meta: meta(18),
        repo_root_summaries: vec![eks_root(PlanStatus::NoChanges, PlanCounts::default())],
        drift_warnings: vec![],
        denials: vec![],
        notes: vec![],
        still_planning: Vec::new(),
    }
}

pub fn plan_failed_config_error() -> PlanComment {
    let mut root = eks_root(PlanStatus::Failed, PlanCounts::default());
    root.errors = vec![FailureRow {
        address: None,
        aws_code: None,
        category_id: "configuration_error".into(),
        category_label: "configuration error".into(),
        iam_action: None,
        location: Some(SourceLocation {
            file: "main.tf".into(),
            line: 42,
        }),
    }];
    root.advice = vec![AdviceView {
        category_id: "configuration_error".into(),
        label: "configuration error".into(),
        advice: "fix the file and line shown, then run `/plan`".into(),
    }];
    PlanComment {
        meta: meta(19),
        repo_root_summaries: vec![root],
        drift_warnings: vec![],
        denials: vec![],
        notes: vec![],
        still_planning: Vec::new(),
    }
}

/// A split `/plan` of three roots with one finished: the other two are still planning.
pub fn plan_split_in_progress() -> PlanComment {
    let mut comment = plan_no_changes();
    comment.meta.marker_root = "job-40".into();
    comment.still_planning = ["network", "dns"]
        .iter()
        .map(|p| crate::model::view::PlanningRoot {
            project: p.to_string(),
            dir: format!("infra/{p}"),
            workspace: "default".into(),
        })
        .collect();
    comment
}

/// Seed 000's shared-input drift: the admin CIDR secret changed outside the PR.
pub fn plan_with_drift() -> PlanComment {
    let mut comment = plan_with_changes();
    comment.meta.pr = 20;
    let cluster = DriftWarning {
        address: "aws_eks_cluster.this".into(),
        attribute_paths: vec!["vpc_config.public_access_cidrs".into()],
        input_name: "ADMIN_CIDRS".into(),
        fingerprint_before: "3f2a9e01".into(),
        fingerprint_after: "9c1b77aa".into(),
        explained_by: None,
        also_edited_in: None,
        also_sets: Vec::new(),
    };
    // The PR edits this one's block too: both causes are named.
    let admin_sg = DriftWarning {
        address: "aws_security_group.admin".into(),
        attribute_paths: vec!["ingress".into()],
        also_edited_in: Some("infra/eks/security.tf".into()),
        also_sets: vec!["ingress".into()],
        ..cluster.clone()
    };
    comment.drift_warnings = vec![cluster, admin_sg];
    comment.denials = vec![
        "`bootstrap/argocd` is never applied by comment (policy rule `bootstrap-local-only`)"
            .into(),
    ];
    comment
}

fn row(address: &str, action: &str, result: ApplyResult) -> ApplyRow {
    ApplyRow {
        address: address.into(),
        action: action.into(),
        result,
        aws_code: None,
        category_id: None,
        category_label: None,
        iam_action: None,
        deny_kind_label: None,
        location: None,
        fresh_cause: None,
    }
}

pub(super) fn apply_root(status: ApplyStatus, rows: Vec<ApplyRow>) -> RootApply {
    let count = |r: ApplyResult| rows.iter().filter(|row| row.result == r).count() as u32;
    RootApply {
        project: "eks".into(),
        dir: "infra/eks".into(),
        workspace: "default".into(),
        status,
        counts: ApplyCounts {
            done: count(ApplyResult::Done),
            failed: count(ApplyResult::Failed),
            not_reached: count(ApplyResult::NotReached),
        },
        rows,
        advice: vec![],
        config_errors: vec![],
        pending_enrichment: false,
        denials: Vec::new(),
        plan: None,
    }
}

pub fn apply_success() -> ApplyComment {
    let mut root = apply_root(
        ApplyStatus::Succeeded,
        vec![
            row("aws_iam_role.node", "create", ApplyResult::Done),
            row("aws_eks_node_group.main", "create", ApplyResult::Done),
        ],
    );
    root.plan = Some(AppliedPlan {
        run_id: 41,
        author: "maya".into(),
        flags: Some(vec![
            "-target=module.eks".into(),
            "-replace=aws_eks_node_group.main".into(),
        ]),
    });
    ApplyComment {
        meta: meta(21),
        roots: vec![root],
        notes: vec![],
    }
}

fn permission_missing_row() -> ApplyRow {
    ApplyRow {
        aws_code: Some("AccessDenied".into()),
        category_id: Some("permission_missing".into()),
        category_label: Some("permission missing".into()),
        iam_action: Some("iam:GetRole".into()),
        deny_kind_label: Some("identity policy".into()),
        location: Some(SourceLocation {
            file: "nodes.tf".into(),
            line: 3,
        }),
        ..row("aws_eks_node_group.main", "create", ApplyResult::Failed)
    }
}

/// Seed 000: CloudTrail named the service-linked role the node group needed, without its path.
fn seed_000_denial() -> crate::model::view::EnrichmentView {
    use crate::enrich::{enrichment_view, DeniedCall, EnrichmentSource, EnrichmentState};
    let failure = crate::enrich::FailureToEnrich {
        address: "aws_eks_node_group.main".into(),
        permission_missing: true,
        aws_code: Some("AccessDenied".into()),
        failed_at: "2024-08-01T11:30:23Z".into(),
        ..Default::default()
    };
    let call = DeniedCall {
        iam_action: "iam:GetRole".into(),
        error_code: Some("AccessDenied".into()),
        deny_kind: Some(crate::classify::DenyKind::Implicit),
        resource_type: Some("role".into()),
        resource_name_redacted: Some("AWSServiceRoleForAmazonEKSNodegroup".into()),
        source: EnrichmentSource::CloudTrail,
    };
    let redactor = crate::redact::Redactor::new(&Default::default()).expect("built-in rules");
    enrichment_view(
        &failure,
        &failure.address,
        None,
        &EnrichmentState::Found(call),
        &redactor,
    )
}

fn propagation_row(address: &str) -> ApplyRow {
    ApplyRow {
        aws_code: Some("InvalidParameterValue".into()),
        category_id: Some("propagation_delay".into()),
        category_label: Some("propagation delay".into()),
        ..row(address, "create", ApplyResult::Failed)
    }
}

/// Seed 000's second apply: one permission failure, two propagation-delay failures
/// (advice appears once per category), the rest done or not reached.
pub fn apply_partial_failure() -> ApplyComment {
    let mut root = apply_root(
        ApplyStatus::PartiallyFailed,
        vec![
            row("aws_iam_instance_profile.node", "create", ApplyResult::Done),
            permission_missing_row(),
            ApplyRow {
                fresh_cause: Some(FreshCauseView {
                    address: "aws_iam_instance_profile.node".into(),
                    seconds_earlier: Some(4),
                }),
                ..propagation_row("aws_launch_template.node")
            },
            propagation_row("module.nodes.aws_autoscaling_group.this[\"a\"]"),
            row("aws_eks_addon.coredns", "create", ApplyResult::NotReached),
        ],
    );
    root.advice = vec![
        AdviceView {
            category_id: "permission_missing".into(),
            label: "permission missing".into(),
            advice: "add `iam:GetRole` to the apply role's policy".into(),
        },
        AdviceView {
            category_id: "propagation_delay".into(),
            label: "propagation delay".into(),
            advice: "plan the root again and `/apply`; if it repeats, add an explicit dependency or wait".into(),
        },
    ];
    root.pending_enrichment = true;
    root.denials = vec![seed_000_denial()];
    let mut skipped = apply_root(
        ApplyStatus::Skipped {
            reason: SkipReason::DependencyFailed {
                dependency: "eks".into(),
            },
        },
        vec![],
    );
    skipped.project = "eks-platform".into();
    skipped.dir = "infra/platform".into();
    ApplyComment {
        meta: meta(22),
        roots: vec![root, skipped],
        notes: vec![],
    }
}

pub fn apply_interrupted() -> ApplyComment {
    let mut root = apply_root(
        ApplyStatus::Interrupted,
        vec![
            row("aws_iam_role.node", "create", ApplyResult::Done),
            row(
                "aws_eks_node_group.main",
                "create",
                ApplyResult::Interrupted,
            ),
            row("aws_eks_addon.coredns", "create", ApplyResult::NotReached),
        ],
    );
    root.config_errors = vec![];
    ApplyComment {
        meta: meta(23),
        roots: vec![root],
        notes: vec![RunNote::PlanAgainToSeeWhatIsLeft],
    }
}

pub fn apply_config_error() -> ApplyComment {
    let mut root = apply_root(ApplyStatus::Failed, vec![]);
    root.config_errors = vec![ConfigErrorView {
        file: "main.tf".into(),
        line: 42,
        summary_category: "configuration error".into(),
    }];
    ApplyComment {
        meta: meta(24),
        roots: vec![root],
        notes: vec![],
    }
}

/// The sample policy denial: a commenter in none of the root's teams.
fn denial_not_listed() -> PolicyDenial {
    PolicyDenial::NotListed {
        login: "kukie-dev".into(),
        verb: "apply".into(),
        project: Some("prod".into()),
        users: vec![],
        teams: vec!["acme/platform".into()],
    }
}

/// The sample denial about a plan's author: below the root's apply permission.
fn denial_below_minimum() -> PolicyDenial {
    PolicyDenial::BelowMinimum {
        login: "bob".into(),
        verb: "apply".into(),
        project: Some("db".into()),
        needed: "maintain".into(),
        has: "write".into(),
    }
}

/// One notice of every kind.
pub fn notices() -> Vec<Notice> {
    let bodies = vec![
        NoticeBody::LockHeld(LockHeld {
            project: "eks".into(),
            dir: "infra/eks".into(),
            workspace: "default".into(),
            holder_pr: 11,
            holder_url: "https://github.com/acme/infra/pull/11".into(),
        }),
        NoticeBody::PlanStale(PlanStale {
            planned_sha_short: Some("3f2a9e0".into()),
            head_sha_short: Some("9c1b2d4".into()),
        }),
        NoticeBody::CommandRejected {
            reason: "`-chdir` is not allowed in `/plan` flags".into(),
        },
        NoticeBody::PolicyDenied {
            denial: denial_not_listed(),
            rule: "permission.not_listed".into(),
        },
        NoticeBody::NotEnabled {
            how_to_enable: "An admin enables it by adding this repository under `repos:` in the tfgate policy file.".into(),
        },
        NoticeBody::Interrupted(RunInterrupted {
            project: "eks".into(),
            dir: "infra/eks".into(),
            workspace: "default".into(),
            completed: vec!["aws_iam_role.node".into()],
        }),
        NoticeBody::Help {
            markdown: "- `/plan`: plan the affected roots\n- `/apply`: apply the last plan".into(),
        },
        NoticeBody::InternalError,
        NoticeBody::ApplyInterrupted {
            project: "eks".into(),
        },
        NoticeBody::PlanSpent {
            project: "eks".into(),
        },
        NoticeBody::PlanAuthorRefused(PlanAuthorRefused {
            project: "db".into(),
            plan: AppliedPlan {
                run_id: 41,
                author: "bob".into(),
                flags: Some(vec!["-replace=aws_db_instance.main".into()]),
            },
            why: PlanRefusal::AuthorMayNotApply {
                denial: denial_below_minimum(),
            },
        }),
        NoticeBody::MergedUnapplied {
            roots: vec![crate::model::view::UnappliedRoot {
                project: "eks".into(),
                left: "planned, not applied".into(),
            }],
        },
        NoticeBody::DeployAck {
            result: crate::model::view::AckResult::Acknowledged,
            head_sha_short: "9c1b2d4".into(),
            user: "maya".into(),
        },
        policy::policy_blocked(),
        policy::policy_approval(),
    ];
    let bodies = bodies
        .into_iter()
        .chain(notes::new_notice_bodies())
        .chain([notes::affected_roots_incomplete()]);
    bodies
        .into_iter()
        .map(|body| Notice {
            meta: meta(30),
            body,
        })
        .collect()
}
