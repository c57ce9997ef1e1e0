//! Notices go through the outbox like results: a run job records the notice (here: the head
//! moved after the command was accepted) and a `publish` job posts it, with retries of its own.
//! A GitHub failure while posting fails the publish job, not the run job (which ran once), and
//! the notice is posted once. GitHub faults from `support/fake_github_outbox.rs`.

mod support;

// Only the comment faults are used here.
#[allow(dead_code)]
#[path = "support/fake_github_outbox.rs"]
mod fake_github_outbox;

use support::fake_github::FakeReview;
use support::jobs::run_jobs_with_retries;
use support::*;
use tfgate::jobs::runner::JobHandler;
use tfgate::worker::JobRouter;

/// How often one call answered 5xx is sent (see `scenarios_outbox`).
const GITHUB_CALL_TRIES: u64 = 4;

const H1: &str = "1111111111111111111111111111111111111111";
const H2: &str = "2222222222222222222222222222222222222222";

fn policy() -> String {
    one_root_policy("eks", "infra/eks", "apply_requirements: []\n")
}

async fn count(h: &Harness, sql: &str) -> i64 {
    sqlx::query_scalar(sql)
        .fetch_one(&h.state.db.pool)
        .await
        .unwrap()
}

scenario!(
    a_notice_is_posted_once_after_failed_posts_and_its_run_is_not_rerun,
    policy = &policy(),
    |h| {
        h.github.with(|g| {
            g.pr.head_sha = H1.into();
            g.files = vec!["infra/eks/main.tf".into()];
            g.permissions.insert("alice".into(), "write".into());
            g.reviews = vec![FakeReview {
                user: "bob".into(),
                state: "APPROVED".into(),
                commit_id: H1.into(),
                is_bot: false,
            }];
        });
        h.deliver("issue_comment", &pr_comment("/plan", "alice"))
            .await;
        let job = tfgate::db::jobs::claim(&h.state.db, "test-worker", 30_000)
            .await
            .unwrap()
            .expect("the comment job");
        JobRouter::new(h.state.clone()).handle(&job).await.unwrap();
        tfgate::db::jobs::complete(&h.state.db, &job).await.unwrap();
        h.github.with(|g| g.pr.head_sha = H2.into()); // pushed before the run starts
        let before = h.github.comments().len();
        h.github.fail_next_comment_posts(GITHUB_CALL_TRIES).await;
        h.github
            .lose_next_comment_answer(GITHUB_CALL_TRIES - 1)
            .await;

        let failures = run_jobs_with_retries(&h).await;

        assert!(failures >= 1, "posting the notice failed {failures} times");
        let moved: Vec<String> = h.github.comments()[before..]
            .iter()
            .map(|c| c.body.clone())
            .filter(|b| b.contains("The head moved from `1111111` to `2222222`"))
            .collect();
        assert_eq!(moved.len(), 1, "one notice, not a duplicate: {moved:?}");
        let run_attempts = "SELECT attempts FROM jobs WHERE kind = 'run'";
        assert_eq!(count(&h, run_attempts).await, 1, "the run job ran once");
        let publish_attempts = "SELECT attempts FROM jobs WHERE kind = 'publish'";
        assert_eq!(count(&h, publish_attempts).await, failures as i64 + 1);
        let notices = "SELECT COUNT(*) FROM publications WHERE command = 'notice' \
                       AND key = 'head_moved:all:0' AND comment_id IS NOT NULL \
                       AND published_at IS NOT NULL";
        assert_eq!(count(&h, notices).await, 1);
    }
);
