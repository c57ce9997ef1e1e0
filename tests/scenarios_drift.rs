//! Seed 000 §2.3 as a scenario, with real Terraform: the admin CIDR secret changes ahead of the
//! PR meant to use it; an unrelated PR's plan is flagged and its apply blocked; the intended PR,
//! carrying the `tfgate.inputs.lock` bump, applies cleanly. Values never reach a comment.

mod support;

use std::path::Path;

use support::*;
use tfgate::policy::InputSource;

fn policy() -> String {
    let var = format!(
        "TFGATE_TEST_ADMIN_CIDRS_{}",
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    );
    format!(
        r#"
repos: ["Codertocat/Hello-World"]
defaults:
  plan_role: arn:aws:iam::111111111111:role/tfgate-plan
  apply_role: arn:aws:iam::111111111111:role/tfgate-apply
apply_requirements: []
on_input_drift: block
inputs:
  - name: ADMIN_CIDRS
    variable: admin_cidrs
    source: env:{var}
projects:
  - name: eks
    dir: infra/eks
    inputs: [ADMIN_CIDRS]
"#
    )
}

fn write_root(dir: &Path, state_key: &str, bucket: &str) {
    let moto = std::env::var("TFGATE_TEST_MOTO_URL").unwrap_or_default();
    let d = dir.join("infra/eks");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(
        d.join("main.tf"),
        format!(
            r#"terraform {{
  required_providers {{
    fake = {{ source = "tfgate/fake", version = "0.1.0" }}
  }}
  backend "s3" {{
    bucket = "tfstate"
    key = "{state_key}"
    region = "us-east-1"
    endpoint = "{moto}"
    force_path_style = true
    skip_credentials_validation = true
    skip_metadata_api_check = true
    skip_region_validation = true
  }}
}}
provider "fake" {{}}
variable "admin_cidrs" {{
  type = string
}}
resource "fake_thing" "cluster" {{
  name          = "cluster"
  depends_value = var.admin_cidrs
}}
resource "fake_thing" "bucket" {{
  name = "{bucket}"
}}
"#
        ),
    )
    .unwrap();
}

async fn on_pr(h: &Harness, pr: i64, body: &str) -> String {
    let before = h.github.comments().len();
    let mut v = pr_comment(body, "alice");
    v["issue"]["number"] = pr.into();
    h.deliver("issue_comment", &v).await;
    h.run_jobs().await;
    h.github.comments()[before..]
        .iter()
        .map(|c| c.body.clone())
        .collect::<Vec<_>>()
        .join("\n----\n")
}

fn new_head(h: &Harness, sha_char: char, files: &[&str]) {
    h.github.with(|g| {
        g.pr.head_sha = sha_char.to_string().repeat(40);
        g.files = files.iter().map(|f| f.to_string()).collect();
    });
}

scenario!(
    secret_changed_outside_any_pr_is_flagged_blocked_then_applied_via_lockfile,
    policy = &policy(),
    |h| {
        if !terraform_tools_available() {
            return;
        }
        let set = h.state.policies.current();
        let InputSource::Env(var) =
            &set.for_repo("Codertocat/Hello-World").unwrap().inputs[0].source
        else {
            panic!("env input expected")
        };
        let reqwest_put = reqwest::Client::new()
            .put(format!(
                "{}/tfstate",
                std::env::var("TFGATE_TEST_MOTO_URL").unwrap()
            ))
            .send()
            .await;
        assert!(reqwest_put.is_ok());
        let state_key = format!("{}.tfstate", var.to_lowercase());
        h.github.with(|g| {
            g.permissions.insert("alice".into(), "write".into());
        });
        let repo = tempfile::tempdir().unwrap();

        // PR 1 sets up the cluster with the first admin's CIDR.
        std::env::set_var(var, "203.0.113.7/32");
        write_root(repo.path(), &state_key, "logs-v1");
        h.github.serve_repo(repo.path());
        new_head(&h, '1', &["infra/eks/main.tf"]);
        let plan = on_pr(&h, 1, "/plan").await;
        assert!(
            !plan.contains('⚠'),
            "first plan has no baseline to drift from:\n{plan}"
        );
        let apply = on_pr(&h, 1, "/apply").await;
        assert!(apply.contains("✅") && !apply.contains("❌"), "{apply}");
        on_pr(&h, 1, "/unlock").await;

        // Someone adds a second admin's IP to the secret, ahead of the PR meant to use it.
        std::env::set_var(var, "203.0.113.7/32,198.51.100.9/32");

        // An unrelated bucket PR: its plan carries the cluster change, flagged; apply is blocked.
        write_root(repo.path(), &state_key, "logs-v2");
        h.github.serve_repo(repo.path());
        new_head(&h, '2', &["infra/eks/main.tf"]);
        let plan = on_pr(&h, 2, "/plan").await;
        assert!(
            plan.contains('⚠')
                && plan.contains("fake_thing.cluster")
                && plan.contains("ADMIN_CIDRS"),
            "{plan}"
        );
        for value in ["203.0.113.7", "198.51.100.9"] {
            assert!(
                !plan.contains(value),
                "the input value {value} leaked:\n{plan}"
            );
        }
        let refused = on_pr(&h, 2, "/apply").await;
        assert!(refused.contains("tfgate.inputs.lock"), "{refused}");
        assert!(!refused.contains("✅"), "{refused}");
        on_pr(&h, 2, "/unlock").await;

        // The intended PR commits the new fingerprint (as `/inputs` prints it) and applies.
        new_head(&h, '3', &["tfgate.inputs.lock", "infra/eks/main.tf"]);
        let inputs = on_pr(&h, 3, "/inputs").await;
        assert!(!inputs.contains("198.51.100.9"), "{inputs}");
        let lock = inputs
            .split("```")
            .nth(1)
            .expect("lock file block")
            .trim_start_matches('\n')
            .to_string();
        std::fs::write(repo.path().join("tfgate.inputs.lock"), lock).unwrap();
        h.github.serve_repo(repo.path());
        let plan = on_pr(&h, 3, "/plan").await;
        assert!(
            !plan.contains("⚠ `fake_thing.cluster`"),
            "the lock-file PR explains the change:\n{plan}"
        );
        let apply = on_pr(&h, 3, "/apply").await;
        assert!(apply.contains("✅") && !apply.contains("❌"), "{apply}");
        assert!(!apply.contains("198.51.100.9"), "{apply}");
    }
);
