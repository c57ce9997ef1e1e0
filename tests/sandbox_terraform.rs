//! Real Terraform 1.0.3 + the fake provider inside the real bwrap sandbox, offline.

mod sandbox_support;

use sandbox_support::*;
use serde_json::Value;
use tfgate::sandbox::{ExitKind, Network, SandboxMode};

const AWS_DENIED: &str = "creating IAM Role (tfgate-deploy): AccessDenied: User: \
arn:aws:sts::123456789012:assumed-role/tfgate-apply/pr-42 is not authorized to perform: \
iam:CreateRole on resource: arn:aws:iam::123456789012:role/tfgate-deploy because no \
identity-based policy allows the iam:CreateRole action\n\tstatus code: 403, request id: \
5f8e2c1a-3b4d-4e5f-9a8b-7c6d5e4f3a2b";

fn partial_failure_config() -> String {
    format!(
        r#"{PROVIDER_BLOCK}
resource "fake_thing" "network" {{
  name = "network"
}}
resource "fake_thing" "role" {{
  name          = "role"
  depends_value = fake_thing.network.id
  fail_with     = {denied}
}}
resource "fake_thing" "bucket" {{
  name          = "bucket"
  depends_value = fake_thing.network.id
}}
output "bucket_id" {{ value = fake_thing.bucket.id }}
"#,
        denied = serde_json::to_string(AWS_DENIED).unwrap()
    )
}

