//! One PR snapshot per job (issue 40): a job reads the PR's facts, the base branch's
//! `tfgate.yaml` and the PR's changes once and passes them down. Counted here with the fake
//! GitHub, job by job: the `comment`, `run` and `publish` jobs of one `/apply`, and the
//! `pull_request` job of a push (autoplan and the `tfgate/apply` check). Real Terraform.

mod support;

use std::collections::BTreeMap;

use support::fake_github::FakeReview;
use support::*;
use tfgate::db::jobs as queue;
use tfgate::jobs::runner::JobHandler;
use tfgate::worker::JobRouter;

const ROOT: &str = "terraform {\n  required_providers {\n    fake = { source = \"tfgate/fake\", version = \"0.1.0\" }\n  }\n}\nresource \"fake_thing\" \"a\" {\n  name = \"a\"\n}\n";

/// The reads a snapshot is made of, by kind.
fn read_kind(method: &str, path: &str) -> Option<&'static str> {
    if method != "GET" {
        return None;
    }
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match parts.as_slice() {
        ["repos", _, _] => Some("repository"),
        ["repos", _, _, "pulls", _] => Some("pull"),
        ["repos", _, _, "pulls", _, "files"] => Some("files"),
        ["repos", _, _, "contents", ..] => Some("contents"),
        ["repos", _, _, "tarball", _] => Some("tarball"),
        _ => None,
    }
}

/// Runs the queued jobs one at a time; for each, its kind and the reads it made.
async fn reads_per_job(h: &Harness) -> Vec<(String, BTreeMap<&'static str, usize>)> {
    let router = JobRouter::new(h.state.clone());
    let mut out = Vec::new();
    while let Some(job) = queue::claim(&h.state.db, "test-worker", 30_000)
        .await
        .unwrap()
    {
        let before = h.github.requests().len();
        if let Err(e) = router.handle(&job).await {
            panic!("job {} ({}) failed: {e}", job.id, job.kind);
        }
        queue::complete(&h.state.db, &job).await.unwrap();
        let mut reads = BTreeMap::new();
        for r in &h.github.requests()[before..] {
            if let Some(kind) = read_kind(&r.method, &r.path) {
                *reads.entry(kind).or_insert(0) += 1;
            }
        }
        out.push((job.kind.clone(), reads));
    }
    out
}

fn counts(pairs: &[(&'static str, usize)]) -> BTreeMap<&'static str, usize> {
    pairs.iter().copied().collect()
}

/// One root `app`, a base-branch `tfgate.yaml` allowed, and the `tfgate/apply` check asked for.
async fn harness() -> Option<(Harness, tempfile::TempDir)> {
    let policy = format!(
        "{}allow_repo_layout: true\nrequire_apply_before_merge: true\n",
        one_root_policy("app", "infra/app", "")
    );
    policy_root_harness(Backend::Sqlite, &policy, ROOT).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_apply_reads_the_pr_once_per_job() {
    let Some((h, _repo)) = harness().await else {
        return;
    };
    h.comment(1, "/plan", "alice").await;
    h.github.with(|g| {
        g.permissions.insert("bob".into(), "write".into());
        g.reviews = vec![FakeReview {
            user: "bob".into(),
            state: "APPROVED".into(),
            commit_id: g.pr.head_sha.clone(),
            is_bot: false,
        }];
    });
    let mut delivery = pr_comment("/apply", "alice");
    delivery["issue"]["number"] = 1.into();
    h.deliver("issue_comment", &delivery).await;
    let jobs = reads_per_job(&h).await;
    let applied = h.github.comments().last().unwrap().body.clone();
    assert!(applied.contains("✅ succeeded"), "{applied}");

    // The comment job: the PR, its files and the layout, once (the default branch is the
    // PR's base repository's; the module graph of the base commit is cached since the plan).
    let once = counts(&[("contents", 1), ("files", 1), ("pull", 1)]);
    // The run job: the head again (freshness: the PR may have moved since the command was
    // authorised), the layout (a project gone since is reported), and the checkout.
    let run = counts(&[("contents", 1), ("pull", 1), ("tarball", 1)]);
    let kinds: Vec<&str> = jobs.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        kinds,
        ["comment", "run", "mark_stale", "publish"],
        "{jobs:?}"
    );
    assert_eq!(jobs[0].1, once, "comment job: {jobs:?}");
    assert_eq!(jobs[1].1, run, "run job: {jobs:?}");
    // The apply changed the root's state: `mark_stale` looks for other PRs' plans of it in the
    // database; with none, it reads nothing from GitHub.
    assert_eq!(jobs[2].1, counts(&[]), "mark_stale job: {jobs:?}");
    // The publish job: the `tfgate/apply` check of the head as it is now.
    assert_eq!(jobs[3].1, once, "publish job: {jobs:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_reads_the_pr_once() {
    let Some((h, _repo)) = harness().await else {
        return;
    };
    h.push(1, &"c".repeat(40), &["infra/app/main.tf"]).await;
    let jobs = reads_per_job(&h).await;
    assert_eq!(jobs[0].0, "pull_request", "{jobs:?}");
    // Autoplan and the `tfgate/apply` check decide on one snapshot: the PR, its files, the
    // layout and the base commit's module graph (one tarball) once.
    let once = counts(&[("contents", 1), ("files", 1), ("pull", 1), ("tarball", 1)]);
    assert_eq!(jobs[0].1, once, "{jobs:?}");
    // Both decided: autoplan (audited) and the check (posted).
    let autoplans: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM audit_events WHERE action = 'autoplan'")
            .fetch_one(&h.state.db.pool)
            .await
            .unwrap();
    assert_eq!(autoplans, 1);
    let checks = h.github.requests_to("POST", "/check-runs");
    assert!(
        checks.iter().any(|r| r.body.contains("\"tfgate/apply\"")),
        "{checks:?}"
    );
}
