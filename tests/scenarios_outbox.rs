//! Run, then publish: a run records its result in the outbox and a `publish` job posts it with
//! retries of its own, so a GitHub failure while posting neither loses the result nor runs
//! Terraform again. And an apply interrupted by a dead worker spends its plan: the next
//! `/apply` without a new `/plan` is refused. Real Terraform and moto, as in
//! `scenarios_terraform`; GitHub faults from `support/fake_github_outbox.rs`.

mod support;

#[path = "support/fake_github_outbox.rs"]
mod fake_github_outbox;

use support::jobs::run_jobs_with_retries;
use support::*;
use tfgate::db::jobs as queue;
use tfgate::db::runs::{self, NewRun};
use tfgate::jobs::runner::JobHandler;
use tfgate::run_planner::record::ApplyRecord;
use tfgate::worker::JobRouter;

/// How often octocrab sends one call answered 5xx (it retries 3 times by itself): a fault
/// this many times long fails one attempt of the job whatever the client's retries.
const GITHUB_CALL_TRIES: u64 = 4;

const REFUSED: &str = "the apply of this plan was interrupted; run `/plan` to see what is left";

fn policy() -> String {
    one_root_policy("eks", "infra/eks", "apply_requirements: []\n")
}

/// A repository with one root whose state is in moto's S3; alice may plan and apply.
async fn setup(h: &Harness) -> tempfile::TempDir {
    create_state_bucket().await;
    let run = uuid::Uuid::new_v4().simple().to_string();
    let repo = tempfile::tempdir().unwrap();
    let dir = repo.path().join("infra/eks");
    std::fs::create_dir_all(&dir).unwrap();
    let body = format!("resource \"fake_thing\" \"a\" {{\n  name = \"a-{run}\"\n}}\n");
    let tf = moto_root_tf(&format!("outbox-{run}.tfstate"), &body);
    std::fs::write(dir.join("main.tf"), tf).unwrap();
    h.github.serve_repo(repo.path());
    h.github.with(|g| {
        g.files = vec!["infra/eks/main.tf".into()];
        g.permissions.insert("alice".into(), "write".into());
    });
    repo
}

async fn comment(h: &Harness, body: &str) -> usize {
    h.deliver("issue_comment", &pr_comment(body, "alice")).await;
    run_jobs_with_retries(h).await
}

async fn count(h: &Harness, sql: &str) -> i64 {
    sqlx::query_scalar(sql)
        .fetch_one(&h.state.db.pool)
        .await
        .unwrap()
}

/// (status, attempts) of every job of `kind`, oldest first.
async fn jobs(h: &Harness, kind: &str) -> Vec<(String, i64)> {
    sqlx::query_as("SELECT status, attempts FROM jobs WHERE kind = $1 ORDER BY id")
        .bind(kind)
        .fetch_all(&h.state.db.pool)
        .await
        .unwrap()
}

/// Bodies of the comments tfgate posted that carry a marker of `kind` (`kind=plan:` …).
fn posted(h: &Harness, kind: &str) -> Vec<String> {
    let marker = format!("<!-- tfgate:kind={kind}:");
    let comments = h.github.comments().into_iter().map(|c| c.body);
    comments.filter(|b| b.contains(&marker)).collect()
}

scenario!(
    a_plan_is_posted_once_after_failed_posts_and_never_rerun,
    policy = &policy(),
    |h| {
        if !terraform_tools_available() {
            return;
        }
        let _repo = setup(&h).await;
        let checks = h.github.list_created_check_runs().await;
        // Creates fail outright (the GitHub client tries a call 4 times, so the first publish
        // attempt fails); then one creates the comment but its answer is lost (the client finds
        // it by its post marker, or the next attempt by the result's marker).
        h.github.fail_next_comment_posts(GITHUB_CALL_TRIES).await;
        h.github
            .lose_next_comment_answer(GITHUB_CALL_TRIES - 1)
            .await;

        let failures = comment(&h, "/plan").await;

        assert!(failures >= 1, "the publish job failed {failures} times");
        let plans = posted(&h, "plan");
        assert_eq!(
            plans.len(),
            1,
            "one plan comment, not a duplicate: {plans:?}"
        );
        assert!(
            plans[0].contains("fake_thing.a</code> will be created"),
            "{}",
            plans[0]
        );
        assert_eq!(
            count(&h, "SELECT COUNT(*) FROM runs WHERE command = 'plan'").await,
            1
        );
        assert_eq!(
            jobs(&h, "run").await,
            vec![("succeeded".into(), 1)],
            "Terraform ran once"
        );
        assert_eq!(jobs(&h, "comment").await, vec![("succeeded".into(), 1)]);
        assert_eq!(
            jobs(&h, "publish").await,
            vec![("succeeded".into(), failures as i64 + 1)]
        );
        let created: Vec<String> = checks.created().into_iter().map(|c| c.0).collect();
        assert_eq!(created, vec!["tfgate plan: eks", "tfgate/apply"]);
        let published = "SELECT COUNT(*) FROM publications WHERE published_at IS NOT NULL \
                     AND comment_id IS NOT NULL";
        assert_eq!(count(&h, published).await, 1);
    }
);

