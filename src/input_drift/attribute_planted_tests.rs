//! Planted scenarios: fixtures edited in code so that a shared input reaches resources
//! through module chains, for_each, count, provider blocks, module outputs, locals and
//! dynamic blocks, plus the cases that must not raise an alarm.

use super::*;

fn has_checks_with_call_expression(expression: Value) -> Value {
    let mut plan = value(HAS_CHECKS);
    let root = &mut plan["configuration"]["root_module"];
    root["variables"] = json!({"admin_cidrs": {"sensitive": true}});
    root["module_calls"]["files"]["expressions"]["file_names"] = expression;
    plan
}

/// `module.outer.module.files.local_file.foo[...]`, `file_names` ← `var.names` (outer) ←
/// `var.admin_cidrs` (root).
fn two_module_levels() -> Value {
    let mut plan = value(HAS_CHECKS);
    let mut files = plan["configuration"]["root_module"]["module_calls"]["files"].take();
    files["expressions"] = json!({"file_names": {"references": ["var.names"]}});
    plan["configuration"]["root_module"] = json!({
        "variables": {"admin_cidrs": {}},
        "module_calls": {"outer": {
            "source": "./outer",
            "expressions": {"names": {"references": ["var.admin_cidrs"]}},
            "module": {"variables": {"names": {}}, "module_calls": {"files": files}}
        }}
    });
    for rc in plan["resource_changes"].as_array_mut().unwrap() {
        let address = rc["address"].as_str().unwrap().to_string();
        rc["address"] = json!(format!("module.outer.{address}"));
        rc["module_address"] = json!("module.outer.module.files");
    }
    plan
}

/// The provider of module `files` takes an argument from `var.role` of the module, which
/// the call sets from `var.admin_cidrs`.
fn module_provider() -> Value {
    let mut plan =
        has_checks_with_call_expression(json!({"constant_value": ["file1.txt", "file2.txt"]}));
    plan["configuration"]["provider_config"]["module.files:local"]["expressions"] =
        json!({"assume_role": [{"role_arn": {"references": ["var.role"]}}]});
    let call = &mut plan["configuration"]["root_module"]["module_calls"]["files"];
    call["expressions"]["role"] = json!({"references": ["var.admin_cidrs"]});
    call["module"]["variables"]["role"] = json!({});
    plan
}

pub(super) fn real_with_root_variable() -> Value {
    let mut plan = value(REAL);
    plan["configuration"]["root_module"]["variables"]["admin_cidrs"] = json!({});
    plan
}

fn real_role_expression(expression: Value) -> Value {
    let mut plan = real_with_root_variable();
    plan["configuration"]["root_module"]["resources"][2]["expressions"]["fail_with"] = expression;
    plan
}

/// `fail_with` ← `module.net.allowed` ← `var.cidrs` in net ← `var.admin_cidrs`.
pub(super) fn module_output() -> Value {
    let mut plan =
        real_role_expression(json!({"references": ["module.net.allowed", "module.net"]}));
    plan["configuration"]["root_module"]["module_calls"] = json!({"net": {
        "source": "./net",
        "expressions": {"cidrs": {"references": ["var.admin_cidrs"]}},
        "module": {
            "variables": {"cidrs": {}},
            "outputs": {"allowed": {"expression": {"references": ["var.cidrs"]}}}
        }
    }});
    plan
}

/// `fake_thing.role` is updated in a nested `ingress` block that the configuration sets
/// with a `dynamic` block (absent from plan JSON).
fn dynamic_block_update() -> Value {
    let mut plan = real_with_root_variable();
    let role = &mut plan["resource_changes"][2]["change"];
    let mut after = role["after"].clone();
    after["id"] = json!("role-id");
    after["ingress"] = json!([{"cidr": "10.0.0.2/32", "port": 443}]);
    let mut before = after.clone();
    before["ingress"] = json!([{"cidr": "10.0.0.1/32", "port": 443}]);
    role["actions"] = json!(["update"]);
    role["before"] = before;
    role["after"] = after;
    role["after_unknown"] = json!({});
    plan
}

pub(super) fn count_from_input() -> Value {
    let mut plan = real_with_root_variable();
    plan["configuration"]["root_module"]["resources"][2]["count_expression"] =
        json!({"references": ["var.admin_cidrs"]});
    plan["resource_changes"][2]["address"] = json!("fake_thing.role[1]");
    plan["resource_changes"][2]["index"] = json!(1);
    plan
}

/// One instance leaves the for_each set: a delete whose only cause is the instance set.
fn for_each_delete() -> Value {
    let mut plan = has_checks_with_call_expression(json!({"references": ["var.admin_cidrs"]}));
    let c = &mut plan["resource_changes"][0]["change"];
    c["before"] = c["after"].take();
    c["after"] = Value::Null;
    c["after_unknown"] = json!({});
    c["actions"] = json!(["delete"]);
    plan
}

fn module_for_each() -> Value {
    let mut plan = has_checks_with_call_expression(json!({"constant_value": ["x"]}));
    plan["configuration"]["root_module"]["module_calls"]["files"]["for_each_expression"] =
        json!({"references": ["var.admin_cidrs"]});
    for rc in plan["resource_changes"].as_array_mut().unwrap() {
        let address = rc["address"]
            .as_str()
            .unwrap()
            .replace("module.files.", "module.files[\"a\"].");
        rc["address"] = json!(address);
    }
    plan
}

pub(super) fn hcl(files: &[(&str, &str)]) -> HclIndex {
    HclIndex::from_files(files.iter().copied())
}

