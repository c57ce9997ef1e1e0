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
//!
//! The bound (issue 41): over the burst (until the queue is empty again), the CPU seconds of
//! tfgate (`serve` and the workers: utime+stime in `/proc/PID/stat`) and of what the workers
//! ran (their reaped children: cutime+cstime, i.e. Terraform and the providers), per run.
//! Bubblewrap with its own PID namespace does not pass its children's CPU time up
//! (`/usr/bin/time bwrap --unshare-pid … terraform plan` shows 0.00 s), so Terraform's share is
//! only measured with `BENCH_SANDBOX=none` (Terraform unsandboxed; sandbox set-up aside, the
//! same work); with bubblewrap `terraform_cpu_ms_per_run` reads near 0 and the bound is not
//! meaningful; the bound is cores / (both per run) and runs/s is reported as
//! a share of it. The serialized parts of the shared path: the job claim and each job's time
//! by kind (the workers' `job finished` log lines, `claim_us` and `run_us`), GitHub requests
//! per run and per publish (the fake GitHub's request log), and PostgreSQL transactions and
//! rows written per run (`pg_stat_database` deltas; they include the workers' idle polls).
//! Final line per N: `BENCH_RESULT bench=workers-bound workers=N …`.

mod support;
mod topology_support;

use std::collections::BTreeMap;
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
        let (line, bound) = one_setting(workers, burst, idle).await;
        println!("{line}");
        println!("{bound}");
    }
}

async fn one_setting(workers: usize, burst: usize, idle: usize) -> (String, String) {
    // Four roots per PR, as a team would plan them.
    let mut all = roots((burst + idle).div_ceil(4) as i64, 4);
    all.truncate(burst + idle);
    let t = Topology::start(all, 60)
        .await
        .expect("PostgreSQL, moto, Terraform and the test provider");
    // JSON logs: the `job finished` lines are read back below.
    // BENCH_SANDBOX=none: Terraform's CPU is only seen without bubblewrap (see below).
    let sandbox = std::env::var("BENCH_SANDBOX").unwrap_or_else(|_| "bwrap".into());
    let json = [
        ("TFGATE_WORKERS", "1"),
        ("TFGATE_LOG_FORMAT", "json"),
        ("TFGATE_SANDBOX", sandbox.as_str()),
    ];
    let processes: Vec<Process> = (0..workers)
        .map(|_| t.launcher.start(&["worker"], &json))
        .collect();
    for p in &processes {
        p.wait_for_log("tfgate worker running", Duration::from_secs(60))
            .await;
    }
    let (first, rest) = t.roots.split_at(burst);
    let mut pids: Vec<u32> = processes.iter().map(Process::pid).collect();
    pids.push(t.serve.pid());
    let before = Snapshot::take(&t, &pids).await;
    let started = Instant::now();
    for root in first {
        t.plan(root).await;
    }
    t.wait_for_plans(burst, Duration::from_secs(1800)).await;
    let elapsed = t.last_comment_at().duration_since(started);
    wait_queue_empty(&t).await;
    let after = Snapshot::take(&t, &pids).await;
    let runs_per_s = burst as f64 / elapsed.as_secs_f64();
    let bound = bound_line(workers, burst, runs_per_s, &before, &after);
    let burst_latency = t.claim_to_start_ms().await;
    for root in rest {
        t.plan(root).await;
        t.wait_for_plans(t.planned() + 1, Duration::from_secs(300))
            .await;
    }
    let all_latency = t.claim_to_start_ms().await;
    let idle_latency = all_latency[burst_latency.len()..].to_vec();
    let (bp50, bmax) = p50_max(burst_latency);
    let (ip50, imax) = p50_max(idle_latency);
    let line = format!(
        "BENCH_RESULT bench=workers workers={workers} plans={burst} burst_s={:.1} runs_per_s={runs_per_s:.2} burst_p50_ms={bp50} burst_max_ms={bmax} idle_plans={idle} idle_p50_ms={ip50} idle_max_ms={imax}",
        elapsed.as_secs_f64()
    );
    (line, bound)
}

