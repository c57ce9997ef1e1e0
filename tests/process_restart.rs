//! The real binary: `serve` with no App configured answers `/healthz` and shows the setup
//! page; a delivery accepted just before `kill -9` is still run after a restart.

mod support;

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use support::{free_port, pr_comment, wait_healthy, SECRET};

fn start(data: &std::path::Path, port: u16, workers: u32) -> Child {
    Command::new(env!("CARGO_BIN_EXE_tfgate"))
        .arg("serve")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("TFGATE_ADDR", format!("127.0.0.1:{port}"))
        .env("TFGATE_DATA_DIR", data)
        .env("TFGATE_WEBHOOK_SECRET", SECRET)
        .env("TFGATE_WORKERS", workers.to_string())
        .env("TFGATE_POLICY_DIR", data.join("policies"))
        .stdout(log_file(data))
        .stderr(log_file(data))
        .spawn()
        .unwrap()
}

/// The server's log (both streams, every start appended).
fn log_file(data: &std::path::Path) -> Stdio {
    std::fs::create_dir_all(data).unwrap();
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(data.join("server.log"))
        .unwrap();
    Stdio::from(file)
}

/// The one-time setup link the server printed in its log.
fn setup_link_in_log(data: &std::path::Path) -> String {
    let log = std::fs::read_to_string(data.join("server.log")).unwrap_or_default();
    let start = log
        .find("open http")
        .expect("the setup link is in the server log")
        + 5;
    log[start..]
        .split(|c: char| c.is_whitespace() || c == '"')
        .next()
        .unwrap()
        .to_string()
}

fn jobs(data: &std::path::Path) -> Vec<serde_json::Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_tfgate"))
        .args(["jobs", "--json"])
        .env_clear()
        .env("TFGATE_DATA_DIR", data)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test]
async fn job_survives_kill_9_and_runs_after_restart() {
    let (fresh, mut server) = fresh_server_without_workers().await;
    let (data, base, client) = (&fresh.data, &fresh.base, &fresh.client);
    let get = |url: String| async move { reqwest::get(url).await.unwrap().text().await.unwrap() };
    let without_token = get(format!("{base}/")).await;
    assert!(
        without_token.contains("no GitHub App is configured")
            && !without_token.contains("Register the GitHub App"),
        "no setup form without the one-time link: {without_token}"
    );
    let link = setup_link_in_log(data);
    assert!(
        link.starts_with(base.as_str()) && link.contains("setup_token="),
        "{link}"
    );
    let page = get(link).await;
    assert!(
        page.contains("Register the GitHub App"),
        "setup page offered with the link from the log"
    );

    deliver(client, base, "kill-9-delivery").await;
    server.kill().unwrap(); // SIGKILL
    server.wait().unwrap();

    let before = jobs(data);
    assert_eq!(before.len(), 1);
    assert_eq!(before[0]["status"], "queued");
    assert_eq!(before[0]["delivery_id"], "kill-9-delivery");

    assert_eq!(restart_with_a_worker(&fresh).await, "succeeded");
}

/// A job that the killed server's own worker held runs at once after the restart, not after
/// its 10-minute lease: on SQLite every worker is on this host, and the dead one is gone.
#[tokio::test]
async fn a_job_held_by_the_killed_servers_worker_runs_at_once_after_restart() {
    use tfgate::db::jobs as queue;
    use tfgate::jobs::owner;
    let (fresh, mut server) = fresh_server_without_workers().await;
    let (data, base, client) = (&fresh.data, &fresh.base, &fresh.client);
    deliver(client, base, "held-delivery").await;
    let pid = server.id();
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let started = owner::start_time_in_stat(&stat).unwrap();
    server.kill().unwrap();
    server.wait().unwrap();
    // What the killed server's worker 0 wrote when it claimed the job.
    let url = format!("sqlite://{}?mode=rwc", data.join("tfgate.db").display());
    let db = tfgate::db::Db::connect(&url).await.unwrap();
    let held_by = owner::owner_name(&owner::this_host(), pid, started, 0);
    queue::claim(&db, &held_by, 600_000).await.unwrap().unwrap();
    db.pool.close().await;
    assert_eq!(jobs(data)[0]["status"], "running");

    assert_eq!(restart_with_a_worker(&fresh).await, "succeeded");
    assert_eq!(jobs(data)[0]["attempts"], 2, "taken over, not run anew");
}

/// Issue 38 item 8: the real server serves `/metrics` on `TFGATE_METRICS_ADDR` and not on
/// its public address.
#[tokio::test]
async fn metrics_are_served_on_their_own_address_only() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let (port, metrics_port) = (free_port(), free_port());
    let mut server = Command::new(env!("CARGO_BIN_EXE_tfgate"))
        .arg("serve")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("TFGATE_ADDR", format!("127.0.0.1:{port}"))
        .env("TFGATE_METRICS_ADDR", format!("127.0.0.1:{metrics_port}"))
        .env("TFGATE_DATA_DIR", &data)
        .env("TFGATE_WORKERS", "0")
        .env("TFGATE_POLICY_DIR", data.join("policies"))
        .stdout(log_file(&data))
        .stderr(log_file(&data))
        .spawn()
        .unwrap();
    let client = reqwest::Client::new();
    let base = format!("http://127.0.0.1:{port}");
    wait_healthy(&client, &base).await;
    let public = client.get(format!("{base}/metrics")).send().await.unwrap();
    assert_eq!(public.status(), reqwest::StatusCode::NOT_FOUND);
    let metrics = format!("http://127.0.0.1:{metrics_port}/metrics");
    let scraped = client.get(metrics).send().await.unwrap();
    assert_eq!(scraped.status(), reqwest::StatusCode::OK);
    let text = scraped.text().await.unwrap();
    assert!(text.contains("tfgate_job_queue_depth"), "{text}");
    server.kill().unwrap();
    server.wait().unwrap();
}

/// A server on an empty data directory, running no workers (deliveries stay queued).
struct Fresh {
    /// Holds the data directory until the test ends.
    _dir: tempfile::TempDir,
    data: std::path::PathBuf,
    port: u16,
    base: String,
    client: reqwest::Client,
}

async fn fresh_server_without_workers() -> (Fresh, Child) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let client = reqwest::Client::new();
    let server = start(&data, port, 0);
    wait_healthy(&client, &base).await;
    let fresh = Fresh {
        _dir: dir,
        data,
        port,
        base,
        client,
    };
    (fresh, server)
}

async fn deliver(client: &reqwest::Client, base: &str, id: &str) {
    let body = serde_json::to_vec(&pr_comment("Looks good to me", "alice")).unwrap();
    let resp = client
        .post(format!("{base}/webhooks"))
        .header("x-github-event", "issue_comment")
        .header("x-github-delivery", id)
        .header(
            "x-hub-signature-256",
            tfgate::webhook::signature::sign(SECRET, &body),
        )
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 202);
}

/// Start the server again, now with one worker; the only job's status once it succeeded, or
/// after 10 s.
async fn restart_with_a_worker(fresh: &Fresh) -> String {
    let mut server = start(&fresh.data, fresh.port, 1);
    wait_healthy(&fresh.client, &fresh.base).await;
    let status = wait_for_success(&fresh.data).await;
    server.kill().unwrap();
    server.wait().unwrap();
    status
}

/// The only job's status once it succeeded, or after 10 s.
async fn wait_for_success(data: &std::path::Path) -> String {
    let mut status = String::new();
    for _ in 0..100 {
        status = jobs(data)[0]["status"].as_str().unwrap().to_string();
        if status == "succeeded" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    status
}
