use serde_json::json;

use super::*;
use crate::terraform::ui_stream::parse_ui_stream;

fn version() -> String {
    json!({"@level": "info", "@message": "Terraform 1.9.8", "@module": "terraform.ui",
        "terraform": "1.9.8", "type": "version", "ui": "1.2"})
    .to_string()
}

fn hook(type_: &str, addr: &str, action: &str, elapsed: Option<f64>, ts: &str) -> String {
    let mut hook = json!({"resource": {"addr": addr, "module": "", "resource": addr,
        "implied_provider": "aws", "resource_type": addr.split('.').next().unwrap(),
        "resource_name": "x", "resource_key": null}, "action": action});
    if let Some(e) = elapsed {
        hook["elapsed_seconds"] = json!(e);
    }
    json!({"@level": "info", "@message": format!("{addr}: {type_}"), "@module": "terraform.ui",
        "@timestamp": ts, "hook": hook, "type": type_})
    .to_string()
}

fn planned(addr: &str, action: &str) -> String {
    json!({"@level": "info", "@message": format!("{addr}: Plan to {action}"), "type": "planned_change",
        "change": {"resource": {"addr": addr}, "action": action}})
    .to_string()
}

fn diagnostic(severity: &str, summary: &str, address: Option<&str>) -> String {
    let mut d = json!({"severity": severity, "summary": summary, "detail": ""});
    if let Some(a) = address {
        d["address"] = json!(a);
    }
    json!({"@level": if severity == "error" { "error" } else { "warn" },
        "@message": format!("Error: {summary}"), "@timestamp": "2024-05-01T10:00:09Z",
        "diagnostic": d, "type": "diagnostic"})
    .to_string()
}

fn summary(operation: &str, add: u64) -> String {
    json!({"@level": "info", "@message": "x", "type": "change_summary",
        "changes": {"add": add, "change": 0, "remove": 0, "operation": operation}})
    .to_string()
}

fn outcome(lines: &[String], planned: &[PlannedChangeRef]) -> ApplyOutcome {
    let text = std::iter::once(version())
        .chain(lines.iter().cloned())
        .collect::<Vec<_>>()
        .join("\n");
    apply_outcome(&parse_ui_stream(&text).unwrap(), planned)
}

fn find<'o>(o: &'o ApplyOutcome, addr: &str) -> &'o ResourceOutcome {
    o.resources.iter().find(|r| r.address == addr).unwrap()
}

const ACCESS_DENIED: &str = "creating IAM Role (r): operation error IAM: CreateRole, https response error StatusCode: 403, api error AccessDenied: denied";

#[test]
fn partial_failure_one_errored_one_done_one_never_started() {
    let o = outcome(
        &[
            planned("aws_s3_bucket.logs", "create"),
            planned("aws_iam_role.app", "create"),
            planned("aws_lambda_function.fn", "create"),
            summary("plan", 3),
            hook(
                "apply_start",
                "aws_s3_bucket.logs",
                "create",
                None,
                "2024-05-01T10:00:01Z",
            ),
            hook(
                "apply_start",
                "aws_iam_role.app",
                "create",
                None,
                "2024-05-01T10:00:01Z",
            ),
            hook(
                "apply_complete",
                "aws_s3_bucket.logs",
                "create",
                Some(2.0),
                "2024-05-01T10:00:03Z",
            ),
            hook(
                "apply_errored",
                "aws_iam_role.app",
                "create",
                Some(1.0),
                "2024-05-01T10:00:02Z",
            ),
            diagnostic("error", ACCESS_DENIED, Some("aws_iam_role.app")),
            diagnostic(
                "warning",
                "Argument is deprecated",
                Some("aws_s3_bucket.logs"),
            ),
        ],
        &[],
    );
    assert_eq!(find(&o, "aws_s3_bucket.logs").status, ResourceStatus::Done);
    assert_eq!(find(&o, "aws_s3_bucket.logs").elapsed_seconds, Some(2.0));
    let role = find(&o, "aws_iam_role.app");
    let ResourceStatus::Failed {
        failed_action,
        diagnostics,
        failed_at,
    } = &role.status
    else {
        panic!("role should have failed: {role:?}")
    };
    assert_eq!(*failed_action, Some(Action::Create));
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0].summary, ACCESS_DENIED);
    assert_eq!(failed_at.as_deref(), Some("2024-05-01T10:00:02Z"));
    let lambda = find(&o, "aws_lambda_function.fn");
    assert_eq!(
        (lambda.status.clone(), lambda.action),
        (ResourceStatus::NotReached, Some(Action::Create))
    );
    assert_eq!(o.warnings.len(), 1);
    assert!(o.unattached_diagnostics.is_empty());
    // The plan-phase summary is not the apply's.
    assert_eq!(o.change_summary, None);
    assert!(!o.succeeded());
    assert_eq!(o.failed().count(), 1);
}

