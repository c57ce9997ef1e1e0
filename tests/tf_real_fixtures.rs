//! Invariants of the real Terraform fixtures in tests/fixtures/tf-real (see SOURCES.md there).

use serde_json::Value;

fn lines(name: &str) -> Vec<Value> {
    let path = format!(
        "{}/tests/fixtures/tf-real/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn addrs(msgs: &[Value], kind: &str) -> Vec<String> {
    let mut out: Vec<String> = msgs
        .iter()
        .filter(|m| m["type"] == kind)
        .map(|m| m["hook"]["resource"]["addr"].as_str().unwrap().to_string())
        .collect();
    out.sort();
    out
}

#[test]
fn partial_failure_apply_joins_on_address() {
    let msgs = lines("apply.jsonl");
    assert_eq!(msgs[0]["type"], "version");
    assert_eq!(msgs[0]["terraform"], "1.0.3");
    assert_eq!(msgs[0]["ui"], "0.1.0");
    assert_eq!(
        addrs(&msgs, "apply_complete"),
        ["fake_thing.bucket", "fake_thing.network"]
    );
    assert_eq!(addrs(&msgs, "apply_errored"), ["fake_thing.role"]);
    let diags: Vec<&Value> = msgs.iter().filter(|m| m["type"] == "diagnostic").collect();
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0]["diagnostic"]["address"], "fake_thing.role");
    assert_eq!(diags[0]["diagnostic"]["detail"], "");
    let summary = diags[0]["diagnostic"]["summary"].as_str().unwrap();
    assert!(summary.starts_with("unable to get role (XPTO): AccessDenied: "));
    assert!(
        summary.ends_with("\n\tstatus code: 403, request id: 99222140-142f-47a6-aaac-15b6068489c2")
    );
    assert!(!msgs.iter().any(|m| m["type"] == "outputs"));
}

#[test]
fn retry_apply_creates_only_the_failed_resource_and_prints_sensitive_outputs() {
    let msgs = lines("apply-retry.jsonl");
    assert_eq!(addrs(&msgs, "apply_complete"), ["fake_thing.role"]);
    let outputs = msgs.iter().find(|m| m["type"] == "outputs").unwrap();
    assert_eq!(outputs["outputs"]["admin_token"]["sensitive"], true);
    assert_eq!(
        outputs["outputs"]["admin_token"]["value"],
        "fixture-sensitive-value-0123"
    );
}

#[test]
fn plan_json_is_format_0_2_with_sensitive_value_in_clear() {
    let path = format!(
        "{}/tests/fixtures/tf-real/plan.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let plan: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(plan["format_version"], "0.2");
    assert_eq!(plan["terraform_version"], "1.0.3");
    assert_eq!(plan["resource_changes"].as_array().unwrap().len(), 3);
    assert_eq!(
        plan["planned_values"]["outputs"]["admin_token"]["value"],
        "fixture-sensitive-value-0123"
    );
    let stream = lines("plan.jsonl");
    let summary = stream
        .iter()
        .find(|m| m["type"] == "change_summary")
        .unwrap();
    assert_eq!(summary["changes"]["add"], 3);
}

#[test]
fn delete_error_diagnostic_has_no_address_only_apply_errored_names_it() {
    let msgs = lines("apply-delete-error.jsonl");
    let errored: Vec<&Value> = msgs
        .iter()
        .filter(|m| m["type"] == "apply_errored")
        .collect();
    assert_eq!(errored.len(), 1);
    assert_eq!(errored[0]["hook"]["resource"]["addr"], "fake_thing.role");
    assert_eq!(errored[0]["hook"]["action"], "delete");
    let diags: Vec<&Value> = msgs.iter().filter(|m| m["type"] == "diagnostic").collect();
    assert_eq!(diags.len(), 1);
    assert!(diags[0]["diagnostic"].get("address").is_none());
    assert!(diags[0]["diagnostic"].get("range").is_none());
    assert_eq!(addrs(&msgs, "apply_complete"), ["fake_thing.bucket"]);
}
