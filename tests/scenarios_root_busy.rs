//! One plan or apply at a time per root, and locks that cannot be pulled from under a running
//! run: a second run is refused with who is running, and `/unlock` or a closed PR releases
//! such a lock only when the run ends.

mod support;

use support::*;
use tfgate::db::locks::{self, RootClaim, RootKey};
use tfgate::db::runs::{self, NewRun};
use tfgate::run_planner::record::RunStatus;

fn policy() -> String {
    one_root_policy("eks", "infra/eks", "")
}

const REPO: &str = "Codertocat/Hello-World";
const EKS: RootKey<'static> = RootKey {
    repo: REPO,
    project: "eks",
    workspace: "default",
};

fn writer_on_eks(h: &Harness) {
    h.github.with(|g| {
        g.files = vec!["infra/eks/main.tf".into()];
        g.permissions.insert("alice".into(), "write".into());
    });
}

/// A running apply of eks by PR 1 (claimed for job `job`), holding the PR's lock.
async fn running_apply(h: &Harness, job: Option<i64>) -> i64 {
    let run = NewRun {
        job_id: None,
        repo: REPO,
        pr: 1,
        project: "eks",
        dir: "infra/eks",
        workspace: "default",
        command: "apply",
        actor: "alice",
        head_sha: &"a".repeat(40),
        terraform_args: &[],
    };
    let id = runs::create(&h.state.db, &run).await.unwrap();
    let claim = locks::claim_root(&h.state.db, EKS, id, job, "apply")
        .await
        .unwrap();
    assert_eq!(claim, RootClaim::Claimed);
    locks::acquire(&h.state.db, REPO, "eks", "default", 1, "alice")
        .await
        .unwrap();
    id
}

async fn locks_held(h: &Harness) -> i64 {
    sqlx::query_scalar("SELECT COUNT(*) FROM locks")
        .fetch_one(&h.state.db.pool)
        .await
        .unwrap()
}

async fn comment(h: &Harness, body: &str) -> Vec<String> {
    h.comment(1, body, "alice").await
}

scenario!(
    a_plan_waits_for_the_running_apply_of_its_root,
    policy = &policy(),
    |h| {
        writer_on_eks(&h);
        let apply = running_apply(&h, None).await;
        let replies = comment(&h, "/plan -p eks").await;
        let busy = format!("`eks` is being applied by run `{apply}`; wait for it");
        assert!(replies.iter().any(|r| r.contains(&busy)), "{replies:?}");
        let runs: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM runs")
            .fetch_one(&h.state.db.pool)
            .await
            .unwrap();
        assert_eq!(runs, 1, "the refused plan leaves no run behind");
    }
);

scenario!(unlock_waits_for_the_running_run, policy = &policy(), |h| {
    writer_on_eks(&h);
    let apply = running_apply(&h, None).await;
    let replies = comment(&h, "/unlock").await;
    assert!(replies[0].contains("Released 0 lock(s)"), "{replies:?}");
    assert!(
        replies[0].contains("1 lock(s) stay held while a plan or apply runs"),
        "{replies:?}"
    );
    assert_eq!(locks_held(&h).await, 1, "not pulled from the running apply");
    runs::finish(&h.state.db, apply, RunStatus::Applied, None, None, None)
        .await
        .unwrap();
    assert_eq!(locks_held(&h).await, 0, "released when the run ended");
});

scenario!(
    closing_the_pr_waits_for_the_running_run,
    policy = &policy(),
    |h| {
        let apply = running_apply(&h, None).await;
        let mut closed = webhook_fixture("pull_request.closed.json");
        closed["number"] = 1.into();
        closed["pull_request"]["number"] = 1.into();
        h.deliver("pull_request", &closed).await;
        h.run_jobs().await;
        assert_eq!(locks_held(&h).await, 1);
        runs::finish(&h.state.db, apply, RunStatus::ApplyFailed, None, None, None)
            .await
            .unwrap();
        assert_eq!(locks_held(&h).await, 0);
    }
);

scenario!(
    claims_of_finished_runs_and_earlier_attempts_are_taken_over,
    |h| {
        let first = running_apply(&h, Some(7)).await;
        let busy = locks::claim_root(&h.state.db, EKS, first + 100, Some(8), "plan")
            .await
            .unwrap();
        assert_eq!(
            busy,
            RootClaim::Busy {
                run_id: first,
                command: "apply".into()
            }
        );
        // A retry of job 7 takes over the claim its dead attempt left.
        let retry = locks::claim_root(&h.state.db, EKS, first + 101, Some(7), "apply")
            .await
            .unwrap();
        assert_eq!(retry, RootClaim::Claimed);
        // Once the holder is no longer running, anyone may claim.
        sqlx::query("UPDATE runs SET status = 'applied'")
            .execute(&h.state.db.pool)
            .await
            .unwrap();
        sqlx::query("UPDATE root_runs SET run_id = $1")
            .bind(first)
            .execute(&h.state.db.pool)
            .await
            .unwrap();
        let next = locks::claim_root(&h.state.db, EKS, first + 102, Some(9), "plan")
            .await
            .unwrap();
        assert_eq!(next, RootClaim::Claimed);
    }
);
