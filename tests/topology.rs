//! The multi-machine topology, with the real binaries: `tfgate serve --workers 0` takes the
//! webhooks, two `tfgate worker` processes (each with a data directory of its own, as on
//! machines without a shared volume) run the jobs from one PostgreSQL database. 100 `/plan`
//! comments across 20 PRs each run Terraform exactly once (counted by the plan-time fetches
//! that reach a loopback counter, not by database rows); one worker is killed with `kill -9`
//! midway, and the runs it left are reclaimed after their lease and reported on their PRs.

mod support;
mod topology_support;

use std::time::{Duration, Instant};

use topology_support::*;

/// A short lease, so that the killed worker's jobs are taken over within seconds; not shorter,
/// so that a live worker on a busy machine (the whole suite on 2 cores) keeps its lease (with
/// 5 s, once under the whole suite, a root not left by the killed worker was planned twice,
/// most likely a live worker's run taken over after missed heartbeats).
const LEASE_SECS: u64 = 15;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_plans_on_two_workers_run_once_each_and_a_killed_workers_runs_are_reported() {
    let Some(t) = Topology::start(roots(20, 5), LEASE_SECS).await else {
        return;
    };
    let started = Instant::now();
    let mut victim = t.start_worker(2);
    let _survivor = t.start_worker(2);
    let victim_workers = victim.worker_names(2);
    // Most comments first, so that the victim surely has runs going when it is killed.
    let (first, second) = t.roots.split_at(t.roots.len() * 4 / 5);
    for root in first {
        t.plan(root).await;
    }
    // Midway: a fifth of the runs have started and the victim has a run going. (Not a fifth of
    // the plan comments: those lag behind, and by then every run may have ended.)
    t.wait_for_runs(t.roots.len() as i64 / 5, Duration::from_secs(300))
        .await;
    t.wait_for_a_run_under(&victim_workers, Duration::from_secs(300))
        .await;
    victim.kill_9();
    // The dead worker's proxy is gone with it: none of its runs reaches the counter after this.
    let hits_at_kill = t.counter.hits();
    let left_running = t.runs_running_under(&victim_workers).await;
    for root in second {
        t.plan(root).await;
    }

    let jobs = t.wait_all_planned(Duration::from_secs(900)).await;
    eprintln!(
        "topology: {} plans in {:.0?}; runs left by the killed worker: {left_running:?}, \
         fetched before the kill: {:?}",
        t.roots.len(),
        started.elapsed(),
        left_running
            .iter()
            .map(|r| hits_at_kill.get(&r.project).copied().unwrap_or(0))
            .collect::<Vec<_>>()
    );
    assert!(
        jobs.keys().all(|(_, status)| status == "succeeded"),
        "every job ended well: {jobs:?}"
    );
    assert!(
        !left_running.is_empty(),
        "the killed worker had a run going"
    );
    assert_eq!(
        t.interrupted_notices(),
        left_running,
        "exactly the PRs whose runs the killed worker left are told"
    );
    let hits = t.counter.hits();
    for root in &t.roots {
        let plans = t.plan_comments(root);
        assert_eq!(plans.len(), 1, "{root:?}: one plan comment: {plans:#?}");
        assert!(plans[0].contains("📝 changes"), "{}", plans[0]);
        let total = hits.get(&root.project).copied().unwrap_or(0);
        let before = hits_at_kill.get(&root.project).copied().unwrap_or(0);
        if left_running.contains(root) {
            assert_eq!(
                total - before,
                1,
                "{root:?}: planned again once, after the kill"
            );
        } else {
            assert_eq!(total, 1, "{root:?}: Terraform planned it exactly once");
        }
    }
    for pr in 1..=20 {
        let posted = t
            .github
            .comments()
            .iter()
            .filter(|c| c.number == pr)
            .count();
        let told = left_running.iter().filter(|r| r.pr == pr).count();
        assert_eq!(
            posted,
            5 + told,
            "PR {pr}: its plans and notices, nothing else"
        );
    }
}
