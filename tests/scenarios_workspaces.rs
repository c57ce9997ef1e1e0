//! Workspaces end to end: one directory holds a `staging` and a `production` project; real
//! Terraform 1.0.3 in bubblewrap plans and applies each in its own workspace of an S3 backend
//! served by moto, and a workspace the backend lacks is created only when the policy says so.

mod support;

use std::path::Path;

use serde_json::Value;
use support::fake_github::FakeReview;
use support::*;

/// Two workspaces of one root; staging may create its workspace, production as the
/// arguments say (`defaults.create_workspace`, its own `create_workspace`).
fn policy(defaults_create: bool, production_create: Option<bool>) -> String {
    let defaults = if defaults_create {
        "  create_workspace: true\n"
    } else {
        ""
    };
    let production = production_create
        .map(|c| format!("    create_workspace: {c}\n"))
        .unwrap_or_default();
    with_test_network(&format!(
        r#"
repos: ["Codertocat/Hello-World"]
defaults:
  plan_role: arn:aws:iam::111111111111:role/tfgate-plan
  apply_role: arn:aws:iam::111111111111:role/tfgate-apply
{defaults}apply_requirements: [approved]
projects:
  - name: staging
    dir: infra/app
    workspace: staging
    create_workspace: true
  - name: production
    dir: infra/app
    workspace: production
{production}"#
    ))
}

fn moto() -> String {
    std::env::var("TFGATE_TEST_MOTO_URL").unwrap_or_default()
}

/// One root whose resource is named after the workspace Terraform runs in.
fn root_tf(key: &str) -> String {
    moto_root_tf(
        key,
        "resource \"fake_thing\" \"app\" {
  name = \"app-${terraform.workspace}\"
}
",
    )
}

fn write_repo(dir: &Path, key: &str) {
    let d = dir.join("infra/app");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("main.tf"), root_tf(key)).unwrap();
}

async fn create_state_bucket() {
    let _ = reqwest::Client::new()
        .put(format!("{}/tfstate", moto()))
        .send()
        .await
        .unwrap();
}

/// The repository served at the PR's head, approved by bob; returns the state key.
async fn setup(h: &Harness, tag: &str) -> (tempfile::TempDir, String) {
    create_state_bucket().await;
    let key = format!("{}.tfstate", unique(tag));
    let repo = tempfile::tempdir().unwrap();
    write_repo(repo.path(), &key);
    h.github.serve_repo(repo.path());
    h.github.with(|g| {
        g.pr.author = "author".into();
        g.files = vec!["infra/app/main.tf".into()];
        g.permissions.insert("alice".into(), "write".into());
        g.permissions.insert("bob".into(), "write".into());
        g.reviews = vec![FakeReview {
            user: "bob".into(),
            state: "APPROVED".into(),
            commit_id: g.pr.head_sha.clone(),
            is_bot: false,
        }];
    });
    (repo, key)
}

async fn comment(h: &Harness, body: &str) -> String {
    let before = h.github.comments().len();
    h.deliver("issue_comment", &pr_comment(body, "alice")).await;
    h.run_jobs().await;
    let new = h.github.comments();
    new[before..]
        .iter()
        .map(|c| c.body.clone())
        .collect::<Vec<_>>()
        .join("\n----\n")
}

fn unique(tag: &str) -> String {
    let id = uuid::Uuid::new_v4().simple().to_string();
    format!("{tag}{}", &id[..8])
}

/// The S3 object key of `key`'s state in `workspace` (the S3 backend's `env:/` prefix).
fn state_object(workspace: &str, key: &str) -> String {
    match workspace {
        "default" => key.to_string(),
        w => format!("env:/{w}/{key}"),
    }
}

/// The state of `workspace` as moto stores it; `None` when the object does not exist.
async fn read_state(workspace: &str, key: &str) -> Option<Value> {
    let url = format!("{}/tfstate/{}", moto(), state_object(workspace, key));
    // Terraform's objects are private; moto wants a signed request but does not check the
    // signature.
    let signed = "AWS4-HMAC-SHA256 Credential=testing/20240101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=0";
    let response = reqwest::Client::new()
        .get(url)
        .header("Authorization", signed)
        .send()
        .await
        .unwrap();
    if response.status() == reqwest::StatusCode::NOT_FOUND {
        return None;
    }
    assert!(response.status().is_success(), "{}", response.status());
    Some(response.json().await.unwrap())
}

/// The `name` attributes of every resource instance in a state.
fn resource_names(state: &Value) -> Vec<String> {
    let resources = state["resources"].as_array().cloned().unwrap_or_default();
    resources
        .iter()
        .flat_map(|r| r["instances"].as_array().cloned().unwrap_or_default())
        .filter_map(|i| i["attributes"]["name"].as_str().map(str::to_string))
        .collect()
}

scenario!(
    each_workspace_plans_and_applies_its_own_state,
    policy = &policy(true, None),
    |h| {
        if !terraform_tools_available() {
            return;
        }
        let (_repo, key) = setup(&h, "w").await;
        let plan = comment(&h, "/plan").await;
        for project in ["staging", "production"] {
            assert!(plan.contains(project), "plan names {project}:\n{plan}");
        }
        assert!(!plan.contains("does not exist"), "{plan}");
        // Each plan made its workspace; neither has resources yet.
        for workspace in ["staging", "production"] {
            let state = read_state(workspace, &key).await;
            let state = state.unwrap_or_else(|| panic!("{workspace} was not created"));
            assert!(resource_names(&state).is_empty(), "{state}");
        }

        let apply = comment(&h, "/apply").await;
        assert!(apply.contains("`fake_thing.app`"), "{apply}");
        assert!(!apply.contains("❌"), "{apply}");
        for workspace in ["staging", "production"] {
            let state = read_state(workspace, &key).await.unwrap();
            assert_eq!(
                resource_names(&state),
                vec![format!("app-{workspace}")],
                "{workspace}: {state}"
            );
        }
        let default = read_state("default", &key).await;
        assert!(
            default
                .as_ref()
                .map_or(true, |s| resource_names(s).is_empty()),
            "the default state holds nothing: {default:?}"
        );
    }
);

scenario!(
    a_missing_workspace_fails_its_root_unless_the_policy_creates_it,
    policy = &policy(false, Some(false)),
    |h| {
        if !terraform_tools_available() {
            return;
        }
        let (_repo, key) = setup(&h, "m").await;
        let plan = comment(&h, "/plan").await;
        assert!(
            plan.contains("`production`: Terraform workspace `production` does not exist in the backend; an admin creates it, or sets `create_workspace: true` for `production` in the policy so that the next `/plan` creates it."),
            "{plan}"
        );
        assert!(
            !plan.contains("Terraform workspace `staging`"),
            "staging may create its workspace:\n{plan}"
        );
        assert!(read_state("staging", &key).await.is_some());
        assert!(
            read_state("production", &key).await.is_none(),
            "nothing created the production workspace"
        );
        let runs: Vec<(String, String)> =
            sqlx::query_as("SELECT project, status FROM runs WHERE command = 'plan' ORDER BY id")
                .fetch_all(&h.state.db.pool)
                .await
                .unwrap();
        assert!(
            runs.contains(&("production".into(), "plan_failed".into())),
            "{runs:?}"
        );
    }
);
