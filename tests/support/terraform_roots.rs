//! Roots for real Terraform: the tools under `.tools/`, moto's S3 as the state backend, and
//! harnesses serving one root.

use std::path::PathBuf;

use super::{one_root_policy, Backend, Harness};

pub fn tools_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".tools")
}

/// Whether real Terraform, the test provider and moto are available; when they are not, the
/// test is skipped with a note, or fails under `TFGATE_REQUIRE_TOOLS=1` (CI).
pub fn terraform_tools_available() -> bool {
    let missing: Vec<&str> = [
        (!tools_dir().join("bin/terraform").is_file())
            .then_some("terraform (scripts/install-terraform.sh)"),
        (!tools_dir().join("fake-provider.tfrc").is_file())
            .then_some("test provider (scripts/build-test-provider.sh)"),
        std::env::var("TFGATE_TEST_MOTO_URL")
            .map(|u| u.is_empty())
            .unwrap_or(true)
            .then_some("moto (TFGATE_TEST_MOTO_URL)"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if missing.is_empty() {
        // moto accepts any credentials; the base chain reads them from the environment.
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            std::env::set_var("AWS_ACCESS_KEY_ID", "testing");
            std::env::set_var("AWS_SECRET_ACCESS_KEY", "testing");
        });
        return true;
    }
    if std::env::var("TFGATE_REQUIRE_TOOLS").as_deref() == Ok("1") {
        panic!("TFGATE_REQUIRE_TOOLS=1 but missing: {}", missing.join(", "));
    }
    eprintln!("SKIPPED: missing {}", missing.join(", "));
    false
}

/// Creates the `tfstate` bucket in moto's S3 that [`moto_root_tf`] roots keep their state in
/// (a bucket that exists already is fine).
pub async fn create_state_bucket() {
    let moto = std::env::var("TFGATE_TEST_MOTO_URL").unwrap();
    reqwest::Client::new()
        .put(format!("{moto}/tfstate"))
        .send()
        .await
        .unwrap();
}

/// A root for the test provider whose state lives in moto's S3 under `state_key`, then
/// `resources` (HCL).
pub fn moto_root_tf(state_key: &str, resources: &str) -> String {
    let moto = std::env::var("TFGATE_TEST_MOTO_URL").unwrap_or_default();
    format!(
        r#"terraform {{
  required_providers {{
    fake = {{ source = "tfgate/fake", version = "0.1.0" }}
  }}
  backend "s3" {{
    bucket                      = "tfstate"
    key                         = "{state_key}"
    region                      = "us-east-1"
    endpoint                    = "{moto}"
    force_path_style            = true
    skip_credentials_validation = true
    skip_metadata_api_check     = true
    skip_region_validation      = true
  }}
}}
provider "fake" {{}}
{resources}"#
    )
}

/// A PR (alice may write) whose one root `app` in `infra/app` is `main_tf`, served by the fake
/// GitHub; `extra_policy` is appended to the project's policy entry. `None` when Terraform
/// or the test provider is missing.
pub async fn one_root_harness(
    extra_policy: &str,
    main_tf: &str,
) -> Option<(Harness, tempfile::TempDir)> {
    if !terraform_tools_available() {
        return None;
    }
    let policy = one_root_policy("app", "infra/app", extra_policy);
    let h = Harness::start_with_policy(Backend::Sqlite, Some(&policy)).await?;
    let repo = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(repo.path().join("infra/app")).unwrap();
    std::fs::write(repo.path().join("infra/app/main.tf"), main_tf).unwrap();
    h.github.serve_repo(repo.path());
    h.github.with(|g| {
        g.files = vec!["infra/app/main.tf".into()];
        g.permissions.insert("alice".into(), "write".into());
    });
    Some((h, repo))
}

/// Like [`one_root_harness`], on `backend` and with the whole `policy` given (its one root
/// `app` in `infra/app`).
pub async fn policy_root_harness(
    backend: Backend,
    policy: &str,
    main_tf: &str,
) -> Option<(Harness, tempfile::TempDir)> {
    if !terraform_tools_available() {
        return None;
    }
    let h = Harness::start_with_policy(backend, Some(policy)).await?;
    let repo = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(repo.path().join("infra/app")).unwrap();
    std::fs::write(repo.path().join("infra/app/main.tf"), main_tf).unwrap();
    h.github.serve_repo(repo.path());
    h.github.with(|g| {
        g.files = vec!["infra/app/main.tf".into()];
        g.permissions.insert("alice".into(), "write".into());
    });
    Some((h, repo))
}
