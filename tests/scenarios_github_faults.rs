//! When GitHub fails like GitHub: a 502 before or after the comment is written, a secondary
//! rate limit, an answer that never comes, a tarball 500. After `/plan` the PR has exactly
//! one plan comment; a comment is sent again only with the same body, and only when it surely
//! was not written; a rate limit is waited out as long as GitHub asked (the fake's own
//! request timestamps, not the test's clock).

mod support;

// For check runs listed back with their `external_id`; the other outbox faults go unused here.
#[allow(dead_code)]
#[path = "support/fake_github_outbox.rs"]
mod fake_github_outbox;

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use support::fake_github::faults::{Fault, SeenRequest};
use support::fake_github::Posted;
use support::*;
use tfgate::github::{api, retry_delay};
use tfgate::jobs::runner::{run_worker, WorkerOptions};
use tfgate::model::RepoRef;
use tfgate::worker::JobRouter;

const COMMENTS: &str = "/issues/1/comments";

/// A harness with one root planned against moto, GitHub calls timing out after 2 s; `None`
/// when Terraform or moto are missing (skipped, or failed under `TFGATE_REQUIRE_TOOLS=1`).
async fn start() -> Option<(Harness, tempfile::TempDir)> {
    if !terraform_tools_available() {
        return None;
    }
    let policy = one_root_policy("eks", "infra/eks", "");
    let h = Harness::start_with(Backend::Sqlite, Some(&policy), |args| {
        args.github_timeout_secs = Some(2);
    })
    .await?;
    create_state_bucket().await;
    let run = uuid::Uuid::new_v4().simple().to_string();
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path().join("infra/eks");
    std::fs::create_dir_all(&root).unwrap();
    let resource = format!("resource \"fake_thing\" \"cluster\" {{\n  name = \"c-{run}\"\n}}\n");
    std::fs::write(
        root.join("main.tf"),
        moto_root_tf(&format!("faults-{run}.tfstate"), &resource),
    )
    .unwrap();
    h.github.serve_repo(repo.path());
    h.github.with(|g| {
        g.files = vec!["infra/eks/main.tf".into()];
        g.permissions.insert("alice".into(), "write".into());
    });
    Some((h, repo))
}

fn plan_comments(h: &Harness) -> Vec<Posted> {
    let plans: Vec<Posted> = h
        .github
        .comments()
        .into_iter()
        .filter(|c| c.body.contains("tfgate:kind=plan:"))
        .collect();
    assert!(
        plans.iter().all(|c| c.body.contains("fake_thing.cluster")),
        "a real plan: {plans:#?}"
    );
    plans
}

