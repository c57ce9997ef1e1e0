//! Per-project Terraform settings from the policy reach real Terraform: `var_files` for every
//! plan, `backend_config` for every `init` (a partial S3 backend completed on moto).

mod support;

use support::*;

const NEEDS_ENV: &str = "terraform {\n  required_providers {\n    fake = { source = \"tfgate/fake\", version = \"0.1.0\" }\n  }\n}\nvariable \"env\" {\n  type = string\n}\nresource \"fake_thing\" \"a\" {\n  name = \"a-${var.env}\"\n}\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_var_file_named_by_the_policy_is_passed_to_every_plan() {
    // Without the file the variable has no value and the plan fails (no prompts).
    let Some((bare, repo)) = one_root_harness("", NEEDS_ENV).await else {
        return;
    };
    let tfvars = repo.path().join("infra/app/env/prod.tfvars");
    std::fs::create_dir_all(tfvars.parent().unwrap()).unwrap();
    std::fs::write(&tfvars, "env = \"prod\"\n").unwrap();
    bare.github.serve_repo(repo.path());
    let reply = bare.comment(1, "/plan", "alice").await.join("\n");
    assert!(reply.contains("❌ failed"), "{reply}");

    let extra = "    var_files: [env/prod.tfvars]\n";
    let (h, repo) = one_root_harness(extra, NEEDS_ENV).await.unwrap();
    std::fs::create_dir_all(repo.path().join("infra/app/env")).unwrap();
    std::fs::write(
        repo.path().join("infra/app/env/prod.tfvars"),
        "env = \"prod\"\n",
    )
    .unwrap();
    h.github.serve_repo(repo.path());
    let reply = h.comment(1, "/plan", "alice").await.join("\n");
    assert!(
        !reply.contains("failed") && reply.contains("| 1 |"),
        "{reply}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backend_config_completes_a_partial_backend_at_init() {
    let moto = std::env::var("TFGATE_TEST_MOTO_URL").unwrap_or_default();
    if moto.is_empty() {
        return;
    }
    create_state_bucket().await;
    let partial = "terraform {\n  required_providers {\n    fake = { source = \"tfgate/fake\", version = \"0.1.0\" }\n  }\n  backend \"s3\" {}\n}\nresource \"fake_thing\" \"a\" {\n  name = \"a\"\n}\n";
    let key = format!("settings-{}.tfstate", uuid::Uuid::new_v4().simple());
    let extra = format!(
        "    backend_config:\n      bucket: tfstate\n      key: {key}\n      region: us-east-1\n      endpoint: {moto}\n      force_path_style: \"true\"\n      skip_credentials_validation: \"true\"\n      skip_metadata_api_check: \"true\"\n      skip_region_validation: \"true\"\n"
    );
    let Some((h, _repo)) = one_root_harness(&extra, partial).await else {
        return;
    };
    let reply = h.comment(1, "/plan", "alice").await.join("\n");
    assert!(
        !reply.contains("failed") && reply.contains("| 1 |"),
        "{reply}"
    );
    // Without the settings the same root cannot even initialise.
    let (bare, _repo) = one_root_harness("", partial).await.unwrap();
    let reply = bare.comment(1, "/plan", "alice").await.join("\n");
    assert!(reply.contains("❌ failed"), "{reply}");
}