/// Wait until no job is queued or running (the burst's publishes and checks done), then 2 s
/// more so that PostgreSQL's backends have flushed their statistics.
async fn wait_queue_empty(t: &Topology) {
    let start = Instant::now();
    loop {
        let jobs = t.jobs_by_kind_and_status().await;
        let busy = jobs
            .iter()
            .filter(|((_, s), _)| s == "queued" || s == "running")
            .count();
        if busy == 0 || start.elapsed() > Duration::from_secs(120) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
}

/// Counters read before and after the burst.
struct Snapshot {
    /// CPU ticks of the tfgate processes themselves (utime+stime, summed).
    own_ticks: u64,
    /// CPU ticks of their reaped children (cutime+cstime, summed).
    child_ticks: u64,
    github_gets: usize,
    github_writes: usize,
    /// (xact_commit, tup_inserted + tup_updated + tup_deleted) of the database.
    pg: (i64, i64),
    /// The `job finished` lines logged so far: (kind, claim_us, run_us).
    jobs: Vec<(String, u64, u64)>,
}

impl Snapshot {
    async fn take(t: &Topology, pids: &[u32]) -> Snapshot {
        let (mut own_ticks, mut child_ticks) = (0, 0);
        for pid in pids {
            let (own, children) = cpu_ticks(*pid);
            own_ticks += own;
            child_ticks += children;
        }
        let requests = t.github.requests();
        let github_gets = requests.iter().filter(|r| r.method == "GET").count();
        let pg: (i64, i64) = sqlx::query_as(
            "SELECT xact_commit, tup_inserted + tup_updated + tup_deleted \
             FROM pg_stat_database WHERE datname = current_database()",
        )
        .fetch_one(&t.db.pool)
        .await
        .unwrap();
        Snapshot {
            own_ticks,
            child_ticks,
            github_gets,
            github_writes: requests.len() - github_gets,
            pg,
            jobs: finished_jobs(&t.launcher.logs()),
        }
    }
}

/// (utime+stime, cutime+cstime) of `pid`, in clock ticks.
fn cpu_ticks(pid: u32) -> (u64, u64) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<u64> = stat[stat.rfind(')').unwrap() + 1..]
        .split_whitespace()
        .skip(11) // state .. cmajflt; then utime stime cutime cstime
        .take(4)
        .map(|f| f.parse().unwrap())
        .collect();
    (fields[0] + fields[1], fields[2] + fields[3])
}

/// The (kind, claim_us, run_us) of every `job finished` line in `logs` (JSON logs).
fn finished_jobs(logs: &[std::path::PathBuf]) -> Vec<(String, u64, u64)> {
    let mut out = Vec::new();
    for log in logs {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        for line in text.lines().filter(|l| l.contains("\"job finished\"")) {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let kind = v["span"]["kind"].as_str().unwrap_or("?").to_string();
            let us = |k: &str| v[k].as_u64().unwrap_or(0);
            out.push((kind, us("claim_us"), us("run_us")));
        }
    }
    out
}

fn ticks_per_s() -> f64 {
    // SAFETY: sysconf has no preconditions.
    (unsafe { libc::sysconf(libc::_SC_CLK_TCK) }) as f64
}

fn cores() -> f64 {
    std::thread::available_parallelism().map_or(1, |n| n.get()) as f64
}

/// The bound and the serialized parts of the burst, as one `BENCH_RESULT` line.
fn bound_line(
    workers: usize,
    runs: usize,
    runs_per_s: f64,
    before: &Snapshot,
    after: &Snapshot,
) -> String {
    let per_run = |x: f64| x / runs as f64;
    let tick = ticks_per_s();
    let own_s = per_run((after.own_ticks - before.own_ticks) as f64 / tick);
    let tf_s = per_run((after.child_ticks - before.child_ticks) as f64 / tick);
    let bound = cores() / (own_s + tf_s);
    let gets = after.github_gets - before.github_gets;
    let writes = after.github_writes - before.github_writes;
    let jobs: Vec<&(String, u64, u64)> = after.jobs[before.jobs.len()..].iter().collect();
    let mut by_kind: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    for (kind, _, run_us) in &jobs {
        by_kind.entry(kind.as_str()).or_default().push(*run_us);
    }
    let claims: Vec<u64> = jobs.iter().map(|j| j.1).collect();
    let claim_total_ms = claims.iter().sum::<u64>() as f64 / 1000.0;
    let (claim_p50, claim_max) = p50_max_us(claims);
    let publishes = jobs.iter().filter(|j| j.0.contains("publish")).count();
    let mut kinds = String::new();
    for (kind, mut times) in by_kind {
        let n = times.len();
        times.sort();
        kinds.push_str(&format!(
            " job_{kind}=n{n}/p50_ms{:.1}/sum_ms{:.0}",
            times[n / 2] as f64 / 1000.0,
            times.iter().sum::<u64>() as f64 / 1000.0
        ));
    }
    let (xacts, rows) = (after.pg.0 - before.pg.0, after.pg.1 - before.pg.1);
    format!(
        "BENCH_RESULT bench=workers-bound workers={workers} runs={runs} cores={} tfgate_cpu_ms_per_run={:.0} terraform_cpu_ms_per_run={:.0} tfgate_over_terraform={:.3} bound_runs_per_s={bound:.2} runs_per_s={runs_per_s:.2} share_of_bound={:.2} jobs={} claim_p50_ms={:.2} claim_max_ms={:.2} claim_ms_per_run={:.1} publishes={publishes} github_gets_per_run={:.1} github_writes_per_run={:.1} github_gets_per_publish={:.1} pg_xacts_per_run={:.1} pg_rows_written_per_run={:.1}{kinds}",
        cores(),
        own_s * 1000.0,
        tf_s * 1000.0,
        own_s / tf_s,
        runs_per_s / bound,
        jobs.len(),
        claim_p50 as f64 / 1000.0,
        claim_max as f64 / 1000.0,
        claim_total_ms / runs as f64,
        per_run(gets as f64),
        per_run(writes as f64),
        gets as f64 / publishes.max(1) as f64,
        per_run(xacts as f64),
        per_run(rows as f64),
    )
}

fn p50_max_us(mut values: Vec<u64>) -> (u64, u64) {
    values.sort();
    match values.len() {
        0 => (0, 0),
        n => (values[n / 2], values[n - 1]),
    }
}