fn faulted(r: &SeenRequest) -> bool {
    r.fault.is_some()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_502_before_the_write_is_sent_again_with_the_same_body() {
    let Some((h, _repo)) = start().await else {
        return;
    };
    h.github
        .fail_next("POST", COMMENTS, Fault::bad_gateway(false));
    h.comment(1, "/plan", "alice").await;

    let posts = h.github.requests_to("POST", COMMENTS);
    assert_eq!(posts.len(), 2, "{posts:#?}");
    assert!(faulted(&posts[0]) && !faulted(&posts[1]));
    assert!(
        posts[0].body.contains("tfgate:kind=plan:"),
        "{}",
        posts[0].body
    );
    assert_eq!(
        posts[0].body, posts[1].body,
        "the retry carries the same body"
    );
    // Before sending it again, tfgate looked for the comment (its marker) and did not find it.
    let looked = h.github.requests_to("GET", COMMENTS);
    assert!(looked
        .iter()
        .any(|r| r.at > posts[0].at && r.at < posts[1].at));
    assert_eq!(plan_comments(&h).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_502_after_the_write_is_not_sent_again() {
    let Some((h, _repo)) = start().await else {
        return;
    };
    h.github
        .fail_next("POST", COMMENTS, Fault::bad_gateway(true));
    h.comment(1, "/plan", "alice").await;

    let posts = h.github.requests_to("POST", COMMENTS);
    assert_eq!(
        posts.len(),
        1,
        "found by its marker, not posted twice: {posts:#?}"
    );
    assert!(faulted(&posts[0]));
    assert_eq!(plan_comments(&h).len(), 1);
    // The run carried on with the comment it found: the check run was created (and the
    // PR's `tfgate/apply` check after it).
    let created = h.github.with(|g| g.check_runs_created.clone());
    let names: Vec<&str> = created.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(names, ["tfgate plan: eks", "tfgate/apply"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_502_after_a_check_run_is_created_does_not_create_it_twice() {
    let Some((h, _repo)) = start().await else {
        return;
    };
    let checks = h.github.list_created_check_runs().await;
    h.github
        .fail_next("POST", "/check-runs", Fault::bad_gateway(true));
    h.comment(1, "/plan", "alice").await;

    let posts: Vec<_> = h
        .github
        .requests_to("POST", "/check-runs")
        .into_iter()
        .filter(|r| r.body.contains("tfgate plan: eks"))
        .collect();
    assert_eq!(posts.len(), 1, "found by its external_id: {posts:#?}");
    assert!(faulted(&posts[0]));
    // Before sending it again, tfgate listed the commit's check runs and found it there.
    let looked = h.github.requests_to("GET", "/check-runs");
    assert!(looked.iter().any(|r| r.at > posts[0].at), "{looked:#?}");
    let created: Vec<String> = checks.created().into_iter().map(|c| c.0).collect();
    assert_eq!(
        created,
        vec!["tfgate plan: eks", "tfgate/apply"],
        "exactly one plan check run"
    );
    assert_eq!(plan_comments(&h).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secondary_rate_limit_is_waited_out_as_github_asked() {
    let Some((h, _repo)) = start().await else {
        return;
    };
    h.github
        .fail_next("POST", COMMENTS, Fault::secondary_rate_limit(2));
    h.comment(1, "/plan", "alice").await;

    let posts = h.github.requests_to("POST", COMMENTS);
    assert_eq!(posts.len(), 2, "{posts:#?}");
    assert!(faulted(&posts[0]) && !faulted(&posts[1]));
    assert_eq!(
        posts[0].body, posts[1].body,
        "the retry carries the same body"
    );
    let asked = posts[0].at + Duration::from_secs(2);
    assert!(
        posts[1].at >= asked,
        "posted again before GitHub's retry-after"
    );
    // Nothing at all was asked of GitHub meanwhile (the installation's gate held every call).
    let meanwhile: Vec<SeenRequest> = h
        .github
        .requests()
        .into_iter()
        .filter(|r| r.at > posts[0].at && r.at < asked)
        .collect();
    assert!(meanwhile.is_empty(), "{meanwhile:#?}");
    assert_eq!(plan_comments(&h).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_that_never_comes_is_found_by_the_marker() {
    let Some((h, _repo)) = start().await else {
        return;
    };
    // GitHub writes the comment but answers after the client's 2 s deadline.
    h.github
        .fail_next("POST", COMMENTS, Fault::Delay(Duration::from_secs(6)));
    h.comment(1, "/plan", "alice").await;

    let posts = h.github.requests_to("POST", COMMENTS);
    assert_eq!(posts.len(), 1, "{posts:#?}");
    assert_eq!(plan_comments(&h).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secondary_rate_limit_on_the_tarball_holds_the_installations_next_request() {
    let Some((h, _repo)) = start().await else {
        return;
    };
    h.github
        .fail_next("GET", "/tarball/", Fault::secondary_rate_limit(2));
    h.comment(1, "/plan", "alice").await;

    let requests = h.github.requests();
    let limited = requests
        .iter()
        .position(|r| r.is("GET", "/tarball/") && faulted(r))
        .expect("the tarball request was rate-limited");
    let next = requests.get(limited + 1).expect("a request after it");
    assert!(
        next.at >= requests[limited].at + Duration::from_secs(2),
        "the installation's next request ({} {}) came before GitHub's 2 s",
        next.method,
        next.path
    );
    assert!(next.is("GET", "/tarball/"), "{next:#?}");
    assert_eq!(plan_comments(&h).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tarball_500_is_retried_and_the_plan_runs() {
    let Some((h, _repo)) = start().await else {
        return;
    };
    // The head's checkout (the base commit's, read for module calls, is another download).
    let head = format!("/tarball/{}", h.github.with(|g| g.pr.head_sha.clone()));
    h.github.fail_next("GET", &head, Fault::server_error());
    h.comment(1, "/plan", "alice").await;

    let downloads = h.github.requests_to("GET", &head);
    assert_eq!(downloads.len(), 2, "{downloads:#?}");
    assert!(faulted(&downloads[0]) && !faulted(&downloads[1]));
    assert_eq!(plan_comments(&h).len(), 1);
    assert!(h
        .github
        .comments()
        .iter()
        .all(|c| !c.body.contains("could not")));
}

/// A primary rate limit resetting in an hour: the comment job is not held by its worker but
/// put back in the queue to run no sooner than GitHub's reset, and meanwhile every call of
/// the installation is refused in-process without reaching GitHub.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_rate_limit_requeues_the_job_for_githubs_reset() {
    let policy = one_root_policy("eks", "infra/eks", "");
    let h = Harness::start_with_policy(Backend::Sqlite, Some(&policy))
        .await
        .unwrap();
    h.github.with(|g| {
        g.files = vec!["infra/eks/main.tf".into()];
        g.permissions.insert("alice".into(), "write".into());
    });
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    let reset = now.as_secs() + 3600;
    h.github.fail_next(
        "GET",
        "/pulls/1",
        Fault::Status {
            code: 403,
            headers: vec![
                ("x-ratelimit-remaining".into(), "0".into()),
                ("x-ratelimit-reset".into(), reset.to_string()),
            ],
            body: r#"{"message":"API rate limit exceeded for installation ID 1."}"#.into(),
            after_write: false,
        },
    );
    let comment = pr_comment("/plan", "alice");
    h.deliver("issue_comment", &comment).await;
    let (run_at, attempts) = run_worker_until_requeued(&h).await;

    assert_eq!(attempts, 1);
    assert!(
        run_at >= (reset * 1000) as i64 - 1,
        "run_at {run_at} is before GitHub's reset {reset}"
    );
    let installation = comment["installation"]["id"].as_i64().unwrap();
    let gh = h
        .state
        .github()
        .unwrap()
        .installation(installation)
        .unwrap();
    let repo = RepoRef {
        installation_id: installation,
        owner: "Codertocat".into(),
        name: "Hello-World".into(),
    };
    let seen = h.github.requests().len();
    let err = api::get_pull_request(&gh, &repo, 1).await.unwrap_err();
    let wait = retry_delay(&err, SystemTime::now()).expect("a rate limit");
    assert!(wait > Duration::from_secs(3000), "{wait:?}");
    assert_eq!(
        h.github.requests().len(),
        seen,
        "the gate kept the call home"
    );
    assert!(h.github.comments().is_empty());
}

/// Run the real worker loop until the comment job is back in the queue after a failure;
/// its `run_at` and attempts.
async fn run_worker_until_requeued(h: &Harness) -> (i64, i64) {
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
    let mut requeued = None;
    for _ in 0..30_000 {
        requeued = sqlx::query_as::<_, (i64, i64)>(
            "SELECT run_at, attempts FROM jobs WHERE kind = 'comment' \
             AND status = 'queued' AND last_error IS NOT NULL",
        )
        .fetch_optional(&h.state.db.pool)
        .await
        .unwrap();
        if requeued.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    stop.send(true).unwrap();
    worker.await.unwrap();
    requeued.expect("the comment job was put back in the queue")
}
