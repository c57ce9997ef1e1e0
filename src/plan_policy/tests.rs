//! conftest conventions, compile problems and the budget, on small plans.

use std::time::Duration;

use super::*;
use crate::model::{Enforcement, PlanPolicySet, PolicyMessage};

fn set(namespaces: &[&str]) -> PlanPolicySet {
    PlanPolicySet {
        name: "s".into(),
        path: "plan".into(),
        projects: vec![],
        enforcement: Enforcement::Deny,
        owners: Default::default(),
        namespaces: namespaces.iter().map(|s| s.to_string()).collect(),
    }
}

fn files(rego: &[(&str, &str)]) -> Vec<(String, String)> {
    rego.iter()
        .map(|(n, c)| (format!("plan/{n}"), c.to_string()))
        .collect()
}

fn run(rego: &str, plan: &str) -> crate::model::SetOutcome {
    let compiled = compile(&set(&["terraform.aws"]), &files(&[("p.rego", rego)])).unwrap();
    evaluate(&compiled, plan, &Budget::default())
}

fn msg(rule: &str, message: &str, address: Option<&str>) -> PolicyMessage {
    PolicyMessage {
        rule: rule.into(),
        message: message.into(),
        address: address.map(str::to_string),
    }
}

const PLAN: &str = r#"{"resource_changes":[{"address":"aws_s3_bucket.b","type":"aws_s3_bucket"}]}"#;

#[test]
fn conftest_conventions() {
    let cases: &[(&str, &str, Vec<PolicyMessage>, Vec<PolicyMessage>)] = &[
        (
            "string message, v1 syntax",
            "package main\ndeny contains msg if { some r in input.resource_changes; msg := sprintf(\"%s is bad\", [r.address]) }",
            vec![msg("deny", "aws_s3_bucket.b is bad", None)],
            vec![],
        ),
        (
            "string message, v0 syntax",
            "package main\ndeny[msg] { r := input.resource_changes[_]; msg := sprintf(\"%s is bad\", [r.address]) }",
            vec![msg("deny", "aws_s3_bucket.b is bad", None)],
            vec![],
        ),
        (
            "object message with resource",
            "package main\ndeny contains {\"msg\": \"no\", \"resource\": r.address} if { some r in input.resource_changes }",
            vec![msg("deny", "no", Some("aws_s3_bucket.b"))],
            vec![],
        ),
        (
            "object message with details.resource",
            "package main\nviolation contains {\"msg\": \"v\", \"details\": {\"resource\": \"x.y\"}} if { true }",
            vec![msg("violation", "v", Some("x.y"))],
            vec![],
        ),
        (
            "warn and warn_ prefix are warnings",
            "package main\nwarn contains \"w1\" if { true }\nwarn_tags contains \"w2\" if { true }",
            vec![],
            vec![msg("warn", "w1", None), msg("warn", "w2", None)],
        ),
        (
            "deny_ prefix counts, helpers do not",
            "package main\ndeny_public contains \"d\" if { true }\nhelper contains \"h\" if { true }\ndenylist := {\"a\"}",
            vec![msg("deny", "d", None)],
            vec![],
        ),
        (
            "boolean complete rule true fails without a message",
            "package main\ndeny if { true }",
            vec![msg("deny", "rule `deny` failed without a message", None)],
            vec![],
        ),
        (
            "namespace of the set counts",
            "package terraform.aws\ndeny contains \"ns\" if { true }",
            vec![msg("deny", "ns", None)],
            vec![],
        ),
        (
            "other package does not count",
            "package other\ndeny contains \"x\" if { true }",
            vec![],
            vec![],
        ),
        (
            "nothing matches: empty",
            "package main\ndeny contains \"x\" if { input.nope }",
            vec![],
            vec![],
        ),
    ];
    for (name, rego, failures, warnings) in cases {
        let out = run(rego, PLAN);
        assert_eq!(out.error, None, "{name}");
        assert_eq!(&out.failures, failures, "{name}");
        assert_eq!(&out.warnings, warnings, "{name}");
    }
}

#[test]
fn a_parse_error_is_located() {
    let err = compile(
        &set(&[]),
        &files(&[
            ("ok.rego", "package main\n"),
            (
                "bad.rego",
                "package main\n\ndeny contains msg if {\n  msg := \n}\n",
            ),
        ]),
    )
    .unwrap_err();
    assert_eq!(err.len(), 1, "{err:?}");
    assert_eq!(err[0].file, "plan/bad.rego");
    assert!(err[0].line >= 4 && err[0].col > 0, "{err:?}");
    assert!(
        err[0].to_string().starts_with("plan/bad.rego:"),
        "{}",
        err[0]
    );
}

