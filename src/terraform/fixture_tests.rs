//! Every real fixture parses, and the fields we rely on come out with their real values.

use serde_json::json;

use super::instance_key::InstanceKey;
use super::plan_expression::ExpressionNode;
use super::test_fixtures::{fixture, is_ui_stream, ALL};
use super::{
    parse_plan_json, parse_ui_stream, Action, FormatVersion, PathStep, PlanJson, Program, Severity,
    UiMessage, UiStream,
};

fn plan(name: &str) -> PlanJson<'static> {
    parse_plan_json(fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn stream(name: &str) -> UiStream {
    parse_ui_stream(fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn refs(node: &ExpressionNode) -> Vec<&str> {
    node.all_references()
}

/// (file, format or ui version, number of resource changes or stream messages)
const EXPECTED: &[(&str, &str, usize)] = &[
    (
        "bridgecrewio-checkov__plan_with_hcl_for_enrichment__tfplan.json",
        "0.1",
        3,
    ),
    (
        "hashicorp-terraform-json__013_module_depends_on__plan.json",
        "0.1",
        3,
    ),
    ("hashicorp-terraform-json__120_basic__plan.json", "1.1", 7),
    (
        "hashicorp-terraform-json__action_reason__plan.json",
        "1.2",
        1,
    ),
    ("hashicorp-terraform-json__basic__plan.json", "0.1", 8),
    ("hashicorp-terraform-json__has_checks__plan.json", "1.2", 2),
    (
        "hashicorp-terraform__apply-json-with-outputs__apply.log",
        "1.0",
        5,
    ),
    (
        "hashicorp-terraform__apply-json-with-provisioner-error__apply.log",
        "1.0",
        9,
    ),
    (
        "hashicorp-terraform__command-testdata-apply__output.jsonlog",
        "0.1",
        8,
    ),
    (
        "hashicorp-terraform__equivalence-drift_relevant_attributes__plan.json",
        "1.2",
        2,
    ),
    ("hashicorp-terraform__plan-json-error__plan.log", "1.0", 2),
    (
        "hashicorp-terraform__plan-json-full__plan-unredacted.json",
        "1.1",
        2,
    ),
    ("hashicorp-terraform__plan-json-full__plan.log", "1.0", 6),
    ("hashicorp-terraform__plan-json-policy__plan.log", "1.0", 7),
    (
        "hashicorp-terraform__show-json-plan-error__output.json",
        "1.2",
        0,
    ),
];

#[test]
fn every_fixture_parses_with_expected_version_and_size() {
    assert_eq!(EXPECTED.len(), ALL.len());
    for (name, version, size) in EXPECTED {
        let want = FormatVersion::parse(version).unwrap();
        if is_ui_stream(name) {
            let s = stream(name);
            assert_eq!(s.version.as_ref().map(|v| v.ui), Some(want), "{name}");
            assert_eq!(s.messages.len(), *size, "{name}");
            assert_eq!(s.non_json_lines(), 0, "{name}");
        } else {
            let p = plan(name);
            assert_eq!(p.format, want, "{name}");
            assert_eq!(p.resource_changes.len(), *size, "{name}");
            assert!(p.configuration.is_some(), "{name}");
            for rc in &p.resource_changes {
                assert!(rc.change.action().is_some(), "{name} {}", rc.address);
            }
        }
    }
}

#[test]
fn checkov_plan_variables_and_config_references() {
    let p = plan("bridgecrewio-checkov__plan_with_hcl_for_enrichment__tfplan.json");
    assert_eq!(p.terraform_version.as_deref(), Some("0.13.6"));
    assert_eq!(p.variables["aws_account_id"].value, json!("123456789101"));
    assert_eq!(p.variables.len(), 4);
    let config = p.configuration.as_ref().unwrap();
    let policy = config
        .root_module
        .resource("aws_iam_policy.policy")
        .unwrap();
    assert_eq!(policy.provider_config_key.as_deref(), Some("aws"));
    let exprs = policy.expressions();
    assert_eq!(refs(&exprs["name"]), vec!["var.aws_account_id"]);
    assert_eq!(refs(&exprs["policy"]), vec!["var.aws_account_id"]);
    let aws = &config.provider_config["aws"];
    assert_eq!(
        refs(&aws.expressions()["assume_role"]),
        vec!["var.aws_account_id"]
    );
    assert_eq!(
        config.provider_config["aws.current_region"]
            .alias
            .as_deref(),
        Some("current_region")
    );
    // Declared without default: supplied by the caller.
    assert_eq!(config.root_module.variables["aws_account_id"].default, None);
    let rc = &p.resource_changes[1];
    assert_eq!(rc.address, "aws_iam_policy.policy");
    assert_eq!(rc.change.action(), Some(Action::Create));
    assert!(rc.change.before.is_none());
    assert_eq!(
        rc.change.after_value().unwrap()["name"],
        json!("my_policy-995112413069")
    );
}

#[test]
fn module_depends_on_plan_module_call() {
    let p = plan("hashicorp-terraform-json__013_module_depends_on__plan.json");
    let config = p.configuration.as_ref().unwrap();
    let call = &config.root_module.module_calls["foo"];
    assert_eq!(call.source, "vancluever/module/null");
    assert_eq!(call.depends_on, vec!["null_resource.bar"]);
    let child = config.module(&["foo"]).unwrap();
    assert_eq!(child.variables["trigger"].default, Some(json!("one")));
    let resource = child.resource("null_resource.resource").unwrap();
    assert_eq!(
        refs(&resource.expressions()["triggers"]),
        vec!["var.trigger"]
    );
    assert!(child.resource("data.null_data_source.data").is_some());
    assert_eq!(child.outputs.len(), 2);
    assert_eq!(p.resource_changes[0].change.action(), Some(Action::Read));
    assert_eq!(
        p.resource_changes[0].module_address.as_deref(),
        Some("module.foo")
    );
    assert_eq!(p.resource_changes[0].mode, "data");
}

#[test]
fn basic_012_plan_short_provider_names_and_counts() {
    let p = plan("hashicorp-terraform-json__basic__plan.json");
    assert_eq!(p.resource_changes[1].provider_name, "null.aliased");
    assert_eq!(p.resource_changes[4].index, Some(InstanceKey::Int(0)));
    assert_eq!(p.output_changes.len(), 8);
    assert!(p.prior_state.is_some());
    assert!(p.planned_values_value().unwrap()["outputs"]["foo"]["sensitive"] == json!(true));
}

#[test]
fn tf12_plan_relevant_attributes_and_sensitive_outputs() {
    let p = plan("hashicorp-terraform-json__120_basic__plan.json");
    assert_eq!(p.relevant_attributes.len(), 1);
    assert_eq!(p.relevant_attributes[0].resource, "null_resource.foo");
    assert_eq!(
        p.relevant_attributes[0].attribute,
        vec![PathStep::Key("id".into())]
    );
    let config = p.configuration.as_ref().unwrap();
    let east = &config.provider_config["aws.east"];
    assert_eq!(
        east.full_name.as_deref(),
        Some("registry.terraform.io/hashicorp/aws")
    );
    assert_eq!(east.alias.as_deref(), Some("east"));
    let ExpressionNode::Expression(region) = &east.expressions()["region"] else {
        panic!("region should be an expression")
    };
    assert_eq!(region.constant_value, Some(json!("us-east-1")));
    let foo = &p.output_changes["foo"];
    assert_eq!(foo.after_sensitive.unwrap().get(), "true");
    assert_eq!(p.variables["number"].value, json!(42));
}

#[test]
fn action_reason_plan_replace_tainted() {
    let p = plan("hashicorp-terraform-json__action_reason__plan.json");
    let rc = &p.resource_changes[0];
    assert_eq!(rc.change.action(), Some(Action::Replace));
    assert_eq!(rc.action_reason.as_deref(), Some("replace_because_tainted"));
    assert_eq!((p.complete, p.applyable), (Some(true), None));
    assert_eq!(p.timestamp.as_deref(), Some("2026-06-16T10:21:47Z"));
    let config = p.configuration.as_ref().unwrap();
    assert_eq!(
        config.provider_config["null"].version_constraint.as_deref(),
        Some("~> 3.0")
    );
    assert!(
        p.prior_state_value().unwrap()["values"]["root_module"]["resources"][0]["tainted"]
            == json!(true)
    );
}

#[test]
fn has_checks_plan_for_each_and_module_inputs() {
    let p = plan("hashicorp-terraform-json__has_checks__plan.json");
    assert_eq!(
        p.resource_changes[0].index,
        Some(InstanceKey::Str("file1.txt".into()))
    );
    let checks = p.checks.as_ref().unwrap();
    assert_eq!(checks[0]["status"], json!("pass"));
    let config = p.configuration.as_ref().unwrap();
    let call = &config.root_module.module_calls["files"];
    let ExpressionNode::Expression(file_names) = &call.expressions()["file_names"] else {
        panic!("file_names should be an expression")
    };
    assert_eq!(
        file_names.constant_value,
        Some(json!(["file1.txt", "file2.txt"]))
    );
    let resource = call.module.resource("local_file.foo").unwrap();
    let by_instance = config
        .resource_for_instance(&p.resource_changes[1].address)
        .unwrap();
    assert!(std::ptr::eq(resource, by_instance));
    assert_eq!(
        resource.for_each_expression().unwrap().references,
        vec!["var.file_names"]
    );
    assert_eq!(
        call.module.variables["file_names"].default,
        Some(json!(["file1.txt"]))
    );
    assert_eq!(
        config.provider_config["module.files:local"]
            .module_address
            .as_deref(),
        Some("module.files")
    );
}

#[test]
fn drift_plan_without_terraform_version() {
    let p = plan("hashicorp-terraform__equivalence-drift_relevant_attributes__plan.json");
    assert_eq!(p.terraform_version, None);
    assert_eq!(p.resource_drift.len(), 1);
    assert_eq!(
        p.resource_drift[0].address,
        "tfcoremock_simple_resource.base"
    );
    assert_eq!(
        p.relevant_attributes[0].attribute,
        vec![PathStep::Key("string".into())]
    );
    let dependent = p
        .configuration
        .as_ref()
        .unwrap()
        .root_module
        .resource("tfcoremock_simple_resource.dependent")
        .unwrap();
    assert_eq!(
        refs(&dependent.expressions()["string"]),
        vec![
            "tfcoremock_simple_resource.base.string",
            "tfcoremock_simple_resource.base"
        ]
    );
}

#[test]
fn errored_plan_has_no_changes() {
    let p = plan("hashicorp-terraform__show-json-plan-error__output.json");
    assert!(p.errored);
    assert!(p.resource_changes.is_empty());
    let resource = p
        .configuration
        .as_ref()
        .unwrap()
        .root_module
        .resource("test_instance.test")
        .unwrap();
    assert_eq!(refs(&resource.expressions()["ami"]), vec!["local.ami"]);
}

#[test]
fn provisioner_error_apply_log_joins_diagnostic() {
    let s = stream("hashicorp-terraform__apply-json-with-provisioner-error__apply.log");
    let version = s.version.as_ref().unwrap();
    assert_eq!(
        (version.program, version.program_version.as_str()),
        (Program::Terraform, "1.3.7")
    );
    let errored = s.messages.iter().find_map(|m| match m {
        UiMessage::ApplyErrored { hook, .. } => Some(hook),
        _ => None,
    });
    let errored = errored.unwrap();
    assert_eq!(errored.resource.addr, "null_resource.foo");
    assert_eq!(errored.action(), Some(Action::Create));
    assert_eq!(errored.elapsed_seconds, Some(0.0));
    let (meta, diagnostic) = s.diagnostics().next().unwrap();
    assert_eq!(meta.level.as_deref(), Some("error"));
    assert_eq!(
        meta.timestamp.as_deref(),
        Some("2023-02-16T10:13:14.761681-05:00")
    );
    assert_eq!(
        diagnostic.address.as_deref(),
        Some(errored.resource.addr.as_str())
    );
    assert_eq!(diagnostic.summary, "local-exec provisioner error");
    let range = diagnostic.range.as_ref().unwrap();
    assert_eq!(
        (
            range.filename.as_str(),
            range.start.line,
            range.start.column,
            range.start.byte
        ),
        ("main.tf", 2, 28, 60)
    );
    let snippet = diagnostic.snippet.as_ref().unwrap();
    assert_eq!(
        snippet.context.as_deref(),
        Some("resource \"null_resource\" \"foo\"")
    );
    assert_eq!(snippet.start_line, 2);
    let provisions = s
        .messages
        .iter()
        .filter(|m| {
            matches!(
                m,
                UiMessage::ProvisionStart { .. }
                    | UiMessage::ProvisionProgress { .. }
                    | UiMessage::ProvisionErrored { .. }
            )
        })
        .count();
    assert_eq!(provisions, 3);
}

#[test]
fn plan_error_log_has_addressless_diagnostic() {
    let s = stream("hashicorp-terraform__plan-json-error__plan.log");
    let (_, diagnostic) = s.diagnostics().next().unwrap();
    assert_eq!(diagnostic.severity, Severity::Error);
    assert_eq!(diagnostic.address, None);
    assert_eq!(diagnostic.summary, "Unsupported block type");
    let range = diagnostic.range.as_ref().unwrap();
    assert_eq!(
        (range.filename.as_str(), range.start.line, range.end.column),
        ("main.tf", 2, 11)
    );
    assert_eq!(diagnostic.snippet.as_ref().unwrap().code, "  triggers {");
}

#[test]
fn plan_full_log_refresh_and_planned_changes() {
    let s = stream("hashicorp-terraform__plan-json-full__plan.log");
    let UiMessage::RefreshStart { hook, .. } = &s.messages[1] else {
        panic!(
            "second message should be refresh_start: {:?}",
            s.messages[1]
        )
    };
    assert_eq!(hook.id_value.as_deref(), Some("my-simple-resource"));
    assert!(matches!(s.messages[2], UiMessage::RefreshComplete { .. }));
    let UiMessage::PlannedChange { change, .. } = &s.messages[3] else {
        panic!("expected planned_change")
    };
    assert_eq!(change.resource.resource_type, "tfcoremock_simple_resource");
    assert_eq!(change.action(), Some(Action::Update));
    let summary = s.change_summary().unwrap();
    assert_eq!(
        (
            summary.add,
            summary.change,
            summary.remove,
            summary.operation.as_str()
        ),
        (1, 1, 0, "plan")
    );
}

#[test]
fn policy_log_unknown_types_are_tolerated() {
    let s = stream("hashicorp-terraform__plan-json-policy__plan.log");
    let others: Vec<&str> = s
        .messages
        .iter()
        .filter_map(|m| match m {
            UiMessage::Other { type_, .. } => Some(type_.as_str()),
            _ => None,
        })
        .collect();
    // refresh_start without a hook degrades to Other, like the policy_* lines.
    assert_eq!(
        others,
        vec![
            "refresh_start",
            "policy_info",
            "policy_result",
            "policy_diagnostic"
        ]
    );
    let policy_diag = s.messages.last().unwrap().meta().unwrap();
    assert_eq!(policy_diag.level.as_deref(), Some("error"));
    assert_eq!(s.diagnostics().count(), 0);
}

#[test]
fn apply_with_outputs_log_keeps_no_output_values() {
    let s = stream("hashicorp-terraform__apply-json-with-outputs__apply.log");
    let UiMessage::Outputs { outputs, .. } = s.messages.last().unwrap() else {
        panic!("last message should be outputs")
    };
    let names: Vec<(&str, bool)> = outputs
        .iter()
        .map(|(n, o)| (n.as_str(), o.sensitive))
        .collect();
    assert_eq!(
        names,
        vec![("complex", false), ("secret", true), ("simple", false)]
    );
    let serialized = serde_json::to_string(&s).unwrap();
    assert!(!serialized.contains("my-secret"));
    let UiMessage::ApplyComplete { hook, .. } = &s.messages[2] else {
        panic!("expected apply_complete")
    };
    assert_eq!(hook.id_value.as_deref(), Some("7091618264040236234"));
}

#[test]
fn golden_apply_log_without_timestamps() {
    let s = stream("hashicorp-terraform__command-testdata-apply__output.jsonlog");
    assert!(s
        .messages
        .iter()
        .all(|m| m.meta().unwrap().timestamp.is_none()));
    let (meta, diagnostic) = s.diagnostics().next().unwrap();
    assert_eq!(meta.level.as_deref(), Some("warn"));
    assert_eq!(diagnostic.severity, Severity::Warning);
    assert_eq!(diagnostic.summary, "Deprecated flag: -state");
    let summary = s.change_summary().unwrap();
    assert_eq!(
        (
            summary.add,
            summary.import,
            summary.action_invocation,
            summary.operation.as_str()
        ),
        (1, 0, 0, "apply")
    );
}
