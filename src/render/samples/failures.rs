//! Sample plans of the failures tfgate names itself: a plan-time denial of the plan role, an
//! endpoint off the egress allowlist, a provider off the policy's `providers`.

use super::{eks_root, meta};
use crate::classify::{Refusal, RoleKind};
use crate::enrich::{enrichment_view, DeniedCall, EnrichmentSource, EnrichmentState};
use crate::model::view::*;
use crate::redact::{Placeholders, Redactor};
use crate::render::from_outcome::{name_denied_role, refusal_plan, RootIdent};

fn redactor() -> Redactor {
    Redactor::new(&Default::default()).expect("built-in rules")
}

fn plan_of(pr: u64, root: RootPlan) -> PlanComment {
    PlanComment {
        meta: meta(pr),
        repo_root_summaries: vec![root],
        drift_warnings: vec![],
        denials: vec![],
        notes: vec![],
        still_planning: Vec::new(),
    }
}

/// The plan role may not read the VPC the root looks up; CloudTrail confirmed the action.
pub fn plan_denied_at_plan_time() -> PlanComment {
    let mut root = eks_root(PlanStatus::Failed, PlanCounts::default());
    let c = crate::classify::Category::PermissionMissing;
    root.errors = vec![FailureRow {
        address: Some("data.aws_vpc.main".into()),
        aws_code: Some("UnauthorizedOperation".into()),
        category_id: c.id().into(),
        category_label: c.label().into(),
        iam_action: Some("ec2:DescribeVpcs".into()),
        location: None,
    }];
    root.advice = vec![AdviceView {
        category_id: c.id().into(),
        label: c.label().into(),
        advice: c.advice().into(),
    }];
    let arn = "arn:aws:iam::111111111111:role/tfgate-plan";
    name_denied_role(&mut root.advice, RoleKind::Plan, arn, &redactor());
    let failure = crate::enrich::FailureToEnrich {
        address: "data.aws_vpc.main".into(),
        permission_missing: true,
        aws_code: Some("UnauthorizedOperation".into()),
        failed_at: "2024-08-01T11:30:23Z".into(),
        ..Default::default()
    };
    let call = DeniedCall {
        iam_action: "ec2:DescribeVpcs".into(),
        error_code: Some("Client.UnauthorizedOperation".into()),
        deny_kind: Some(crate::classify::DenyKind::Implicit),
        resource_type: None,
        resource_name_redacted: None,
        source: EnrichmentSource::CloudTrail,
    };
    let found = EnrichmentState::Found(call);
    let view = enrichment_view(&failure, &failure.address, None, &found, &redactor());
    root.denials = vec![view.for_plan_role()];
    plan_of(21, root)
}

fn ident() -> RootIdent {
    RootIdent {
        project: "eks".into(),
        dir: "infra/eks".into(),
        workspace: "default".into(),
    }
}

/// The S3 backend's endpoint (moto on loopback) is not on the egress allowlist.
pub fn plan_egress_blocked() -> PlanComment {
    let refusal = Refusal::EgressBlocked {
        endpoint: Some("127.0.0.1:9000".into()),
    };
    let root = refusal_plan(&ident(), &refusal, &redactor(), &mut Placeholders::new());
    plan_of(22, root)
}

/// The root needs `hashicorp/aws`; the policy's `providers` lists only `tfgate/*`.
pub fn plan_provider_not_allowed() -> PlanComment {
    let refusal = Refusal::ProviderNotAllowed {
        source: "registry.terraform.io/hashicorp/aws".into(),
    };
    let root = refusal_plan(&ident(), &refusal, &redactor(), &mut Placeholders::new());
    plan_of(23, root)
}