#[test]
fn an_unknown_function_fails_closed_at_its_location() {
    // regorus resolves functions when a rule runs: compile accepts the set, evaluation fails
    // closed and names where.
    let rego = "package main\ndeny contains msg if { msg := no_such_fn(1) }\n";
    let compiled = compile(&set(&[]), &files(&[("p.rego", rego)])).unwrap();
    let reason = evaluate(&compiled, PLAN, &Budget::default())
        .error
        .expect("fails closed");
    assert!(reason.contains("plan/p.rego:2"), "{reason}");
}

#[test]
fn no_rego_file_is_a_problem() {
    let err = compile(&set(&[]), &files(&[("p_test.rego", "package main\n")])).unwrap_err();
    assert!(err[0].message.contains("no .rego file"), "{err:?}");
}

#[test]
fn a_rule_erroring_at_runtime_fails_closed_without_plan_values() {
    // A complete rule with two different values is an evaluation error.
    let rego = "package main\nname := r.address if { some r in input.resource_changes }\nname := \"other\" if { true }\ndeny contains name if { true }";
    let out = run(rego, PLAN);
    let reason = out.error.clone().expect("fails closed");
    assert!(reason.contains("main.deny"), "{reason}");
    assert!(!reason.contains("aws_s3_bucket"), "{reason}");
    assert!(out.failed() && out.blocks_apply());
}

#[test]
fn a_timeout_fails_closed() {
    let rego = "package main\ndeny contains x if { some a in numbers.range(1, 3000); some b in numbers.range(1, 3000); x := a * b; x == -1 }";
    let compiled = compile(&set(&[]), &files(&[("p.rego", rego)])).unwrap();
    let budget = Budget {
        time: Duration::from_millis(50),
        ..Budget::default()
    };
    let started = std::time::Instant::now();
    let out = evaluate(&compiled, PLAN, &budget);
    assert!(started.elapsed() < Duration::from_secs(5));
    let reason = out.error.expect("fails closed");
    assert!(reason.contains("ran out of time"), "{reason}");
}

#[test]
fn an_oversized_or_broken_plan_fails_closed() {
    let compiled = compile(&set(&[]), &files(&[("p.rego", "package main\n")])).unwrap();
    let small = Budget {
        max_input_bytes: 10,
        ..Budget::default()
    };
    assert!(evaluate(&compiled, PLAN, &small)
        .error
        .unwrap()
        .contains("limit"));
    assert!(evaluate(&compiled, "{nope", &Budget::default())
        .error
        .is_some());
}

#[test]
fn compiled_sets_are_shared_and_versioned() {
    let f = files(&[("p.rego", "package main\ndeny contains \"d\" if { true }\n")]);
    let a = compile(&set(&[]), &f).unwrap();
    let b = a.clone();
    assert!(std::sync::Arc::ptr_eq(&a.inner, &b.inner));
    let changed = files(&[("p.rego", "package main\ndeny contains \"e\" if { true }\n")]);
    assert_ne!(a.digest(), compile(&set(&[]), &changed).unwrap().digest());
    assert_eq!(a.rule_names(), vec!["main.deny".to_string()]);
    // Evaluating twice gives the same result: the compiled engine is not changed by a run.
    assert_eq!(
        evaluate(&a, PLAN, &Budget::default()),
        evaluate(&b, PLAN, &Budget::default())
    );
}

#[test]
fn files_outside_the_set_path_are_not_loaded() {
    let f = vec![
        ("plan/a.rego".to_string(), "package main\n".to_string()),
        ("plan/sub/b.rego".to_string(), "package main\n".to_string()),
        ("planx/c.rego".to_string(), "package main\n".to_string()),
        ("other/d.rego".to_string(), "package main\n".to_string()),
        ("plan/a_test.rego".to_string(), "package main\n".to_string()),
    ];
    let names: Vec<&str> = rego_files_of_set(&set(&[]), &f)
        .iter()
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(names, ["plan/a.rego", "plan/sub/b.rego"]);
}

#[test]
fn sets_for_a_project() {
    let mut a = set(&[]);
    a.name = "all".into();
    let mut b = set(&[]);
    b.name = "prod".into();
    b.projects = vec!["prod-*".into()];
    let sets = vec![a, b];
    let names = |p: &str| -> Vec<String> {
        sets_for_project(&sets, p)
            .iter()
            .map(|s| s.name.clone())
            .collect()
    };
    assert_eq!(names("prod-web"), ["all", "prod"]);
    assert_eq!(names("dev"), ["all"]);
}
