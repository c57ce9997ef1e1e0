//! End to end: a `/plan` whose Terraform output passes the server's output cap is failed with
//! the `resource_limit` category, and the PR reads which limit it hit.

mod support;

use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_past_the_output_cap_tells_the_pr_which_limit() {
    if !terraform_tools_available() {
        return;
    }
    let policy = one_root_policy("big", "infra/big", "");
    let h = Harness::start_with(Backend::Sqlite, Some(&policy), |args| {
        args.sandbox_output_mb = Some(1);
    })
    .await
    .unwrap();
    create_state_bucket().await;
    let repo = tempfile::tempdir().unwrap();
    let dir = repo.path().join("infra/big");
    std::fs::create_dir_all(&dir).unwrap();
    let id = uuid::Uuid::new_v4().simple().to_string();
    // A 2 MB output value: the plan's JSON passes the 1 MiB cap.
    let resources = "output \"big\" { value = format(\"%02000000d\", 0) }\n";
    std::fs::write(
        dir.join("main.tf"),
        moto_root_tf(&format!("limit-{id}.tfstate"), resources),
    )
    .unwrap();
    h.github.serve_repo(repo.path());
    h.github.with(|g| {
        g.files = vec!["infra/big/main.tf".into()];
        g.permissions.insert("alice".into(), "write".into());
    });
    let replies = h.comment(1, "/plan", "alice").await.join("\n----\n");
    assert!(
        replies.contains("the run hit a resource limit: output size"),
        "{replies}"
    );
    assert!(replies.contains("resource limit"), "{replies}");
    assert!(
        !replies.contains("000000000000"),
        "no output reaches the PR"
    );
}