#[test]
fn interleaved_resources_are_kept_apart() {
    let lines = [
        hook("apply_start", "aws_instance.web[0]", "create", None, "t1"),
        hook("apply_start", "aws_instance.web[1]", "create", None, "t1"),
        hook("apply_start", "aws_security_group.sg", "update", None, "t1"),
        hook(
            "apply_progress",
            "aws_instance.web[0]",
            "create",
            Some(10.0),
            "t2",
        ),
        hook(
            "apply_complete",
            "aws_security_group.sg",
            "update",
            Some(1.5),
            "t2",
        ),
        hook(
            "apply_progress",
            "aws_instance.web[1]",
            "create",
            Some(10.0),
            "t3",
        ),
        hook(
            "apply_errored",
            "aws_instance.web[1]",
            "create",
            Some(12.0),
            "t4",
        ),
        hook(
            "apply_progress",
            "aws_instance.web[0]",
            "create",
            Some(20.0),
            "t5",
        ),
        diagnostic(
            "error",
            "InsufficientInstanceCapacity",
            Some("aws_instance.web[1]"),
        ),
        hook(
            "apply_complete",
            "aws_instance.web[0]",
            "create",
            Some(25.0),
            "t6",
        ),
    ];
    let o = outcome(&lines, &[]);
    let statuses: Vec<(&str, Option<Action>, bool, Option<f64>)> = o
        .resources
        .iter()
        .map(|r| {
            (
                r.address.as_str(),
                r.action,
                r.status == ResourceStatus::Done,
                r.elapsed_seconds,
            )
        })
        .collect();
    assert_eq!(
        statuses,
        vec![
            (
                "aws_instance.web[0]",
                Some(Action::Create),
                true,
                Some(25.0)
            ),
            (
                "aws_instance.web[1]",
                Some(Action::Create),
                false,
                Some(12.0)
            ),
            (
                "aws_security_group.sg",
                Some(Action::Update),
                true,
                Some(1.5)
            ),
        ]
    );
    let ResourceStatus::Failed { diagnostics, .. } = &find(&o, "aws_instance.web[1]").status else {
        panic!("web[1] should have failed")
    };
    assert_eq!(diagnostics[0].summary, "InsufficientInstanceCapacity");
}

#[test]
fn interrupted_apply_leaves_started_resources() {
    let o = outcome(
        &[
            hook("apply_start", "aws_db_instance.db", "create", None, "t1"),
            hook(
                "apply_progress",
                "aws_db_instance.db",
                "create",
                Some(30.0),
                "t2",
            ),
            hook(
                "apply_progress",
                "aws_db_instance.db",
                "create",
                Some(40.0),
                "t3",
            ),
            json!({"@level": "info", "@message": "Interrupt received.", "type": "log"}).to_string(),
        ],
        &[PlannedChangeRef {
            address: "aws_db_instance.db".into(),
            action: Action::Create,
        }],
    );
    let db = find(&o, "aws_db_instance.db");
    assert_eq!(db.status, ResourceStatus::Started);
    assert_eq!(db.elapsed_seconds, Some(40.0));
    assert!(!o.succeeded());
}

#[test]
fn replace_needs_both_halves() {
    let planned = [PlannedChangeRef {
        address: "aws_instance.a".into(),
        action: Action::Replace,
    }];
    let half = outcome(
        &[
            hook("apply_start", "aws_instance.a", "delete", None, "t1"),
            hook(
                "apply_complete",
                "aws_instance.a",
                "delete",
                Some(3.0),
                "t2",
            ),
        ],
        &planned,
    );
    assert_eq!(
        find(&half, "aws_instance.a").status,
        ResourceStatus::Started
    );
    // Without a planned list the action is derived from the hooks.
    let full = outcome(
        &[
            hook("apply_start", "aws_instance.a", "create", None, "t1"),
            hook(
                "apply_complete",
                "aws_instance.a",
                "create",
                Some(3.0),
                "t2",
            ),
            hook("apply_start", "aws_instance.a", "delete", None, "t3"),
            hook(
                "apply_complete",
                "aws_instance.a",
                "delete",
                Some(1.0),
                "t4",
            ),
            summary("apply", 1),
        ],
        &[],
    );
    let a = find(&full, "aws_instance.a");
    assert_eq!(
        (a.action, &a.status, a.elapsed_seconds),
        (Some(Action::Replace), &ResourceStatus::Done, Some(4.0))
    );
    assert!(full.succeeded());
}

