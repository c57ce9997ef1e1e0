//! Workers benchmark, as an ignored test so it shares the topology test's set-up: the real
//! `tfgate serve --workers 0` and N `tfgate worker` processes (one worker each) on one fresh
//! PostgreSQL database, the fake GitHub, STS and S3 on moto, Terraform 1.0.3 in bubblewrap.
//!
//! Run with `bash bench/workers/run.sh` (starts PostgreSQL and moto, builds in release mode).
//!
//! For each N in BENCH_WORKERS ("1 2 4"):
//! - burst: BENCH_PLANS (24) `/plan` comments delivered at once, one root each; runs per
//!   second = plans / (first delivery → last plan comment posted);
//! - idle: BENCH_IDLE_PLANS (5) more, one at a time, each after the previous comment arrived.
//!
//! Claim-to-start latency is read from the database: a run job's `created_at` → its run's
//! `created_at` (the worker has claimed the job, read the PR and started the run). Under the
//! burst it is mostly time spent queued; idle, it is the pick-up. Final lines:
//! `BENCH_RESULT bench=workers workers=N runs_per_s=… burst_p50_ms=… burst_max_ms=…
//! idle_p50_ms=… idle_max_ms=…`.

mod support;
mod topology_support;

use std::time::{Duration, Instant};

use topology_support::*;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// (p50, max) of `values`, in ms.
fn p50_max(mut values: Vec<i64>) -> (i64, i64) {
    values.sort();
    match values.len() {
        0 => (0, 0),
        n => (values[n / 2], values[n - 1]),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark: bash bench/workers/run.sh"]
async fn bench_workers() {
    let counts = std::env::var("BENCH_WORKERS").unwrap_or_else(|_| "1 2 4".into());
    let (burst, idle) = (
        env_usize("BENCH_PLANS", 24),
        env_usize("BENCH_IDLE_PLANS", 5),
    );
    for workers in counts
        .split_whitespace()
        .map(|n| n.parse::<usize>().unwrap())
    {
        let line = one_setting(workers, burst, idle).await;
        println!("{line}");
    }
}

async fn one_setting(workers: usize, burst: usize, idle: usize) -> String {
    // Four roots per PR, as a team would plan them.
    let mut all = roots((burst + idle).div_ceil(4) as i64, 4);
    all.truncate(burst + idle);
    let t = Topology::start(all, 60)
        .await
        .expect("PostgreSQL, moto, Terraform and the test provider");
    let processes: Vec<Process> = (0..workers).map(|_| t.start_worker(1)).collect();
    for p in &processes {
        p.wait_for_log("tfgate worker running", Duration::from_secs(60))
            .await;
    }
    let (first, rest) = t.roots.split_at(burst);
    let started = Instant::now();
    for root in first {
        t.plan(root).await;
    }
    t.wait_for_plans(burst, Duration::from_secs(1800)).await;
    let elapsed = t.last_comment_at().duration_since(started);
    let burst_latency = t.claim_to_start_ms().await;
    for root in rest {
        t.plan(root).await;
        t.wait_for_plans(t.planned() + 1, Duration::from_secs(300))
            .await;
    }
    let all_latency = t.claim_to_start_ms().await;
    let idle_latency = all_latency[burst_latency.len()..].to_vec();
    let runs_per_s = burst as f64 / elapsed.as_secs_f64();
    let (bp50, bmax) = p50_max(burst_latency);
    let (ip50, imax) = p50_max(idle_latency);
    format!(
        "BENCH_RESULT bench=workers workers={workers} plans={burst} burst_s={:.1} runs_per_s={runs_per_s:.2} burst_p50_ms={bp50} burst_max_ms={bmax} idle_plans={idle} idle_p50_ms={ip50} idle_max_ms={imax}",
        elapsed.as_secs_f64()
    )
}
