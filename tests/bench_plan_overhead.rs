//! Bot overhead per plan, as an ignored test so it shares the scenario tests' fake GitHub:
//! the time from a signed `/plan` comment delivery to the plan comment posted, minus the time
//! of the same `terraform init && terraform plan` run directly, on the same machine.
//!
//! Run with `bash bench/plan-overhead/run.sh` (starts moto, builds in release mode), or
//! `cargo test --release --test bench_plan_overhead -- --ignored --nocapture` with moto up.
//!
//! The bot side is tfgate in one process: the real router, the SQLite queue and one embedded
//! worker, policy, the tarball checkout from the fake GitHub over HTTP (real octocrab), STS on
//! moto, Terraform 1.0.3 in bubblewrap, classification, redaction, rendering, and the comment
//! POSTed back; timed until the fake receives the plan comment. The direct side is a fresh copy
//! of the same root, the same Terraform and CLI config and S3 backend, run without a sandbox.
//!
//! Settings (environment): BENCH_ITERATIONS (10), BENCH_RESOURCES (5 `fake_thing`s in the
//! root), BENCH_SANDBOX (bwrap; `none` runs Terraform unsandboxed, to split the sandbox's share).
//! Prints per-iteration times, the medians and a final line
//! `BENCH_RESULT bench=plan-overhead ... overhead_median_ms=…`.

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use support::*;

