//! A run is bound to the commit the policy decided on: when the PR head moves between the
//! command and the run, nothing is checked out, planned or applied, and the PR is told.

mod support;

use support::fake_github::FakeReview;
use support::*;
use tfgate::jobs::runner::JobHandler;
use tfgate::worker::JobRouter;

fn policy() -> String {
    one_root_policy("eks", "infra/eks", "apply_requirements: [approved]\n")
}

const H1: &str = "1111111111111111111111111111111111111111";
const H2: &str = "2222222222222222222222222222222222222222";

/// A PR at H1 touching infra/eks, approved by bob at H1; alice may apply.
fn approved_at_h1(h: &Harness) {
    h.github.with(|g| {
        g.pr.head_sha = H1.into();
        g.files = vec!["infra/eks/main.tf".into()];
        g.permissions.insert("alice".into(), "write".into());
        g.permissions.insert("bob".into(), "write".into());
        g.reviews = vec![FakeReview {
            user: "bob".into(),
            state: "APPROVED".into(),
            commit_id: H1.into(),
            is_bot: false,
        }];
    });
}

/// Handle the oldest queued job only (the comment), leaving the runs it queues.
async fn handle_one_job(h: &Harness) {
    let job = tfgate::db::jobs::claim(&h.state.db, "test-worker", 30_000)
        .await
        .unwrap()
        .expect("a queued job");
    JobRouter::new(h.state.clone()).handle(&job).await.unwrap();
    tfgate::db::jobs::complete(&h.state.db, &job).await.unwrap();
}

async fn run_rows(h: &Harness) -> i64 {
    sqlx::query_scalar("SELECT COUNT(*) FROM runs")
        .fetch_one(&h.state.db.pool)
        .await
        .unwrap()
}

scenario!(
    a_push_after_plan_and_apply_were_accepted_runs_nothing,
    policy = &policy(),
    |h| {
        approved_at_h1(&h);
        h.deliver("issue_comment", &pr_comment("/plan\n/apply", "alice"))
            .await;
        handle_one_job(&h).await;
        assert_eq!(
            h.jobs_of("run").await,
            2,
            "plan and apply were accepted at H1"
        );

        h.github.with(|g| g.pr.head_sha = H2.into()); // pushed before the runs start
        let before = h.github.comments().len();
        h.run_jobs().await;

        let replies: Vec<String> = h.github.comments()[before..]
            .iter()
            .map(|c| c.body.clone())
            .collect();
        assert_eq!(replies.len(), 2, "{replies:?}");
        assert!(
            replies[0].contains("The head moved from `1111111` to `2222222`"),
            "{replies:?}"
        );
        assert!(
            replies[0].contains("`/plan`") && replies[1].contains("`/apply`"),
            "{replies:?}"
        );
        assert!(
            replies.iter().all(|r| r.contains("Comment again")),
            "{replies:?}"
        );
        assert_eq!(run_rows(&h).await, 0, "nothing was checked out or run");
    }
);

scenario!(
    accepted_runs_carry_the_authorised_head,
    policy = &policy(),
    |h| {
        approved_at_h1(&h);
        h.deliver("issue_comment", &pr_comment("/plan\n/apply", "alice"))
            .await;
        handle_one_job(&h).await;
        let payloads: Vec<String> =
            sqlx::query_scalar("SELECT payload FROM jobs WHERE kind = 'run' ORDER BY id")
                .fetch_all(&h.state.db.pool)
                .await
                .unwrap();
        for payload in payloads {
            let run: tfgate::jobs::RunJob = serde_json::from_str(&payload).unwrap();
            assert_eq!(run.head_sha, H1);
        }
    }
);

scenario!(
    a_push_overtaken_by_a_newer_one_autoplans_nothing,
    policy = &policy(),
    |h| {
        approved_at_h1(&h);
        let mut push = webhook_fixture("pull_request.synchronize.json");
        push["pull_request"]["head"]["sha"] = H1.into();
        h.github.with(|g| {
            g.pr.head_sha = H2.into(); // a second push landed before the first was handled
            g.permissions.insert("Codertocat".into(), "write".into());
        });
        h.deliver("pull_request", &push).await;
        h.run_jobs_except(&["run"]).await;
        assert_eq!(h.jobs_of("run").await, 0, "H2's own event plans H2");
    }
);