scenario!(
    an_apply_result_and_check_run_appear_after_failed_posts,
    policy = &policy(),
    |h| {
        if !terraform_tools_available() {
            return;
        }
        let _repo = setup(&h).await;
        let checks = h.github.list_created_check_runs().await;
        assert_eq!(comment(&h, "/plan").await, 0);
        h.github.fail_next_comment_posts(GITHUB_CALL_TRIES).await;
        h.github.fail_next_check_run_posts(GITHUB_CALL_TRIES).await;

        let failures = comment(&h, "/apply").await;

        assert!(
            failures >= 2,
            "the comment, then the check run failed: {failures}"
        );
        let applies = posted(&h, "apply");
        assert_eq!(applies.len(), 1, "{applies:?}");
        assert!(applies[0].contains("fake_thing.a"), "{}", applies[0]);
        let applied = "SELECT COUNT(*) FROM runs WHERE command = 'apply' AND status = 'applied'";
        assert_eq!(count(&h, applied).await, 1);
        assert_eq!(
            count(&h, "SELECT COUNT(*) FROM runs WHERE command = 'apply'").await,
            1
        );
        let run_jobs = jobs(&h, "run").await;
        assert_eq!(run_jobs[1], ("succeeded".into(), 1), "the apply ran once");
        let publish = jobs(&h, "publish").await;
        assert_eq!(publish[1], ("succeeded".into(), failures as i64 + 1));
        let applied_checks: Vec<(String, String, String)> = checks
            .created()
            .into_iter()
            .filter(|c| c.0 == "tfgate apply: eks")
            .collect();
        assert_eq!(applied_checks.len(), 1, "{applied_checks:?}");
        assert_eq!(applied_checks[0].1, "success");
        assert!(
            applied_checks[0].2.starts_with("tfgate:job-"),
            "{applied_checks:?}"
        );
    }
);

/// What a worker that dies mid-apply leaves: the run job held under its lease, an apply run
/// `running` with the resources completed so far, then the lease expired.
async fn crash_mid_apply(h: &Harness) -> i64 {
    h.deliver("issue_comment", &pr_comment("/apply", "alice"))
        .await;
    let router = JobRouter::new(h.state.clone());
    let db = &h.state.db;
    let comment_job = queue::claim(db, "test-worker", 30_000)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(comment_job.kind, "comment");
    router.handle(&comment_job).await.unwrap();
    queue::complete(db, &comment_job).await.unwrap();
    let job = queue::claim(db, "dead-worker", 30_000)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(job.kind, "run");
    let head = h.github.with(|g| g.pr.head_sha.clone());
    let run = NewRun {
        job_id: Some(job.id),
        repo: "Codertocat/Hello-World",
        pr: 1,
        project: "eks",
        dir: "infra/eks",
        workspace: "default",
        command: "apply",
        actor: "alice",
        head_sha: &head,
        terraform_args: &[],
    };
    let run_id = runs::create(db, &run).await.unwrap();
    let progress = ApplyRecord {
        completed: vec!["fake_thing.a".into()],
        ..Default::default()
    };
    runs::set_progress(db, run_id, &progress.encode())
        .await
        .unwrap();
    assert_eq!(queue::expire_leases_of(db, "dead-worker").await.unwrap(), 1);
    job.id
}

scenario!(
    an_interrupted_apply_spends_its_plan,
    policy = &policy(),
    |h| {
        if !terraform_tools_available() {
            return;
        }
        let _repo = setup(&h).await;
        assert_eq!(comment(&h, "/plan").await, 0);
        let job = crash_mid_apply(&h).await;

        assert_eq!(run_jobs_with_retries(&h).await, 0);

        let notices = posted(&h, "interrupted");
        assert_eq!(notices.len(), 1, "{notices:?}");
        assert!(
            notices[0].contains("`eks` · `infra/eks` · `default`"),
            "{}",
            notices[0]
        );
        assert!(notices[0].contains("- `fake_thing.a`"), "{}", notices[0]);
        let status =
            format!("SELECT COUNT(*) FROM jobs WHERE id = {job} AND status = 'interrupted'");
        assert_eq!(
            count(&h, &status).await,
            1,
            "the job is recorded interrupted"
        );
        let interrupted =
            "SELECT COUNT(*) FROM runs WHERE command = 'apply' AND status = 'interrupted'";
        assert_eq!(count(&h, interrupted).await, 1);

        // `/apply` again without a new plan: refused, nothing runs.
        assert_eq!(comment(&h, "/apply").await, 0);
        let refused = posted(&h, "apply_interrupted");
        assert_eq!(refused.len(), 1, "{:?}", h.github.comments());
        assert!(refused[0].contains(REFUSED), "{}", refused[0]);
        assert_eq!(
            count(&h, "SELECT COUNT(*) FROM runs WHERE command = 'apply'").await,
            1
        );
        assert!(
            posted(&h, "apply").is_empty(),
            "no apply result: nothing ran"
        );

        // A new plan, then `/apply`: applied.
        assert_eq!(comment(&h, "/plan").await, 0);
        assert_eq!(comment(&h, "/apply").await, 0);
        let applied = "SELECT COUNT(*) FROM runs WHERE command = 'apply' AND status = 'applied'";
        assert_eq!(count(&h, applied).await, 1);
        let applies = posted(&h, "apply");
        assert_eq!(applies.len(), 1, "{applies:?}");
        assert!(applies[0].contains("fake_thing.a"), "{}", applies[0]);
    }
);
