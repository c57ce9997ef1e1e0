//! A policy names `terraform_version: 1.0.3`; the server has no Terraform binary at all
//! (`TFGATE_TERRAFORM` points nowhere) and fetches the release from a local mirror over
//! loopback, checked against the test key. Real Terraform, state in moto's S3.

mod release_support;
mod support;

use release_support::{Fault, ReleaseMirror, TEST_PUBLIC_KEY};
use support::*;

fn policy(project_line: &str) -> String {
    with_test_network(&format!(
        r#"
repos: ["Codertocat/Hello-World"]
defaults:
  plan_role: arn:aws:iam::111111111111:role/tfgate-plan
  apply_role: arn:aws:iam::111111111111:role/tfgate-apply
projects:
  - name: app
    dir: infra/app
    {project_line}
"#
    ))
}

/// A harness whose only Terraform is the mirror's release.
async fn harness(mirror: &ReleaseMirror, policy: &str) -> Harness {
    let url = mirror.url();
    Harness::start_with(Backend::Sqlite, Some(policy), |args| {
        args.terraform = Some("/nonexistent/terraform".into());
        args.release_url = Some(url);
        args.release_keys = Some(TEST_PUBLIC_KEY.into());
    })
    .await
    .unwrap()
}

async fn serve_root(h: &Harness, extra: &str) -> tempfile::TempDir {
    create_state_bucket().await;
    let repo = tempfile::tempdir().unwrap();
    let dir = repo.path().join("infra/app");
    std::fs::create_dir_all(&dir).unwrap();
    let id = uuid::Uuid::new_v4().simple().to_string();
    let body = format!("{extra}resource \"fake_thing\" \"web\" {{\n  name = \"web-{id}\"\n}}\n");
    std::fs::write(
        dir.join("main.tf"),
        moto_root_tf(&format!("{id}.tfstate"), &body),
    )
    .unwrap();
    h.github.serve_repo(repo.path());
    h.github.with(|g| {
        g.files = vec!["infra/app/main.tf".into()];
        g.permissions.insert("alice".into(), "write".into());
    });
    repo
}

async fn plan(h: &Harness) -> String {
    h.comment(1, "/plan", "alice").await.join("\n----\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_policy_version_is_fetched_once_from_the_mirror_and_plans() {
    if !terraform_tools_available() {
        return;
    }
    let mirror = ReleaseMirror::start(Fault::None).await;
    let h = harness(&mirror, &policy("terraform_version: 1.0.3")).await;
    let _repo = serve_root(&h, "").await;
    let first = plan(&h).await;
    let planned = "| `app` | `infra/app` | `default` | 1 | 0 | 0 | 0 | 📝 changes |";
    assert!(first.contains(planned), "{first}");
    let second = plan(&h).await;
    assert!(second.contains(planned), "{second}");
    assert_eq!(
        mirror.archive_downloads().await,
        1,
        "installed once, then reused"
    );
    let installed = h.dir.path().join("data/tools/terraform/1.0.3/terraform");
    assert!(installed.is_file(), "{}", installed.display());
    let doctor = tfgate::doctor::doctor_for_config(&h.state.config)
        .await
        .to_string();
    let line = doctor.lines().find(|l| l.contains("terraform ")).unwrap();
    assert!(line.contains("Terraform 1.0.3 installed"), "{doctor}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_checks_a_release_before_it_is_installed() {
    if !terraform_tools_available() {
        return;
    }
    let good = ReleaseMirror::start(Fault::None).await;
    let h = harness(&good, &policy("terraform_version: 1.0.3")).await;
    let doctor = tfgate::doctor::doctor_for_config(&h.state.config)
        .await
        .to_string();
    let line = doctor.lines().find(|l| l.contains("terraform ")).unwrap();
    assert!(line.starts_with("ok"), "{doctor}");
    assert!(
        line.contains("Terraform 1.0.3 downloadable (signature checked)"),
        "{doctor}"
    );
    assert_eq!(
        good.archive_downloads().await,
        0,
        "doctor fetches only the signed checksums"
    );
    let bad = ReleaseMirror::start(Fault::BadSignature).await;
    let h = harness(&bad, &policy("terraform_version: 1.0.3")).await;
    let doctor = tfgate::doctor::doctor_for_config(&h.state.config)
        .await
        .to_string();
    let line = doctor.lines().find(|l| l.contains("terraform ")).unwrap();
    assert!(line.starts_with("FAIL"), "{doctor}");
    assert!(
        line.contains("Terraform 1.0.3 cannot be installed"),
        "{doctor}"
    );
    assert!(line.contains("not made by a trusted key"), "{doctor}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_root_that_requires_a_newer_terraform_is_told_which_constraint() {
    if !terraform_tools_available() {
        return;
    }
    let mirror = ReleaseMirror::start(Fault::None).await;
    let h = harness(&mirror, &policy("terraform_version: 1.0.3")).await;
    let _repo = serve_root(&h, "terraform {\n  required_version = \">= 1.5.0\"\n}\n").await;
    let reply = plan(&h).await;
    assert!(
        reply.contains("`infra/app` requires `>= 1.5.0` (required\\_version) and the policy gives it Terraform 1.0.3; set `terraform_version` for `app` to a version that fits"),
        "{reply}"
    );
    assert!(!reply.contains("📝 changes"), "{reply}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tampered_release_is_refused_and_the_pr_is_told() {
    if !terraform_tools_available() {
        return;
    }
    let mirror = ReleaseMirror::start(Fault::TamperedArchive).await;
    let h = harness(&mirror, &policy("terraform_version: 1.0.3")).await;
    let _repo = serve_root(&h, "").await;
    let reply = plan(&h).await;
    assert!(
        reply.contains("- `app`: Terraform 1.0.3 was downloaded and refused: it does not match the vendor's signed checksums, so nothing was installed and nothing ran."),
        "{reply}"
    );
    assert!(!h.dir.path().join("data/tools/terraform/1.0.3").exists());
}