#[tokio::test]
async fn init_plan_show_apply_with_partial_failure_inside_the_sandbox() {
    let Some(tools) = tools_with_provider() else {
        return;
    };
    let work = scratch_dir("run-");
    write(work.path(), "main.tf", &partial_failure_config());
    let spec = spec_for(&tools, work.path(), Network::None);
    let mode = SandboxMode::Bwrap;

    terraform_ok(&spec, mode, &["init", "-input=false", "-no-color"]).await;
    let plan = terraform_ok(
        &spec,
        mode,
        &["plan", "-input=false", "-json", "-out=tfplan"],
    )
    .await;
    let mut planned: Vec<String> = messages(&plan)
        .iter()
        .filter(|m| m["type"] == "planned_change")
        .map(|m| {
            m["change"]["resource"]["addr"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    planned.sort();
    assert_eq!(
        planned,
        ["fake_thing.bucket", "fake_thing.network", "fake_thing.role"]
    );

    let show = terraform_ok(&spec, mode, &["show", "-json", "tfplan"]).await;
    let plan_json: Value = serde_json::from_str(&show.join("\n")).unwrap();
    assert_eq!(plan_json["format_version"], "0.2");
    assert_eq!(plan_json["terraform_version"], "1.0.3");
    assert_eq!(plan_json["resource_changes"].as_array().unwrap().len(), 3);

    let (apply, lines) =
        terraform(&spec, mode, &["apply", "-input=false", "-json", "tfplan"]).await;
    assert_eq!(apply.status, ExitKind::Exited(1), "{}", apply.stderr_tail);
    let msgs = messages(&lines);
    let of_type = |t: &str| -> Vec<String> {
        msgs.iter()
            .filter(|m| m["type"] == t)
            .map(|m| m["hook"]["resource"]["addr"].as_str().unwrap().to_string())
            .collect()
    };
    let mut complete = of_type("apply_complete");
    complete.sort();
    assert_eq!(complete, ["fake_thing.bucket", "fake_thing.network"]);
    assert_eq!(of_type("apply_errored"), ["fake_thing.role"]);
    let diagnostics: Vec<&Value> = msgs.iter().filter(|m| m["type"] == "diagnostic").collect();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
    let diag = &diagnostics[0]["diagnostic"];
    assert_eq!(diag["severity"], "error");
    assert_eq!(diag["summary"], AWS_DENIED);
    assert_eq!(diag["detail"], "");
    assert_eq!(diag["address"], "fake_thing.role");
}

#[tokio::test]
async fn plan_fail_with_fails_the_plan_with_exact_text() {
    let Some(tools) = tools_with_provider() else {
        return;
    };
    let work = scratch_dir("run-");
    let config = format!(
        "{PROVIDER_BLOCK}\nresource \"fake_thing\" \"x\" {{\n  name = \"x\"\n  plan_fail_with = \"no valid credential sources found\"\n}}\n"
    );
    write(work.path(), "main.tf", &config);
    let spec = spec_for(&tools, work.path(), Network::None);
    terraform_ok(
        &spec,
        SandboxMode::Bwrap,
        &["init", "-input=false", "-no-color"],
    )
    .await;
    let (plan, lines) = terraform(
        &spec,
        SandboxMode::Bwrap,
        &["plan", "-input=false", "-json"],
    )
    .await;
    assert_eq!(plan.status, ExitKind::Exited(1));
    let diag = messages(&lines)
        .into_iter()
        .find(|m| m["type"] == "diagnostic")
        .expect("a diagnostic");
    assert_eq!(
        diag["diagnostic"]["summary"],
        "no valid credential sources found"
    );
    assert_eq!(diag["diagnostic"]["address"], "fake_thing.x");
}

fn diagnostic_of(lines: &[String]) -> (String, String) {
    let diag = messages(lines)
        .into_iter()
        .find(|m| m["type"] == "diagnostic")
        .unwrap_or_else(|| panic!("no diagnostic in {lines:#?}"));
    (
        diag["diagnostic"]["summary"].as_str().unwrap().to_string(),
        diag["diagnostic"]["address"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    )
}

#[tokio::test]
async fn update_and_delete_failures_are_attributed_to_the_resource() {
    let Some(tools) = tools_with_provider() else {
        return;
    };
    let work = scratch_dir("run-");
    let spec = spec_for(&tools, work.path(), Network::None);
    let mode = SandboxMode::Bwrap;
    let thing = |name: &str, fail_on: &str| {
        format!(
            "{PROVIDER_BLOCK}\nresource \"fake_thing\" \"t\" {{\n  name = \"{name}\"\n  fail_with = \"ThrottlingException: Rate exceeded\"\n  fail_on = \"{fail_on}\"\n}}\n"
        )
    };
    let apply = ["apply", "-auto-approve", "-input=false", "-json"];

    write(work.path(), "main.tf", &thing("a", "update"));
    terraform_ok(&spec, mode, &["init", "-input=false", "-no-color"]).await;
    terraform_ok(&spec, mode, &apply).await;

    write(work.path(), "main.tf", &thing("b", "update"));
    let (out, lines) = terraform(&spec, mode, &apply).await;
    assert_eq!(out.status, ExitKind::Exited(1));
    assert_eq!(
        diagnostic_of(&lines),
        (
            "ThrottlingException: Rate exceeded".to_string(),
            "fake_thing.t".to_string()
        )
    );

    write(work.path(), "main.tf", &thing("b", "delete"));
    terraform_ok(&spec, mode, &apply).await;

    // Terraform 1.0.3 gives delete-error diagnostics NO address (nor range), whether the
    // resource is still configured (destroy) or was removed from the configuration; only
    // the preceding apply_errored (action "delete") names the resource.
    let destroy = [
        "apply",
        "-destroy",
        "-auto-approve",
        "-input=false",
        "-json",
    ];
    let (out, lines) = terraform(&spec, mode, &destroy).await;
    assert_eq!(out.status, ExitKind::Exited(1));
    assert_eq!(
        diagnostic_of(&lines),
        (
            "ThrottlingException: Rate exceeded".to_string(),
            String::new()
        )
    );
    assert_eq!(
        errored_actions(&lines),
        [("fake_thing.t".to_string(), "delete".to_string())]
    );

    // Resource removed from the configuration: same shape.
    write(work.path(), "main.tf", PROVIDER_BLOCK);
    let (out, lines) = terraform(&spec, mode, &apply).await;
    assert_eq!(out.status, ExitKind::Exited(1));
    assert_eq!(
        diagnostic_of(&lines),
        (
            "ThrottlingException: Rate exceeded".to_string(),
            String::new()
        )
    );
    assert_eq!(
        errored_actions(&lines),
        [("fake_thing.t".to_string(), "delete".to_string())]
    );
}

fn errored_actions(lines: &[String]) -> Vec<(String, String)> {
    messages(lines)
        .iter()
        .filter(|m| m["type"] == "apply_errored")
        .map(|m| {
            (
                m["hook"]["resource"]["addr"].as_str().unwrap().to_string(),
                m["hook"]["action"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}
