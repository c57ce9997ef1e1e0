//! Attribution over the real plan fixtures, and planted scenarios built by editing them.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use super::*;
use crate::input_drift::fingerprint::fingerprint;
use crate::input_drift::status::InputStatus;
use crate::input_drift::warnings::drift_warnings;
use crate::input_drift::{input_drift_gate, InputDriftGate, OnInputDrift};
use crate::terraform::parse_plan_json;

const CHECKOV: &str = include_str!(
    "../../tests/fixtures/tf-json/bridgecrewio-checkov__plan_with_hcl_for_enrichment__tfplan.json"
);
const HAS_CHECKS: &str =
    include_str!("../../tests/fixtures/tf-json/hashicorp-terraform-json__has_checks__plan.json");
const MODULE_DEPENDS_ON: &str = include_str!(
    "../../tests/fixtures/tf-json/hashicorp-terraform-json__013_module_depends_on__plan.json"
);
const DRIFT: &str = include_str!(
    "../../tests/fixtures/tf-json/hashicorp-terraform__equivalence-drift_relevant_attributes__plan.json"
);
const BASIC: &str =
    include_str!("../../tests/fixtures/tf-json/hashicorp-terraform-json__basic__plan.json");
const BASIC_120: &str =
    include_str!("../../tests/fixtures/tf-json/hashicorp-terraform-json__120_basic__plan.json");
const ACTION_REASON: &str =
    include_str!("../../tests/fixtures/tf-json/hashicorp-terraform-json__action_reason__plan.json");
const FULL: &str = include_str!(
    "../../tests/fixtures/tf-json/hashicorp-terraform__plan-json-full__plan-unredacted.json"
);
const REAL: &str = include_str!("../../tests/fixtures/tf-real/plan.json");

/// Everything a scenario varies besides the plan.
struct Setup {
    /// (input name, root variable)
    inputs: Vec<(&'static str, &'static str)>,
    /// Input names whose value changed since the last apply.
    changed: Vec<&'static str>,
    /// Input names whose lock entry this PR bumps.
    bumped: Vec<&'static str>,
    pr_files: Vec<&'static str>,
    root_dir: &'static str,
    hcl: HclIndex,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            inputs: vec![("ADMIN_CIDRS", "admin_cidrs")],
            changed: vec!["ADMIN_CIDRS"],
            bumped: vec![],
            pr_files: vec![],
            root_dir: "",
            hcl: HclIndex::default(),
        }
    }
}

fn run_text(text: &str, setup: &Setup) -> DriftReport {
    let plan = parse_plan_json(text).unwrap();
    let shared: Vec<SharedInputRef> = setup
        .inputs
        .iter()
        .map(|(name, variable)| SharedInputRef {
            name: name.to_string(),
            variable: variable.to_string(),
        })
        .collect();
    let changed: BTreeSet<String> = shared
        .iter()
        .filter(|i| setup.changed.contains(&i.name.as_str()))
        .map(|i| i.variable.clone())
        .collect();
    let bumped: BTreeSet<String> = setup.bumped.iter().map(|s| s.to_string()).collect();
    let pr_files: Vec<String> = setup.pr_files.iter().map(|s| s.to_string()).collect();
    let ctx = AttributionContext {
        shared_inputs: &shared,
        changed_inputs: &changed,
        lock_bumped_inputs: &bumped,
        pr_files: &pr_files,
        root_dir: setup.root_dir,
        hcl: &setup.hcl,
    };
    attribute_changes(&plan, &ctx)
}

fn run(plan: &Value, setup: &Setup) -> DriftReport {
    run_text(&plan.to_string(), setup)
}

fn value(text: &str) -> Value {
    serde_json::from_str(text.trim_start_matches('\u{feff}')).unwrap()
}

fn change<'r>(report: &'r DriftReport, address: &str) -> &'r ChangeAttribution {
    report
        .changes
        .iter()
        .find(|c| c.address == address)
        .unwrap_or_else(|| panic!("no change {address}: {:#?}", report.changes))
}

fn cause<'c>(change: &'c ChangeAttribution, via: &str) -> &'c CauseTrace {
    change
        .causes
        .iter()
        .find(|c| c.via == via)
        .unwrap_or_else(|| panic!("{}: no cause {via}: {:#?}", change.address, change.causes))
}