fn tools() -> std::path::PathBuf {
    tools_dir()
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn root_tf(key: &str, resources: usize) -> String {
    let mut things = String::new();
    for i in 0..resources {
        let depends = if i == 0 {
            String::new()
        } else {
            format!("  depends_value = fake_thing.r{}.id\n", i - 1)
        };
        things.push_str(&format!(
            "resource \"fake_thing\" \"r{i}\" {{\n  name = \"thing-{i}\"\n{depends}}}\n"
        ));
    }
    moto_root_tf(key, &things)
}

/// `network` of the project: `egress` (the default: through tfgate's proxy) or `shared` (the
/// host's network, with `--allow-host-network`), to show the proxy's share.
fn policy(network: &str) -> String {
    one_root_policy("app", "infra/app", &format!("    network: {network}\n"))
}

/// A tfgate with one worker whose project uses `network`, serving `repo`.
async fn bot(
    network: &str,
    sandbox: &str,
    repo: &Path,
) -> (Harness, tokio::sync::watch::Sender<bool>) {
    let h = Harness::start_with(Backend::Sqlite, Some(&policy(network)), |a| {
        a.sandbox = Some(sandbox.to_string());
        a.allow_host_network = network == "shared";
    })
    .await
    .unwrap();
    h.github.serve_repo(repo);
    h.github.with(|g| {
        g.files = vec!["infra/app/main.tf".into()];
        g.permissions.insert("alice".into(), "write".into());
    });
    let (stop, shutdown) = tokio::sync::watch::channel(false);
    let _workers = tfgate::server::spawn_workers(&h.state, 1, &shutdown);
    (h, stop)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// `terraform init && terraform plan` in a fresh copy of the root, as a user would; with
/// `same_env`, also with the variables tfgate's sandbox sets (`TF_DISABLE_PLUGIN_TLS=1`), which
/// isolates tfgate's own cost from the speed-up that setting gives Terraform.
fn direct_plan(src: &Path, same_env: bool) -> Duration {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("app");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(src.join("main.tf"), dir.join("main.tf")).unwrap();
    let terraform = tools().join("bin/terraform");
    let run = |args: &[&str]| {
        let out = std::process::Command::new(&terraform)
            .args(args)
            .current_dir(&dir)
            .env("TF_CLI_CONFIG_FILE", tools().join("fake-provider.tfrc"))
            .env("CHECKPOINT_DISABLE", "1")
            .env("AWS_ACCESS_KEY_ID", "testing")
            .env("AWS_SECRET_ACCESS_KEY", "testing")
            .env("AWS_REGION", "us-east-1")
            .envs(same_env.then_some(("TF_DISABLE_PLUGIN_TLS", "1")))
            .output()
            .expect("running terraform");
        assert!(
            out.status.success(),
            "terraform {args:?} failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    };
    let start = Instant::now();
    run(&["init", "-input=false", "-no-color"]);
    let plan = run(&["plan", "-input=false", "-no-color"]);
    let took = start.elapsed();
    let text = String::from_utf8_lossy(&plan.stdout);
    assert!(
        text.contains("fake_thing.r0"),
        "the direct plan does not list fake_thing.r0:\n{text}"
    );
    took
}

/// One bot plan: deliver `/plan`, wait for the plan comment; the time between.
async fn bot_plan(h: &Harness) -> Duration {
    let before = h.github.comments().len();
    let start = Instant::now();
    let (status, _) = h
        .deliver("issue_comment", &pr_comment("/plan", "alice"))
        .await;
    assert_eq!(status.as_u16(), 202, "delivery not accepted");
    let deadline = start + Duration::from_secs(60);
    let posted = loop {
        let new = h.github.comments().split_off(before);
        if let Some(plan) = new.into_iter().find(|c| c.body.contains("tfgate plan")) {
            break plan;
        }
        assert!(
            Instant::now() < deadline,
            "no plan comment after 60 s; comments: {:?}",
            h.github.comments().split_off(before)
        );
        tokio::time::sleep(Duration::from_millis(2)).await;
    };
    assert!(
        posted.body.contains("`app`"),
        "the plan comment does not show the root:\n{}",
        posted.body
    );
    assert!(
        !posted.body.contains("❌"),
        "the plan failed:\n{}",
        posted.body
    );
    let took = posted.at.duration_since(start);
    h.wait_idle().await; // the run job releases its workdir before the next one
    took
}

async fn direct_pair(app: &Path) -> (f64, f64) {
    let app = app.to_path_buf();
    let (d, s) =
        tokio::task::spawn_blocking(move || (direct_plan(&app, false), direct_plan(&app, true)))
            .await
            .unwrap();
    (ms(d), ms(s))
}

fn report(
    iterations: usize,
    resources: usize,
    sandbox: &str,
    bot: &[f64],
    direct: &[f64],
    same_env: &[f64],
) {
    let (mb, md, ms_env) = (
        median(bot.to_vec()),
        median(direct.to_vec()),
        median(same_env.to_vec()),
    );
    let paired = median(bot.iter().zip(direct).map(|(b, d)| b - d).collect());
    let own_paired = median(bot.iter().zip(same_env).map(|(b, s)| b - s).collect());
    println!("bot (delivery -> plan comment posted): median {mb:.1} ms");
    println!("direct (terraform init && terraform plan): median {md:.1} ms");
    println!(
        "direct with the sandbox's Terraform env (TF_DISABLE_PLUGIN_TLS=1): median {ms_env:.1} ms"
    );
    println!("overhead: median(bot) - median(direct) = {:.1} ms; median of paired differences = {paired:.1} ms", mb - md);
    println!("tfgate's own cost: median(bot) - median(direct, same env) = {:.1} ms; paired {own_paired:.1} ms", mb - ms_env);
    println!(
        "BENCH_RESULT bench=plan-overhead iterations={iterations} resources={resources} sandbox={sandbox} \
         bot_median_ms={mb:.1} direct_median_ms={md:.1} overhead_median_ms={:.1} overhead_paired_median_ms={paired:.1} \
         direct_same_env_median_ms={ms_env:.1} own_cost_median_ms={:.1} target_ms<=300",
        mb - md,
        mb - ms_env
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark: bash bench/plan-overhead/run.sh"]
async fn plan_overhead() {
    let iterations = env_usize("BENCH_ITERATIONS", 10).max(1);
    let resources = env_usize("BENCH_RESOURCES", 5).max(1);
    let sandbox = std::env::var("BENCH_SANDBOX").unwrap_or_else(|_| "bwrap".into());
    assert!(
        terraform_tools_available(),
        "the benchmark needs Terraform, the test provider and moto"
    );
    let moto = std::env::var("TFGATE_TEST_MOTO_URL").unwrap();
    reqwest::Client::new()
        .put(format!("{moto}/tfstate"))
        .send()
        .await
        .expect("state bucket");
    // The repository: one root, state in a key of its own.
    let key = format!("bench-{}/app.tfstate", uuid::Uuid::new_v4().simple());
    let repo = tempfile::tempdir().unwrap();
    let app = repo.path().join("infra/app");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(app.join("main.tf"), root_tf(&key, resources)).unwrap();
    let (h, _stop) = bot("egress", &sandbox, repo.path()).await;
    let (host, _stop_host) = bot("shared", &sandbox, repo.path()).await;

    eprintln!("plan-overhead: {iterations} iterations, {resources} resources, sandbox {sandbox}; warm-up: one of each (not counted)");
    bot_plan(&h).await;
    bot_plan(&host).await;
    direct_pair(&app).await;
    // Alternate the runs so drift in the machine's load hits all alike.
    let (mut egress, mut shared, mut direct, mut same_env) = (vec![], vec![], vec![], vec![]);
    for i in 1..=iterations {
        let b = ms(bot_plan(&h).await);
        let n = ms(bot_plan(&host).await);
        let (d, s) = direct_pair(&app).await;
        eprintln!(
            "  #{i:>2}  bot {b:>8.1} ms   bot, host network {n:>8.1} ms   direct {d:>8.1} ms   direct, sandbox env {s:>8.1} ms"
        );
        egress.push(b);
        shared.push(n);
        direct.push(d);
        same_env.push(s);
    }
    let proxy = median(egress.iter().zip(&shared).map(|(e, n)| e - n).collect());
    println!(
        "bot with the host network (no proxy): median {:.1} ms; own cost {:.1} ms",
        median(shared.clone()),
        median(shared.clone()) - median(same_env.clone())
    );
    println!("the egress proxy's share: median of paired differences = {proxy:.1} ms");
    println!("BENCH_RESULT bench=plan-overhead-host-network bot_median_ms={:.1} proxy_paired_median_ms={proxy:.1}", median(shared.clone()));
    let bot = egress;
    report(iterations, resources, &sandbox, &bot, &direct, &same_env);
}
