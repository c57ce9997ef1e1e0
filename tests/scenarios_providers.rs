//! Provider installation is the admin's choice, not the PR's: `init` installs only the
//! policy's `providers` (from the server's mirror), and provider settings committed in the
//! checkout are removed before `init`, with one note on the PR.

mod support;

use support::*;

const FAKE_ROOT: &str = "terraform {\n  required_providers {\n    fake = { source = \"tfgate/fake\", version = \"0.1.0\" }\n  }\n}\nresource \"fake_thing\" \"a\" {\n  name = \"a\"\n}\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_provider_the_policy_does_not_name_is_not_installed() {
    // The project allows only hashicorp/* (the default); the root needs tfgate/fake.
    let extra = "    providers: [\"hashicorp/*\"]\n";
    let Some((h, _repo)) = one_root_harness(extra, FAKE_ROOT).await else {
        return;
    };
    let reply = h.comment(1, "/plan", "alice").await.join("\n");
    assert!(reply.contains("❌ failed"), "{reply}");
    let allowed = one_root_harness("", FAKE_ROOT).await.unwrap().0;
    let reply = allowed.comment(1, "/plan", "alice").await.join("\n");
    assert!(
        !reply.contains("failed") && reply.contains("| 1 |"),
        "{reply}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn committed_provider_settings_are_removed_before_init_and_the_pr_is_told_once() {
    let Some((h, repo)) = one_root_harness("", FAKE_ROOT).await else {
        return;
    };
    let root = repo.path().join("infra/app");
    // A committed plugin directory and CLI config that would install another provider.
    std::fs::create_dir_all(root.join("terraform.d/plugins/registry.terraform.io/tfgate/fake"))
        .unwrap();
    std::fs::create_dir_all(root.join(".terraform/providers")).unwrap();
    std::fs::write(
        root.join(".terraformrc"),
        "provider_installation {\n  direct {}\n}\n",
    )
    .unwrap();
    h.github.serve_repo(repo.path());
    let reply = h.comment(1, "/plan", "alice").await.join("\n");
    assert!(!reply.contains("failed"), "{reply}");
    let note = "removed committed provider settings before `init` (`infra/app/.terraform`, `infra/app/.terraformrc`, `infra/app/terraform.d`)";
    assert_eq!(reply.matches(note).count(), 1, "{reply}");
}

/// The root needs `tfgate/fake`; the project's `providers:` lists only `hashicorp/*`. The plan
/// comment names the category, the source and the policy key, not a configuration error.
async fn an_unlisted_provider_is_named_with_the_policy_key(backend: Backend) {
    let policy = "repos: [\"Codertocat/Hello-World\"]\ndefaults:\n  plan_role: arn:aws:iam::111111111111:role/tfgate-plan\n  apply_role: arn:aws:iam::111111111111:role/tfgate-apply\nprojects:\n  - name: app\n    dir: infra/app\n    providers: [\"hashicorp/*\"]\n";
    let Some((h, _repo)) = policy_root_harness(backend, policy, FAKE_ROOT).await else {
        return;
    };
    let reply = h.comment(1, "/plan", "alice").await.join("\n");
    assert!(reply.contains("❌ failed"), "{reply}");
    assert!(
        reply.contains("| — |  | provider not allowed |  |  |"),
        "{reply}"
    );
    assert!(
        reply.contains("`init` could not install `registry.terraform.io/tfgate/fake`, which this project's `providers:` does not list: an admin can add it under `providers:`"),
        "{reply}"
    );
    assert!(!reply.contains("configuration error"), "{reply}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn provider_not_allowed_sqlite() {
    an_unlisted_provider_is_named_with_the_policy_key(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn provider_not_allowed_postgres() {
    an_unlisted_provider_is_named_with_the_policy_key(Backend::Postgres).await;
}
