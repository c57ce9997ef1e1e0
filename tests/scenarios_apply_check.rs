//! Apply before merge (issue 28): every PR gets a `tfgate/apply` check run on its head that
//! passes only when each affected root's plan of the head was applied or changes nothing; a PR
//! merged anyway is told which roots it left, and the merge is audited. Real Terraform.

mod support;

use support::fake_github::FakeReview;
use support::*;

const ROOT: &str = "terraform {\n  required_providers {\n    fake = { source = \"tfgate/fake\", version = \"0.1.0\" }\n  }\n}\nresource \"fake_thing\" \"a\" {\n  name = \"a\"\n}\n";

/// (conclusion, title) of the latest `tfgate/apply` check run.
fn apply_check(h: &Harness) -> (String, String) {
    let check = h
        .github
        .requests_to("POST", "/check-runs")
        .into_iter()
        .rev()
        .find(|r| r.body.contains("\"tfgate/apply\""))
        .map(|r| serde_json::from_str::<serde_json::Value>(&r.body).unwrap())
        .expect("a tfgate/apply check run");
    let text = |v: &serde_json::Value| v.as_str().unwrap_or("").to_string();
    (text(&check["conclusion"]), text(&check["output"]["title"]))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_apply_check_passes_once_the_plan_is_applied() {
    let Some((h, _repo)) = one_root_harness("", ROOT).await else {
        return;
    };
    h.comment(1, "/plan", "alice").await;
    let waiting = ("action_required".into(), "1 root(s) not applied yet".into());
    assert_eq!(apply_check(&h), waiting);
    h.github.with(|g| {
        g.permissions.insert("bob".into(), "write".into());
        g.reviews = vec![FakeReview {
            user: "bob".into(),
            state: "APPROVED".into(),
            commit_id: g.pr.head_sha.clone(),
            is_bot: false,
        }];
    });
    let applied = h.comment(1, "/apply", "alice").await.join("\n");
    assert!(applied.contains("✅ succeeded"), "{applied}");
    let done = "every affected root is applied or unchanged";
    assert_eq!(apply_check(&h), ("success".into(), done.into()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_merge_with_an_unapplied_plan_is_told_and_audited() {
    let Some((h, _repo)) = one_root_harness("", ROOT).await else {
        return;
    };
    h.comment(1, "/plan", "alice").await;
    let mut merged = webhook_fixture("pull_request.closed.json");
    merged["number"] = 1.into();
    merged["pull_request"]["number"] = 1.into();
    merged["pull_request"]["merged"] = true.into();
    h.deliver("pull_request", &merged).await;
    h.run_jobs().await;

    let told = h.github.comments().last().unwrap().body.clone();
    assert!(
        told.contains("## ⚠ Merged with unapplied changes"),
        "{told}"
    );
    assert!(told.contains("- `app`: planned, not applied"), "{told}");
    let audited: Vec<(String, String)> =
        sqlx::query_as("SELECT result, detail FROM audit_events WHERE action = 'merge'")
            .fetch_all(&h.state.db.pool)
            .await
            .unwrap();
    assert_eq!(
        audited,
        [("unapplied".into(), "app (planned, not applied)".into())]
    );
}