fn drift(inputs: &[&str]) -> Verdict {
    Verdict::SharedInputDrift {
        inputs: inputs.iter().map(|s| s.to_string()).collect(),
    }
}

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

// ------------------------------------------------------------------ real fixtures

fn checkov_setup(changed: bool) -> Setup {
    Setup {
        inputs: vec![("ACCOUNT_ID", "aws_account_id")],
        changed: if changed { vec!["ACCOUNT_ID"] } else { vec![] },
        ..Setup::default()
    }
}

#[test]
fn checkov_policy_name_and_policy_come_from_the_account_variable() {
    let report = run_text(CHECKOV, &checkov_setup(true));
    let policy = change(&report, "aws_iam_policy.policy");
    assert!(policy.attribute_paths.contains(&"name".to_string()));
    assert!(policy.attribute_paths.contains(&"policy".to_string()));
    assert_eq!(
        cause(policy, "name").root_variables,
        strings(&["aws_account_id"])
    );
    assert_eq!(
        cause(policy, "policy").root_variables,
        strings(&["aws_account_id"])
    );
    assert!(policy.causes.iter().all(|c| c.via != "description"));
    // The provider's assume_role.role_arn references the same variable (and region var.region).
    assert_eq!(
        cause(policy, "provider aws").root_variables,
        strings(&["aws_account_id", "region"])
    );
    assert_eq!(policy.verdict, drift(&["ACCOUNT_ID"]));
    assert_eq!(
        policy.changed_input_paths["ACCOUNT_ID"],
        strings(&["name", "policy", "provider aws"])
    );
}

#[test]
fn checkov_attribution_does_not_rely_on_equal_values() {
    // The fixture was hand-edited: `after.name` holds 995112413069, the variable holds
    // 123456789101. Attribution still follows the reference.
    let plan = value(CHECKOV);
    assert_eq!(plan["variables"]["aws_account_id"]["value"], "123456789101");
    let policy_after = &plan["resource_changes"][1]["change"]["after"];
    assert!(policy_after["name"]
        .as_str()
        .unwrap()
        .contains("995112413069"));
    assert!(!policy_after["name"]
        .as_str()
        .unwrap()
        .contains("123456789101"));
    let report = run(&plan, &checkov_setup(true));
    assert_eq!(
        cause(change(&report, "aws_iam_policy.policy"), "name").root_variables,
        strings(&["aws_account_id"])
    );

    // Conversely, a value equal to the variable's value but set by a constant is not
    // attributed to it.
    let mut plan = value(CHECKOV);
    plan["resource_changes"][0]["change"]["after"]["name"] = json!("123456789101");
    let report = run(&plan, &checkov_setup(true));
    let table = change(&report, "aws_dynamodb_table.cross-environment-violations");
    assert!(table.attribute_paths.contains(&"name".to_string()));
    assert!(table.causes.iter().all(|c| c.via != "name"));
}

#[test]
fn checkov_other_resources_reach_the_account_only_through_their_provider() {
    let report = run_text(CHECKOV, &checkov_setup(true));
    for address in [
        "aws_dynamodb_table.cross-environment-violations",
        "aws_s3_bucket.test-bucket1",
    ] {
        let c = change(&report, address);
        assert_eq!(
            c.changed_input_paths["ACCOUNT_ID"],
            strings(&["provider aws.current_region"]),
            "{address}"
        );
        assert_eq!(c.verdict, drift(&["ACCOUNT_ID"]));
    }
    // The same plan with the input unchanged: nothing is flagged, nothing explains it.
    let report = run_text(CHECKOV, &checkov_setup(false));
    assert_eq!(report.changes.len(), 3);
    for c in &report.changes {
        assert_eq!(c.inputs, strings(&["ACCOUNT_ID"]));
        assert!(c.changed_inputs.is_empty());
        assert_eq!(c.verdict, Verdict::OutsideDiff, "{}", c.address);
    }
    assert!(report.drifted_inputs().is_empty());
}

