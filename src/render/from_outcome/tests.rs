use super::*;
use crate::model::view::{ApplyComment, CommentMeta, PlanComment};
use crate::redact::RedactionConfig;
use crate::render::Renderer;
use crate::terraform::{
    apply_outcome, parse_plan_json, parse_ui_stream, plan_summary, ApplyContext, PlanReferences,
};

const APPLY: &str = include_str!("../../../tests/fixtures/tf-real/apply.jsonl");
const PLAN: &str = include_str!("../../../tests/fixtures/tf-real/plan.json");

fn root() -> RootIdent {
    RootIdent {
        project: "eks".into(),
        dir: "infra/eks".into(),
        workspace: "default".into(),
    }
}

fn meta() -> CommentMeta {
    CommentMeta {
        pr: 7,
        marker_root: "eks".into(),
        run_id: "r-1".into(),
        head_sha_short: Some("abc1234".into()),
        command_by: Some("alice".into()),
        check_run_url: None,
    }
}

#[test]
fn partial_failure_from_real_terraform_names_code_category_and_action_only() {
    let redactor = Redactor::new(&RedactionConfig::default()).unwrap();
    let mut ph = Placeholders::new();
    let plan = parse_plan_json(PLAN).unwrap();
    let summary = plan_summary(&plan);
    let stream = parse_ui_stream(APPLY).unwrap();
    let outcome = apply_outcome(&stream, &summary.change_refs());
    let model = apply_root(
        &root(),
        &outcome,
        &ApplyContext::new(&stream, &PlanReferences::default()),
        &redactor,
        &mut ph,
    );
    assert_eq!(model.status, ApplyStatus::PartiallyFailed);
    assert_eq!((model.counts.done, model.counts.failed), (2, 1));
    let failed = model
        .rows
        .iter()
        .find(|r| r.result == ApplyResult::Failed)
        .unwrap();
    assert_eq!(failed.aws_code.as_deref(), Some("AccessDenied"));
    assert_eq!(failed.category_id.as_deref(), Some("permission_missing"));
    assert_eq!(failed.iam_action.as_deref(), Some("iam:GetRole"));
    assert_eq!(model.advice.len(), 1);
    let md = Renderer::new()
        .unwrap()
        .render_apply(&ApplyComment {
            meta: meta(),
            roots: vec![model],
            notes: vec![],
        })
        .unwrap();
    for leak in [
        "arn:aws",
        "XPTO",
        "myemail",
        "99222140",
        "is not authorized to perform",
        "on resource: role",
        "status code",
    ] {
        assert!(!md.contains(leak), "{leak} leaked into:\n{md}");
    }
    assert!(md.contains("iam:GetRole") && md.contains("AccessDenied"));
    // Issue 7: the denial is explained, the role named by type only (its name is provider text).
    assert!(
        md.contains("**Missing permissions**") && md.contains("on `role (name in the run log)`"),
        "{md}"
    );
    assert!(md.contains(r#""Resource": "<role/*…>""#), "{md}");
}

#[test]
fn plan_values_are_redacted_and_sensitive_hidden() {
    let redactor = Redactor::new(&RedactionConfig {
        secret_values: vec!["hunter2-very-secret".into()],
        ..Default::default()
    })
    .unwrap();
    let mut ph = Placeholders::new();
    let plan = parse_plan_json(PLAN).unwrap();
    let model = plan_root(&root(), &plan_summary(&plan), &redactor, &mut ph);
    assert_eq!(model.status, PlanStatus::Changes);
    assert!(model.counts.add > 0);
    let md = Renderer::new()
        .unwrap()
        .render_plan(&PlanComment {
            meta: meta(),
            repo_root_summaries: vec![model],
            drift_warnings: vec![],
            denials: vec![],
            notes: vec![],
            still_planning: Vec::new(),
        })
        .unwrap();
    assert!(md.contains("fake_thing"), "{md}");
    assert!(!md.contains("hunter2-very-secret"));
}

#[test]
fn addressless_errors_become_configuration_rows() {
    let stream = parse_ui_stream(include_str!(
        "../../../tests/fixtures/tf-json/hashicorp-terraform__plan-json-error__plan.log"
    ))
    .unwrap();
    let outcome = apply_outcome(&stream, &[]);
    let redactor = Redactor::new(&RedactionConfig::default()).unwrap();
    let model = apply_root(
        &root(),
        &outcome,
        &ApplyContext::default(),
        &redactor,
        &mut Placeholders::new(),
    );
    assert_eq!(model.config_errors.len(), 1);
    assert_eq!(
        model.config_errors[0].summary_category,
        Category::ConfigurationError.label()
    );
    assert!(model.config_errors[0].line > 0);
    assert_eq!(model.status, ApplyStatus::Failed);
}

#[test]
fn only_word_shaped_codes_are_posted() {
    let redactor = Redactor::new(&RedactionConfig::default()).unwrap();
    let mut ph = Placeholders::new();
    let posted = [
        "AccessDenied",
        "Client.UnauthorizedOperation",
        "InvalidAMIID.NotFound",
        "KMSInvalidStateException",
        "DBClusterNotFoundFault",
        "Route53ResolverException",
    ];
    for code in posted {
        assert_eq!(
            safe_code(Some(code.into()), &redactor, &mut ph).as_deref(),
            Some(code)
        );
    }
    let refused = [
        "AccessDen123456789012ied",
        "Lim10.0.0.1itExceeded",
        "ThrottAKIAIOSFODNN7EXAMPLEling",
        "Client.",
        "4xx",
        "Access_Denied",
    ];
    for code in refused {
        assert_eq!(
            safe_code(Some(code.into()), &redactor, &mut ph),
            None,
            "{code}"
        );
    }
}

#[test]
fn only_known_service_actions_are_posted() {
    let redactor = Redactor::new(&RedactionConfig {
        secret_values: vec!["KnownValue".into()],
        ..Default::default()
    })
    .unwrap();
    for action in [
        "iam:GetRole",
        "ec2:RunInstances",
        "s3:*",
        "ec2:Describe*",
        "kms:Decrypt",
    ] {
        assert_eq!(
            safe_action(Some(action.into()), &redactor).as_deref(),
            Some(action)
        );
    }
    for action in [
        "arn:aws",
        "a:A",
        "fe80:Abcd",
        "ec2:",
        "ec2:1abc",
        "notaservice:GetRole",
    ] {
        assert_eq!(
            safe_action(Some(action.into()), &redactor),
            None,
            "{action}"
        );
    }
}

#[test]
fn a_stale_saved_plan_from_real_terraform_is_plan_stale_with_its_advice() {
    let stream = include_str!("../../../tests/fixtures/tf-real/apply-stale-plan.jsonl");
    let redactor = Redactor::new(&RedactionConfig::default()).unwrap();
    let mut ph = Placeholders::new();
    let model = apply_model(
        &root(),
        true,
        "",
        Some(stream),
        &[],
        &PlanReferences::default(),
        &redactor,
        &mut ph,
    );
    assert_eq!(model.status, ApplyStatus::Failed);
    let categories: Vec<&str> = model
        .config_errors
        .iter()
        .map(|e| e.summary_category.as_str())
        .collect();
    assert_eq!(categories, ["plan stale"], "{model:#?}");
    assert_eq!(model.advice.len(), 1);
    assert!(
        model.advice[0].advice.contains("run `/plan`"),
        "{:?}",
        model.advice
    );
}
