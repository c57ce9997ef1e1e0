//! Plans made stale by another PR's apply (issue 41, item 3): when PR 1 applies root `eks`,
//! PR 2's plan of `eks`, made before, gets a banner on its plan comment and its
//! `tfgate/apply` check says why it is not ready, in the same job flow (no timer); a plan
//! made after the apply is not marked; with `replan_on_apply: true` the root is planned again
//! once PR 1 releases its lock. Real Terraform, SQLite and PostgreSQL.

mod support;

use support::fake_github::FakeReview;
use support::*;

const ROOT: &str = "terraform {\n  required_providers {\n    fake = { source = \"tfgate/fake\", version = \"0.1.0\" }\n  }\n}\nresource \"fake_thing\" \"a\" {\n  name = \"a\"\n}\n";

const BANNER_MARKER: &str = "<!-- tfgate:stale:eks:default -->";

async fn harness(backend: Backend, extra: &str) -> Option<(Harness, tempfile::TempDir)> {
    let policy = format!("{}{extra}", one_root_policy("eks", "infra/app", ""));
    let (h, repo) = policy_root_harness(backend, &policy, ROOT).await?;
    h.github.with(|g| {
        g.permissions.insert("bob".into(), "write".into());
        g.reviews = vec![FakeReview {
            user: "bob".into(),
            state: "APPROVED".into(),
            commit_id: g.pr.head_sha.clone(),
            is_bot: false,
        }];
    });
    Some((h, repo))
}

/// The plan comments of PR `number`, oldest first (as they read now).
fn plan_comments(h: &Harness, number: i64) -> Vec<String> {
    h.github
        .comments()
        .into_iter()
        .filter(|c| c.number == number && c.body.contains("kind=plan"))
        .map(|c| c.body)
        .collect()
}

/// PR 2 plans `eks` and releases its lock; PR 1 plans and applies it.
async fn pr2_planned_then_pr1_applied(h: &Harness) {
    h.comment(2, "/plan", "alice").await;
    h.comment(2, "/unlock", "alice").await;
    h.comment(1, "/plan", "alice").await;
    let applied = h.comment(1, "/apply", "alice").await.join("\n");
    assert!(applied.contains("✅ succeeded"), "{applied}");
}

/// The banner of a comment with its time made stable.
fn banner_of(body: &str) -> String {
    let banner = body.split("\n\n").next().unwrap();
    let time = regex::Regex::new(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC").unwrap();
    time.replace_all(banner, "[time]").into_owned()
}

async fn another_prs_apply_marks_the_plan_stale(backend: Backend) {
    let Some((h, _repo)) = harness(backend, "").await else {
        return;
    };
    pr2_planned_then_pr1_applied(&h).await;

    let pr2 = plan_comments(&h, 2);
    assert_eq!(pr2.len(), 1, "{pr2:?}");
    assert!(pr2[0].starts_with(BANNER_MARKER), "{}", pr2[0]);
    assert!(
        pr2[0].contains("## "),
        "the plan is kept under the banner: {}",
        pr2[0]
    );
    insta::assert_snapshot!("stale_banner", banner_of(&pr2[0]));
    // The applying PR's own plan is not marked.
    assert!(plan_comments(&h, 1)
        .iter()
        .all(|b| !b.contains(BANNER_MARKER)));

    let stale_check = h
        .github
        .requests_to("POST", "/check-runs")
        .into_iter()
        .map(|r| serde_json::from_str::<serde_json::Value>(&r.body).unwrap())
        .filter(|c| c["name"] == "tfgate/apply")
        .find(|c| {
            c["output"]["summary"]
                .as_str()
                .is_some_and(|s| s.contains("plan out of date: #1 applied this root at"))
        })
        .expect("PR 2's tfgate/apply check names the stale plan");
    assert_eq!(stale_check["conclusion"], "action_required");

    // PR 3 plans after the apply: a mark_stale job run again for the same apply (a retry)
    // marks neither it nor PR 2 a second time.
    h.comment(1, "/unlock", "alice").await;
    h.comment(3, "/plan", "alice").await;
    let payload: String = sqlx::query_scalar(
        "SELECT payload FROM jobs WHERE kind = 'mark_stale' ORDER BY id LIMIT 1",
    )
    .fetch_one(&h.state.db.pool)
    .await
    .unwrap();
    let new = tfgate::jobs::NewJob {
        kind: tfgate::jobs::JobKind::MarkStale,
        payload,
        repo: Some("Codertocat/Hello-World".into()),
        pr: Some(1),
        max_attempts: 3,
    };
    tfgate::db::jobs::enqueue(&h.state.db, &new).await.unwrap();
    h.run_jobs().await;
    let pr3 = plan_comments(&h, 3);
    assert_eq!(pr3.len(), 1);
    assert!(!pr3[0].contains(BANNER_MARKER), "{}", pr3[0]);
    let pr2_again = plan_comments(&h, 2);
    assert_eq!(pr2_again, pr2, "one banner, however often the job runs");
}

async fn replan_on_apply_plans_again_once_the_lock_is_released(backend: Backend) {
    let Some((h, _repo)) = harness(backend, "replan_on_apply: true\n").await else {
        return;
    };
    pr2_planned_then_pr1_applied(&h).await;
    // PR 1 still holds the lock: the banner says when the plan comes.
    let pr2 = plan_comments(&h, 2);
    assert_eq!(pr2.len(), 1, "{pr2:?}");
    insta::assert_snapshot!("stale_banner_replan_after_release", banner_of(&pr2[0]));

    h.comment(1, "/unlock", "alice").await;
    let pr2 = plan_comments(&h, 2);
    assert_eq!(pr2.len(), 2, "PR 2 got a new plan comment: {pr2:?}");
    assert!(!pr2[1].contains(BANNER_MARKER), "{}", pr2[1]);
    let actors: Vec<String> =
        sqlx::query_scalar("SELECT actor FROM runs WHERE pr = 2 AND command = 'plan' ORDER BY id")
            .fetch_all(&h.state.db.pool)
            .await
            .unwrap();
    assert_eq!(actors, ["alice", "tfgate"]);
    // Unlocking again plans nothing more: the new plan is not stale.
    h.comment(1, "/unlock", "alice").await;
    assert_eq!(plan_comments(&h, 2).len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_prs_apply_marks_the_plan_stale_sqlite() {
    another_prs_apply_marks_the_plan_stale(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_prs_apply_marks_the_plan_stale_postgres() {
    another_prs_apply_marks_the_plan_stale(Backend::Postgres).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replan_on_apply_plans_again_once_the_lock_is_released_sqlite() {
    replan_on_apply_plans_again_once_the_lock_is_released(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replan_on_apply_plans_again_once_the_lock_is_released_postgres() {
    replan_on_apply_plans_again_once_the_lock_is_released(Backend::Postgres).await;
}