/// (scenario, plan, setup, address, expected verdict, expected `via` labels reaching the input)
type Planted = (
    &'static str,
    Value,
    Setup,
    &'static str,
    Verdict,
    Vec<&'static str>,
);

fn planted() -> Vec<Planted> {
    let file1 = r#"module.files.local_file.foo["file1.txt"]"#;
    vec![
        (
            "two module levels",
            two_module_levels(),
            Setup::default(),
            r#"module.outer.module.files.local_file.foo["file2.txt"]"#,
            drift(&["ADMIN_CIDRS"]),
            vec!["filename", "for_each"],
        ),
        (
            "for_each through a module call",
            has_checks_with_call_expression(json!({"references": ["var.admin_cidrs"]})),
            Setup::default(),
            file1,
            drift(&["ADMIN_CIDRS"]),
            vec!["filename", "for_each"],
        ),
        (
            "module for_each",
            module_for_each(),
            Setup::default(),
            r#"module.files["a"].local_file.foo["file1.txt"]"#,
            drift(&["ADMIN_CIDRS"]),
            vec!["module.files for_each"],
        ),
        (
            "instance removed from for_each",
            for_each_delete(),
            Setup::default(),
            file1,
            drift(&["ADMIN_CIDRS"]),
            vec!["for_each"],
        ),
        (
            "module provider block",
            module_provider(),
            Setup::default(),
            file1,
            drift(&["ADMIN_CIDRS"]),
            vec!["provider module.files:local"],
        ),
        (
            "module output",
            module_output(),
            Setup::default(),
            "fake_thing.role",
            drift(&["ADMIN_CIDRS"]),
            vec!["fail_with"],
        ),
        (
            "count",
            count_from_input(),
            Setup::default(),
            "fake_thing.role[1]",
            drift(&["ADMIN_CIDRS"]),
            vec!["count"],
        ),
        (
            "local from HCL",
            real_role_expression(json!({"references": ["local.msg"]})),
            Setup {
                hcl: hcl(&[("main.tf", "locals {\n  msg = join(\",\", var.admin_cidrs)\n}\n")]),
                ..Setup::default()
            },
            "fake_thing.role",
            drift(&["ADMIN_CIDRS"]),
            vec!["fail_with"],
        ),
        (
            "local without HCL",
            real_role_expression(json!({"references": ["local.msg"]})),
            Setup::default(),
            "fake_thing.role",
            Verdict::Unresolved,
            vec![],
        ),
        (
            "dynamic block from HCL",
            dynamic_block_update(),
            Setup {
                hcl: hcl(&[(
                    "main.tf",
                    "resource \"fake_thing\" \"role\" {\n  dynamic \"ingress\" {\n    for_each = var.admin_cidrs\n    content {\n      cidr = ingress.value\n    }\n  }\n}\n",
                )]),
                ..Setup::default()
            },
            "fake_thing.role",
            drift(&["ADMIN_CIDRS"]),
            vec!["ingress"],
        ),
        (
            "dynamic block without HCL",
            dynamic_block_update(),
            Setup::default(),
            "fake_thing.role",
            Verdict::Unresolved,
            vec![],
        ),
        (
            "input unchanged",
            has_checks_with_call_expression(json!({"references": ["var.admin_cidrs"]})),
            Setup {
                changed: vec![],
                ..Setup::default()
            },
            file1,
            Verdict::OutsideDiff,
            vec![],
        ),
        (
            "input unchanged, PR edits the module",
            has_checks_with_call_expression(json!({"references": ["var.admin_cidrs"]})),
            Setup {
                changed: vec![],
                pr_files: vec!["child_module/main.tf"],
                ..Setup::default()
            },
            file1,
            Verdict::ExplainedByDiff,
            vec![],
        ),
        (
            "changed input is drift even when the PR edits the resource's file",
            module_output(),
            Setup {
                pr_files: vec!["main.tf", "terraform.tfvars"],
                ..Setup::default()
            },
            "fake_thing.role",
            drift(&["ADMIN_CIDRS"]),
            vec!["fail_with"],
        ),
        (
            "lock file bumped by this PR",
            module_output(),
            Setup {
                bumped: vec!["ADMIN_CIDRS"],
                pr_files: vec!["tfgate.inputs.lock"],
                ..Setup::default()
            },
            "fake_thing.role",
            Verdict::ExplainedByLockfile {
                inputs: strings(&["ADMIN_CIDRS"]),
            },
            vec!["fail_with"],
        ),
        (
            "another input's lock bumped",
            module_output(),
            Setup {
                bumped: vec!["OTHER"],
                ..Setup::default()
            },
            "fake_thing.role",
            drift(&["ADMIN_CIDRS"]),
            vec!["fail_with"],
        ),
    ]
}

#[test]
fn planted_scenarios() {
    for (name, plan, setup, address, verdict, via) in planted() {
        let report = run(&plan, &setup);
        let c = change(&report, address);
        assert_eq!(c.verdict, verdict, "{name}: {c:#?}");
        let got: Vec<&str> = c
            .changed_input_paths
            .get("ADMIN_CIDRS")
            .map(|v| v.iter().map(String::as_str).collect())
            .unwrap_or_default();
        assert_eq!(got, via, "{name}");
    }
}

#[test]
fn unresolved_names_what_could_not_be_followed() {
    let report = run(
        &real_role_expression(json!({"references": ["local.msg"]})),
        &Setup::default(),
    );
    assert_eq!(
        change(&report, "fake_thing.role").unresolved,
        strings(&["local.msg"])
    );
    let report = run(&dynamic_block_update(), &Setup::default());
    assert_eq!(
        change(&report, "fake_thing.role").unresolved,
        strings(&["fake_thing.role.ingress (dynamic block?)"])
    );
}
