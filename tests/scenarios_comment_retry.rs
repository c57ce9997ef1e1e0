//! A comment job that runs again (its worker died before completing it, or it failed after
//! queueing its runs and is retried) queues no run a second time: each `/plan` runs once.

mod support;

use support::*;
use tfgate::db::jobs as queue;
use tfgate::jobs::runner::JobHandler;
use tfgate::worker::JobRouter;

fn policy() -> String {
    one_root_policy("app", "infra/app", "")
}

scenario!(
    a_comment_job_taken_over_from_a_dead_worker_queues_its_plan_once,
    policy = &policy(),
    |h| {
        h.github.with(|g| {
            g.files = vec!["infra/app/main.tf".into()];
            g.permissions.insert("alice".into(), "write".into());
        });
        h.deliver("issue_comment", &pr_comment("/plan -p app", "alice"))
            .await;
        // A worker queues the plan, then dies before it can mark the comment job done.
        let job = queue::claim(&h.state.db, "dead-worker", 30_000)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(job.kind, "comment");
        JobRouter::new(h.state.clone()).handle(&job).await.unwrap();
        assert_eq!(h.jobs_of("run").await, 1);
        queue::expire_leases_of(&h.state.db, "dead-worker")
            .await
            .unwrap();

        // Another worker takes the comment job over and runs it again (runs dropped unrun).
        h.run_jobs_except(&["run"]).await;
        assert_eq!(h.jobs_of("run").await, 1, "the plan is queued once");
    }
);
