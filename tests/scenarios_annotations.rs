//! Check-run annotations: every one reaches GitHub, in batches of 50 (the API's limit per
//! request), each pointing at the file's path in the repository, not in the root.

#[path = "support/fake_github_outbox.rs"]
#[allow(dead_code)]
mod fake_github_outbox;
mod support;

use support::fake_github::faults::Fault;
use support::jobs::run_jobs_with_retries;
use support::*;

/// A root with `n` errors, each on its own line of `main.tf`.
fn root_with_errors(n: usize) -> String {
    let mut tf = String::from("terraform {\n  required_providers {\n    fake = { source = \"tfgate/fake\", version = \"0.1.0\" }\n  }\n}\n");
    for i in 0..n {
        tf.push_str(&format!("output \"o{i}\" {{ value = var.missing_{i} }}\n"));
    }
    tf
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixty_errors_become_sixty_annotations_in_two_batches() {
    let Some((h, _repo)) = one_root_harness("", &root_with_errors(60)).await else {
        return;
    };
    let reply = h.comment(1, "/plan", "alice").await.join("\n");
    assert!(reply.contains("❌ failed"), "{reply}");
    let (annotations, conclusions) = h.github.check_run_annotations("tfgate plan: app");
    assert_eq!(
        conclusions,
        ["failure"],
        "one check run, completed by its last batch"
    );
    assert_eq!(annotations.len(), 60);
    let mut lines: Vec<i64> = annotations
        .iter()
        .map(|a| {
            assert_eq!(a["path"], "infra/app/main.tf");
            a["start_line"].as_i64().unwrap()
        })
        .collect();
    lines.sort();
    assert_eq!(lines, (6..66).collect::<Vec<i64>>());
    let patches = h.github.requests_to("PATCH", "/check-runs/");
    assert_eq!(patches.len(), 1, "51..60 go in one more request");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_run_left_in_progress_is_finished_by_the_next_publish() {
    let Some((h, _repo)) = one_root_harness("", &root_with_errors(60)).await else {
        return;
    };
    let _listed = h.github.list_created_check_runs().await;
    // GitHub refuses the second batch: the check run stays `in_progress` with 50.
    h.github
        .fail_next("PATCH", "/check-runs/", Fault::unprocessable());
    h.deliver("issue_comment", &pr_comment("/plan", "alice"))
        .await;
    let failures = run_jobs_with_retries(&h).await;

    assert_eq!(failures, 1, "the first publish failed");
    let (annotations, conclusions) = h.github.check_run_annotations("tfgate plan: app");
    assert_eq!(conclusions, ["failure"], "the same check run, completed");
    assert_eq!(annotations.len(), 60, "none lost");
    let plan_check_posts = h.github.requests_to("POST", "/check-runs");
    let plan_check_posts = plan_check_posts
        .iter()
        .filter(|r| r.body.contains("tfgate plan: app"));
    assert_eq!(plan_check_posts.count(), 1);
    assert_eq!(h.github.requests_to("PATCH", "/check-runs/").len(), 2);
}
