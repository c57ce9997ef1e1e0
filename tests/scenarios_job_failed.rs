//! No silent failures: a job that fails for good tells the PR which command failed and how an
//! admin finds the error, adds 😕 to the comment, and frees the roots its runs held.

mod support;

use std::sync::Arc;
use std::time::Duration;

use support::*;
use tfgate::jobs::runner::{run_worker, WorkerOptions};
use tfgate::worker::JobRouter;

fn policy() -> String {
    one_root_policy("eks", "infra/eks", "")
}

/// Run the real worker loop until no job is queued or running.
async fn run_worker_until_idle(h: &Harness) {
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let opts = WorkerOptions {
        name: "test-worker".into(),
        lease: Duration::from_secs(30),
        poll_interval: Duration::from_millis(20),
    };
    let router = Arc::new(JobRouter::new(h.state.clone()));
    let worker = tokio::spawn(run_worker(
        h.state.db.clone(),
        router,
        opts,
        h.state.metrics.clone(),
        h.state.wake.clone(),
        stopped,
    ));
    h.wait_idle().await;
    stop.send(true).unwrap();
    worker.await.unwrap();
}

/// A worker that cannot set Terraform up at all (its sandbox relay binary is missing): every
/// run job fails permanently. (A missing Terraform is no longer such a failure: it is a note
/// naming the project, `scenarios_terraform::a_project_naming_a_missing_terraform_is_told_so`.)
mod without_the_sandbox_relay {
    use super::*;

    async fn story(backend: Backend) {
        let Some(h) = Harness::start_with(backend, Some(&policy()), |args| {
            args.sandbox_relay = Some("/nonexistent/tfgate".into());
        })
        .await
        else {
            return;
        };
        h.github.with(|g| {
            g.files = vec!["infra/eks/main.tf".into()];
            g.permissions.insert("alice".into(), "write".into());
        });
        let comment = pr_comment("/plan", "alice");
        h.deliver("issue_comment", &comment).await;
        run_worker_until_idle(&h).await;

        let run_job: i64 = sqlx::query_scalar("SELECT id FROM jobs WHERE kind = 'run'")
            .fetch_one(&h.state.db.pool)
            .await
            .unwrap();
        let told: Vec<String> = h.github.comments().into_iter().map(|c| c.body).collect();
        assert_eq!(told.len(), 1, "{told:?}");
        assert!(
            told[0].contains("tfgate could not finish this command"),
            "{told:?}"
        );
        assert!(told[0].contains("`/plan` of `eks`"), "{told:?}");
        assert!(told[0].contains(&format!("(job `{run_job}`)")), "{told:?}");
        assert!(
            !told[0].contains("/nonexistent"),
            "no internal detail: {told:?}"
        );
        let id = comment["comment"]["id"].as_i64().unwrap();
        assert_eq!(
            h.github.reactions(),
            vec![(id, "eyes".to_string()), (id, "confused".to_string())]
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sqlite() {
        story(Backend::Sqlite).await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn postgres() {
        story(Backend::Postgres).await
    }
}