#[test]
fn diagnostics_attach_by_address_or_stay_unattached() {
    let config_error = json!({"@level": "error", "@message": "Error: Unsupported argument", "type": "diagnostic",
        "diagnostic": {"severity": "error", "summary": "Unsupported argument", "detail": "",
            "range": {"filename": "modules/x/main.tf", "start": {"line": 7, "column": 3, "byte": 90},
                      "end": {"line": 7, "column": 9, "byte": 96}}}})
    .to_string();
    let o = outcome(
        &[
            planned("aws_s3_bucket.b", "update"),
            // Error on a planned resource without any apply hook (e.g. failed while refreshing).
            diagnostic(
                "error",
                "reading S3 Bucket: AccessDenied",
                Some("aws_s3_bucket.b"),
            ),
            // Error on a resource the stream never mentioned.
            diagnostic(
                "error",
                "reading IAM Role: AccessDenied",
                Some("module.m.aws_iam_role.r[\"k\"]"),
            ),
            diagnostic(
                "error",
                "configuring provider",
                Some("provider[\"registry.terraform.io/hashicorp/aws\"]"),
            ),
            config_error,
        ],
        &[],
    );
    let b = find(&o, "aws_s3_bucket.b");
    assert!(matches!(
        &b.status,
        ResourceStatus::Failed {
            failed_action: Some(Action::Update),
            failed_at: Some(_),
            ..
        }
    ));
    let r = find(&o, "module.m.aws_iam_role.r[\"k\"]");
    assert!(matches!(
        &r.status,
        ResourceStatus::Failed {
            failed_action: None,
            ..
        }
    ));
    assert_eq!(r.action, None);
    let unattached: Vec<(&str, Option<u64>)> = o
        .unattached_diagnostics
        .iter()
        .map(|d| (d.summary.as_str(), d.range.as_ref().map(|r| r.start.line)))
        .collect();
    assert_eq!(
        unattached,
        vec![
            ("configuring provider", None),
            ("Unsupported argument", Some(7))
        ]
    );
}

#[test]
fn state_only_changes_complete_with_the_apply() {
    let planned = [
        PlannedChangeRef {
            address: "aws_s3_bucket.new_name".into(),
            action: Action::Move,
        },
        PlannedChangeRef {
            address: "aws_s3_bucket.imported".into(),
            action: Action::Import,
        },
    ];
    let finished = outcome(&[summary("apply", 0)], &planned);
    assert!(finished
        .resources
        .iter()
        .all(|r| r.status == ResourceStatus::Done));
    assert!(finished.succeeded());
    let failed = outcome(&[diagnostic("error", "state lock", None)], &planned);
    assert!(failed
        .resources
        .iter()
        .all(|r| r.status == ResourceStatus::NotReached));
    assert_eq!(failed.unattached_diagnostics.len(), 1);
}

#[test]
fn outputs_keep_names_and_sensitivity_only() {
    let o = outcome(
        &[
            json!({"@level": "info", "@message": "Outputs: 2", "type": "outputs", "outputs": {
            "db_password": {"sensitive": true, "type": "string", "value": "hunter2"},
            "url": {"sensitive": false, "type": "string", "value": "https://x"}}})
            .to_string(),
        ],
        &[],
    );
    assert_eq!(
        o.outputs,
        vec![
            OutputSummary {
                name: "db_password".into(),
                sensitive: true
            },
            OutputSummary {
                name: "url".into(),
                sensitive: false
            },
        ]
    );
    assert!(!serde_json::to_string(&o).unwrap().contains("hunter2"));
}

#[test]
fn incremental_tracker_matches_whole_stream() {
    let lines = [
        version(),
        planned("aws_s3_bucket.a", "create"),
        hook("apply_start", "aws_s3_bucket.a", "create", None, "t1"),
        "not json".to_string(),
        hook(
            "apply_complete",
            "aws_s3_bucket.a",
            "create",
            Some(1.0),
            "t2",
        ),
        summary("apply", 1),
    ];
    let mut tracker = ApplyTracker::new(&[]);
    for line in &lines {
        if let Some(message) = crate::terraform::parse_ui_line(line).unwrap() {
            tracker.observe(&message);
        }
    }
    let incremental = tracker.finish();
    let whole = apply_outcome(&parse_ui_stream(&lines.join("\n")).unwrap(), &[]);
    assert_eq!(incremental, whole);
    assert_eq!(incremental.non_json_lines, 1);
    assert_eq!(incremental.resources[0].status, ResourceStatus::Done);
}