#[test]
fn has_checks_for_each_ends_in_a_module_call_constant() {
    let report = run_text(HAS_CHECKS, &Setup::default());
    assert_eq!(report.changes.len(), 2);
    let file1 = change(&report, r#"module.files.local_file.foo["file1.txt"]"#);
    // for_each = var.file_names → the call's constant_value; filename = each.value → the
    // same: both end in constants, so no cause leads anywhere.
    assert!(file1.attribute_paths.contains(&"filename".to_string()));
    assert!(file1.causes.is_empty(), "{:#?}", file1.causes);
    assert!(file1.unresolved.is_empty());
    assert_eq!(file1.verdict, Verdict::OutsideDiff);

    // Files of the module's source directory explain it; so does the calling file.
    for (pr_file, explained) in [
        ("child_module/main.tf", true),
        ("main.tf", true),
        ("other/main.tf", false),
        ("README.md", false),
    ] {
        let setup = Setup {
            pr_files: vec![pr_file],
            ..Setup::default()
        };
        let report = run_text(HAS_CHECKS, &setup);
        let c = change(&report, r#"module.files.local_file.foo["file2.txt"]"#);
        assert_eq!(
            c.verdict == Verdict::ExplainedByDiff,
            explained,
            "{pr_file}"
        );
        assert_eq!(c.explained_by_diff.is_some(), explained, "{pr_file}");
    }
}

#[test]
fn module_depends_on_child_default_is_no_input() {
    let setup = Setup {
        inputs: vec![("TRIGGER", "trigger")],
        changed: vec!["TRIGGER"],
        ..Setup::default()
    };
    let report = run_text(MODULE_DEPENDS_ON, &setup);
    // The data source read is not a change.
    let addresses: Vec<&str> = report.changes.iter().map(|c| c.address.as_str()).collect();
    assert_eq!(
        addresses,
        vec!["module.foo.null_resource.resource", "null_resource.bar"]
    );
    let resource = change(&report, "module.foo.null_resource.resource");
    // triggers = var.trigger inside the module; the call does not set it: the default applies.
    assert!(resource.attribute_paths.contains(&"triggers".to_string()));
    assert!(resource.causes.is_empty());
    assert!(resource.inputs.is_empty());
    assert_eq!(resource.verdict, Verdict::OutsideDiff);
    // A root variable with the child's variable name is not the child's variable.
    assert!(report
        .warnings
        .contains(&DriftWarningLine::InputNotDeclared {
            input: "TRIGGER".into(),
            variable: "trigger".into()
        }));
    // The module is remote: a change in the root's files explains it only via the call.
    let setup = Setup {
        pr_files: vec!["main.tf"],
        ..Setup::default()
    };
    let report = run_text(MODULE_DEPENDS_ON, &setup);
    assert_eq!(
        change(&report, "module.foo.null_resource.resource")
            .explained_by_diff
            .as_deref(),
        Some("main.tf")
    );
}

#[test]
fn drift_relevant_attributes_dependent_is_explained_by_resource_drift() {
    let report = run_text(DRIFT, &Setup::default());
    let dependent = change(&report, "tfcoremock_simple_resource.dependent");
    assert_eq!(dependent.attribute_paths, strings(&["string"]));
    assert_eq!(
        cause(dependent, "string").drifted_resources,
        strings(&["tfcoremock_simple_resource.base"])
    );
    assert_eq!(
        dependent.verdict,
        Verdict::ExplainedByResourceDrift {
            resources: strings(&["tfcoremock_simple_resource.base"])
        }
    );
    // `base` itself drifted too.
    let base = change(&report, "tfcoremock_simple_resource.base");
    assert_eq!(
        base.drifted_resources,
        strings(&["tfcoremock_simple_resource.base"])
    );
    // Without the drift record, nothing explains the dependent.
    let mut plan = value(DRIFT);
    plan["resource_drift"] = json!([]);
    let report = run(&plan, &Setup::default());
    assert_eq!(
        change(&report, "tfcoremock_simple_resource.dependent").verdict,
        Verdict::OutsideDiff
    );
}

#[test]
fn real_plan_role_reaches_its_variable_and_the_bucket_does_not() {
    let setup = Setup {
        inputs: vec![("ROLE_FAIL_WITH", "role_fail_with")],
        changed: vec!["ROLE_FAIL_WITH"],
        ..Setup::default()
    };
    let report = run_text(REAL, &setup);
    let role = change(&report, "fake_thing.role");
    assert_eq!(role.verdict, drift(&["ROLE_FAIL_WITH"]));
    assert_eq!(
        role.changed_input_paths["ROLE_FAIL_WITH"],
        strings(&["fail_with"])
    );
    // bucket.depends_value ← fake_thing.network.id (computed) ← all of network: constants.
    let bucket = change(&report, "fake_thing.bucket");
    assert!(bucket.inputs.is_empty());
    assert_eq!(bucket.verdict, Verdict::OutsideDiff);
    assert_eq!(report.drifted_inputs(), strings(&["ROLE_FAIL_WITH"]));
}

#[test]
fn every_plan_fixture_gets_a_verdict_per_change() {
    let cases: &[(&str, usize)] = &[
        (CHECKOV, 3),
        (HAS_CHECKS, 2),
        (MODULE_DEPENDS_ON, 2),
        (DRIFT, 2),
        (BASIC, 7),
        (BASIC_120, 7),
        (ACTION_REASON, 1),
        (FULL, 2),
        (REAL, 3),
    ];
    for (text, changes) in cases {
        let report = run_text(text, &Setup::default());
        assert_eq!(report.changes.len(), *changes);
        assert!(report.drifted_inputs().is_empty());
    }
}

#[test]
fn basic_plan_follows_resource_references_and_old_provider_keys() {
    let report = run_text(BASIC, &Setup::default());
    // null_resource.bar.triggers ← null_resource.foo (planned create) ← constant.
    // null_resource.bar.triggers ← null_resource.foo (planned create) ← constant.
    let bar = change(&report, "null_resource.bar");
    assert!(bar.attribute_paths.contains(&"triggers".to_string()));
    assert!(bar.causes.is_empty() && bar.unresolved.is_empty());
    assert_eq!(bar.verdict, Verdict::OutsideDiff);
    // With `null_resource.foo` drifted, bar and every baz instance are explained by it.
    let mut plan = value(BASIC);
    plan["resource_drift"] = json!([{"address": "null_resource.foo", "mode": "managed",
        "type": "null_resource", "name": "foo",
        "change": {"actions": ["update"], "before": {"id": "1"}, "after": {"id": "2"}}}]);
    let report = run(&plan, &Setup::default());
    for address in ["null_resource.bar", "null_resource.baz[2]"] {
        assert_eq!(
            change(&report, address).verdict,
            Verdict::ExplainedByResourceDrift {
                resources: strings(&["null_resource.foo"])
            },
            "{address}"
        );
    }
    // `foo:null.aliased` (0.13 key, module_address "foo") resolves in module foo's frame:
    // `var.one` there is the call's `one`, set here from the root's `var.admin_cidrs`; a
    // reference to `var.admin_cidrs` inside foo is foo's own (unset → default) variable.
    for (provider_ref, reaches) in [("var.one", true), ("var.admin_cidrs", false)] {
        let mut plan = value(BASIC);
        let config = &mut plan["configuration"];
        config["provider_config"]["foo:null.aliased"]["expressions"] =
            json!({"x": {"references": [provider_ref]}});
        config["root_module"]["variables"] = json!({"admin_cidrs": {}});
        config["root_module"]["module_calls"]["foo"]["expressions"]["one"] =
            json!({"references": ["var.admin_cidrs"]});
        let report = run(&plan, &Setup::default());
        let aliased = change(&report, "module.foo.null_resource.aliased");
        assert_eq!(
            aliased.changed_inputs.is_empty(),
            !reaches,
            "{provider_ref}"
        );
        if reaches {
            assert_eq!(
                aliased.changed_input_paths["ADMIN_CIDRS"],
                strings(&["provider foo:null.aliased"])
            );
        }
    }
}

#[test]
fn snapshot_reports_of_fixtures() {
    let setup = checkov_setup(true);
    insta::assert_yaml_snapshot!("checkov", run_text(CHECKOV, &setup));
    insta::assert_yaml_snapshot!("has_checks", run_text(HAS_CHECKS, &Setup::default()));
    insta::assert_yaml_snapshot!("drift", run_text(DRIFT, &Setup::default()));
}

#[path = "attribute_planted_tests.rs"]
mod planted;

#[path = "attribute_verdict_tests.rs"]
mod verdicts;
