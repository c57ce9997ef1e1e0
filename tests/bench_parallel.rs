//! Parallel plans benchmark (issue 41), as an ignored test on the scenario harness: PostgreSQL,
//! the fake GitHub, STS and S3 on moto, Terraform 1.0.3 in bubblewrap, four in-process workers
//! (as `serve --workers 4`). A PR touches BENCH_ROOTS (8) independent roots whose plans each wait
//! BENCH_PLAN_DELAY_MS (1000) on the test provider without using CPU, as real plans wait on AWS.
//!
//! Run with `bash bench/parallel/run.sh` (release). In one run, on one machine:
//! - `parallel`: `parallel_plans: 4`; time from the `/plan` delivery to the comment that shows
//!   every root (its last edit), and to its first appearance (the first root's result);
//! - `serial`: `parallel_plans: 1` (parallelism 1), time to the comment;
//! - `single`: a `/plan` of one such root, time to its comment.
//!
//! Final line: `BENCH_RESULT bench=parallel roots=8 parallel_ms=… serial_ms=… ratio=…
//! first_ms=… single_ms=… first_ratio=…`.

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use support::*;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn policy(roots: usize, parallel: u32) -> String {
    let projects: String = (0..roots)
        .map(|i| format!("  - name: r{i}\n    dir: infra/r{i}\n"))
        .collect();
    with_test_network(&format!(
        "repos: [\"Codertocat/Hello-World\"]\ndefaults:\n  plan_role: arn:aws:iam::111111111111:role/tfgate-plan\n  apply_role: arn:aws:iam::111111111111:role/tfgate-apply\napply_requirements: []\nparallel_plans: {parallel}\nprojects:\n{projects}"
    ))
}

fn write_roots(dir: &Path, run: &str, roots: usize, delay_ms: u64) {
    for i in 0..roots {
        let body = format!(
            "resource \"fake_thing\" \"r{i}\" {{\n  name = \"r{i}-{run}\"\n  plan_delay_ms = {delay_ms}\n}}\n"
        );
        let d = dir.join("infra").join(format!("r{i}"));
        std::fs::create_dir_all(&d).unwrap();
        let tf = moto_root_tf(&format!("{run}-r{i}.tfstate"), &body);
        std::fs::write(d.join("main.tf"), tf).unwrap();
    }
}

/// (to the first appearance of the plan comment, to its final text), in ms.
async fn plan_once(roots: usize, touched: usize, parallel: u32, delay_ms: u64) -> (u128, u128) {
    let h = Harness::start_with(Backend::Postgres, Some(&policy(roots, parallel)), |a| {
        a.max_parallel_roots = Some(4)
    })
    .await
    .expect("PostgreSQL (TFGATE_TEST_DATABASE_URL)");
    create_state_bucket().await;
    let repo = tempfile::tempdir().unwrap();
    let run = uuid::Uuid::new_v4().simple().to_string()[..8].to_string();
    write_roots(repo.path(), &run, roots, delay_ms);
    h.github.serve_repo(repo.path());
    h.github.with(|g| {
        g.files = (0..touched)
            .map(|i| format!("infra/r{i}/main.tf"))
            .collect();
        g.permissions.insert("alice".into(), "write".into());
    });
    let mut delivery = pr_comment("/plan", "alice");
    delivery["issue"]["number"] = 1.into();
    let started = Instant::now();
    h.deliver("issue_comment", &delivery).await;
    h.run_jobs_concurrently(4).await;
    let plan = h
        .github
        .comments()
        .into_iter()
        .find(|c| c.body.contains("## tfgate plan"))
        .expect("a plan comment");
    assert!(!plan.body.contains("planning…"), "{}", plan.body);
    for i in 0..touched {
        assert!(plan.body.contains(&format!("`r{i}`")), "{}", plan.body);
    }
    let last = plan.edited_at.unwrap_or(plan.at);
    (
        plan.at.duration_since(started).as_millis(),
        last.duration_since(started).as_millis(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "benchmark: bash bench/parallel/run.sh"]
async fn bench_parallel_plans() {
    assert!(terraform_tools_available());
    let roots = env_u64("BENCH_ROOTS", 8) as usize;
    let delay = env_u64("BENCH_PLAN_DELAY_MS", 1000);
    // Warm the provider cache and the sandbox once, outside the figures.
    plan_once(1, 1, 4, 0).await;
    let single = plan_once(roots, 1, 4, delay).await.1;
    let serial = plan_once(roots, roots, 1, delay).await.1;
    let (first, parallel) = plan_once(roots, roots, 4, delay).await;
    let ratio = parallel as f64 / serial as f64;
    let first_ratio = first as f64 / single as f64;
    println!(
        "BENCH_RESULT bench=parallel roots={roots} plan_delay_ms={delay} parallel_ms={parallel} serial_ms={serial} ratio={ratio:.2} first_ms={first} single_ms={single} first_ratio={first_ratio:.2}"
    );
    tokio::time::sleep(Duration::from_millis(10)).await;
}
