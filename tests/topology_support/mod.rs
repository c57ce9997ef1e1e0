//! The multi-machine topology on one host: the real `tfgate serve --workers 0` and `tfgate
//! worker` binaries, each with a data directory of its own (no shared volume), on one fresh
//! PostgreSQL database, a fake GitHub over HTTP, STS and S3 on moto, Terraform 1.0.3 with the
//! test provider in bubblewrap. Every root fetches its own URL from a loopback [`HitCounter`]
//! at plan time (the test provider's `fake_fetch`, allowed by the policy's `egress:`), so the
//! counter sees each Terraform plan that ran, whatever the database says.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::fake_github::FakeGitHub;
use crate::support::*;

mod processes;
pub use processes::*;

/// A loopback HTTP server that answers `200 ok` and counts complete `GET /hit/NAME` requests
/// by name.
pub struct HitCounter {
    pub port: u16,
    hits: Arc<Mutex<BTreeMap<String, usize>>>,
}

impl HitCounter {
    pub async fn start() -> HitCounter {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let hits: Arc<Mutex<BTreeMap<String, usize>>> = Default::default();
        let seen = hits.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(count_one(stream, seen.clone()));
            }
        });
        HitCounter { port, hits }
    }

    /// Hits so far, by name.
    pub fn hits(&self) -> BTreeMap<String, usize> {
        self.hits.lock().unwrap().clone()
    }

    pub fn url(&self, name: &str) -> String {
        format!("http://127.0.0.1:{}/hit/{name}", self.port)
    }
}

/// Count the request on `stream` once its headers arrived in full, then answer it.
async fn count_one(mut stream: tokio::net::TcpStream, hits: Arc<Mutex<BTreeMap<String, usize>>>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return, // cut off: the request never arrived whole
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let text = String::from_utf8_lossy(&head);
    let target = text.split_whitespace().nth(1).unwrap_or("");
    // Through the proxy the request line carries the absolute URL.
    if let Some((_, name)) = target.split_once("/hit/") {
        *hits.lock().unwrap().entry(name.to_string()).or_default() += 1;
    }
    let _ = stream
        .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        .await;
}

/// One root of the test repository, planned on one PR.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Root {
    pub pr: i64,
    pub project: String,
}

/// `per_pr` roots for each of PRs 1..=`prs`: project `pPPrK` in `infra/pPPrK`.
pub fn roots(prs: i64, per_pr: usize) -> Vec<Root> {
    (1..=prs)
        .flat_map(|pr| {
            (1..=per_pr).map(move |k| Root {
                pr,
                project: format!("p{pr:02}r{k}"),
            })
        })
        .collect()
}

fn policy(roots: &[Root], counter: &HitCounter) -> String {
    let moto = std::env::var("TFGATE_TEST_MOTO_URL").unwrap_or_default();
    let moto = moto.trim_start_matches("http://").trim_end_matches('/');
    let mut text = format!(
        "repos: [\"Codertocat/Hello-World\"]\ncommands_per_hour: 0\ndefaults:\n  plan_role: arn:aws:iam::111111111111:role/tfgate-plan\n  apply_role: arn:aws:iam::111111111111:role/tfgate-apply\n  providers: [\"tfgate/*\"]\n  egress: [\"{moto}\", \"127.0.0.1:{}\"]\nprojects:\n",
        counter.port
    );
    for r in roots {
        text.push_str(&format!("  - name: {0}\n    dir: infra/{0}\n", r.project));
    }
    text
}

/// One resource, and a plan-time fetch of the root's own counter URL.
fn root_tf(run: &str, project: &str, counter: &HitCounter) -> String {
    let body = format!(
        "resource \"fake_thing\" \"one\" {{\n  name = \"{project}\"\n}}\ndata \"fake_fetch\" \"seen\" {{\n  url = \"{}\"\n}}\n",
        counter.url(project)
    );
    moto_root_tf(&format!("{run}/{project}.tfstate"), &body)
}

/// The processes and services of one topology.
pub struct Topology {
    pub dir: tempfile::TempDir,
    pub github: FakeGitHub,
    pub counter: HitCounter,
    pub db: tfgate::db::Db,
    pub launcher: Launcher,
    pub serve: Process,
    pub base: String,
    pub client: reqwest::Client,
    pub roots: Vec<Root>,
}

impl Topology {
    /// `serve --workers 0` on a fresh PostgreSQL database, serving a repository with `roots`;
    /// `None` (skipped) when PostgreSQL, Terraform, the test provider or moto is missing.
    pub async fn start(roots: Vec<Root>, lease_secs: u64) -> Option<Topology> {
        if !terraform_tools_available() {
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let database_url = fresh_database(Backend::Postgres, dir.path()).await?;
        let db = tfgate::db::Db::connect(&database_url).await.unwrap();
        let counter = HitCounter::start().await;
        let github = FakeGitHub::start().await;
        write_repo(dir.path(), &roots, &counter, &github);
        create_state_bucket().await;
        let launcher = Launcher::new(dir.path(), &database_url, &github, lease_secs);
        let port = free_port();
        let addr = format!("127.0.0.1:{port}");
        let serve = launcher.start(
            &["serve"],
            &[("TFGATE_WORKERS", "0"), ("TFGATE_ADDR", &addr)],
        );
        let topology = Topology {
            dir,
            github,
            counter,
            db,
            launcher,
            serve,
            base: format!("http://{addr}"),
            client: reqwest::Client::new(),
            roots,
        };
        wait_healthy(&topology.client, &topology.base).await;
        Some(topology)
    }

    /// Start `tfgate worker` with `workers` workers.
    pub fn start_worker(&self, workers: usize) -> Process {
        self.launcher
            .start(&["worker"], &[("TFGATE_WORKERS", &workers.to_string())])
    }

    /// Alice comments `/plan -p ROOT` on the root's PR: one signed delivery to `serve`.
    pub async fn plan(&self, root: &Root) {
        let mut delivery = pr_comment(&format!("/plan -p {}", root.project), "alice");
        delivery["issue"]["number"] = root.pr.into();
        let body = serde_json::to_vec(&delivery).unwrap();
        let resp = self
            .client
            .post(format!("{}/webhooks", self.base))
            .header("x-github-event", "issue_comment")
            .header("x-github-delivery", uuid::Uuid::new_v4().to_string())
            .header(
                "x-hub-signature-256",
                tfgate::webhook::signature::sign(SECRET, &body),
            )
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 202, "delivery refused");
    }

    /// The plan result comments posted on `root`'s PR for `root`.
    pub fn plan_comments(&self, root: &Root) -> Vec<String> {
        let cell = format!("| `{}` |", root.project);
        self.github
            .comments()
            .into_iter()
            .filter(|c| c.number == root.pr && c.body.contains("## tfgate plan"))
            .filter(|c| c.body.contains(&cell))
            .map(|c| c.body)
            .collect()
    }

    /// The roots named by a "Run interrupted" notice, with their PR.
    pub fn interrupted_notices(&self) -> Vec<Root> {
        let mut out: Vec<Root> = self
            .github
            .comments()
            .into_iter()
            .filter(|c| c.body.starts_with("## ⚠ Run interrupted"))
            .filter_map(|c| {
                let project = c.body.split("The run for `").nth(1)?.split('`').next()?;
                Some(Root {
                    pr: c.number,
                    project: project.to_string(),
                })
            })
            .collect();
        out.sort();
        out
    }

    /// Wait (up to `limit`) until every root has a plan comment and no job is left queued or
    /// running; then the jobs by kind and status.
    pub async fn wait_all_planned(&self, limit: Duration) -> BTreeMap<(String, String), i64> {
        let start = std::time::Instant::now();
        loop {
            let planned = self.planned();
            let jobs = self.jobs_by_kind_and_status().await;
            let busy = jobs
                .iter()
                .filter(|((_, s), _)| s == "queued" || s == "running")
                .count();
            if planned == self.roots.len() && busy == 0 {
                return jobs;
            }
            // Every delivery was stored with its job before `serve` answered 202.
            if busy == 0 || start.elapsed() > limit {
                panic!(
                    "after {:?}: {planned} of {} roots planned; jobs {jobs:?}\n{}",
                    start.elapsed(),
                    self.roots.len(),
                    self.launcher.warnings()
                );
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }

    pub async fn jobs_by_kind_and_status(&self) -> BTreeMap<(String, String), i64> {
        let rows: Vec<(String, String, i64)> =
            sqlx::query_as("SELECT kind, status, COUNT(*) FROM jobs GROUP BY kind, status")
                .fetch_all(&self.db.pool)
                .await
                .unwrap();
        rows.into_iter().map(|(k, s, n)| ((k, s), n)).collect()
    }

    /// The runs `running` under a job leased to one of `owners`, as roots.
    pub async fn runs_running_under(&self, owners: &[String]) -> Vec<Root> {
        let sql = format!(
            "SELECT r.pr, r.project FROM runs r JOIN jobs j ON j.id = r.job_id \
             WHERE r.status = 'running' AND j.status = 'running' AND j.lease_owner IN ({})",
            placeholders(1, owners.len())
        );
        let mut query = sqlx::query_as::<_, (i64, String)>(&sql);
        for owner in owners {
            query = query.bind(owner);
        }
        let rows = query.fetch_all(&self.db.pool).await.unwrap();
        let mut out: Vec<Root> = rows
            .into_iter()
            .map(|(pr, project)| Root { pr, project })
            .collect();
        out.sort();
        out
    }

    /// How many roots have their plan comment.
    pub fn planned(&self) -> usize {
        self.roots
            .iter()
            .filter(|r| !self.plan_comments(r).is_empty())
            .count()
    }

    /// When the fake GitHub received the last comment.
    pub fn last_comment_at(&self) -> std::time::Instant {
        self.github.comments().iter().map(|c| c.at).max().unwrap()
    }

    /// Every run's claim-to-start latency in ms (its job created → the run started), in the
    /// order the runs started.
    pub async fn claim_to_start_ms(&self) -> Vec<i64> {
        sqlx::query_scalar(
            "SELECT r.created_at - j.created_at FROM runs r JOIN jobs j ON j.id = r.job_id \
             ORDER BY r.id",
        )
        .fetch_all(&self.db.pool)
        .await
        .unwrap()
    }

    /// Wait (up to `limit`) until `count` roots have their plan comment.
    pub async fn wait_for_plans(&self, count: usize, limit: Duration) {
        let start = std::time::Instant::now();
        loop {
            let planned = self.planned();
            if planned >= count {
                return;
            }
            assert!(
                start.elapsed() < limit,
                "{planned} plans\n{}",
                self.launcher.warnings()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Wait (up to `limit`) until a run is going under a job leased to one of `owners`.
    /// Wait (up to `limit`) until `count` runs have started (plan comments lag behind runs:
    /// publishing is a job of its own, queued behind the plans).
    pub async fn wait_for_runs(&self, count: i64, limit: Duration) {
        let start = std::time::Instant::now();
        loop {
            let started: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM runs")
                .fetch_one(&self.db.pool)
                .await
                .unwrap();
            if started >= count {
                return;
            }
            assert!(start.elapsed() < limit, "only {started} runs started");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub async fn wait_for_a_run_under(&self, owners: &[String], limit: Duration) {
        let start = std::time::Instant::now();
        while self.runs_running_under(owners).await.is_empty() {
            assert!(
                start.elapsed() < limit,
                "no run started under {owners:?}\n{}",
                self.launcher.warnings()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// The repository (one directory per root, served as every commit's tarball), the policy
/// (every root a project; moto and the counter on the egress allowlist) and alice's access.
fn write_repo(dir: &Path, roots: &[Root], counter: &HitCounter, github: &FakeGitHub) {
    let run = uuid::Uuid::new_v4().simple().to_string();
    let repo = dir.join("repo");
    for r in roots {
        let root = repo.join("infra").join(&r.project);
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("main.tf"), root_tf(&run, &r.project, counter)).unwrap();
    }
    github.serve_repo(&repo);
    github.with(|g| {
        g.files = roots
            .iter()
            .map(|r| format!("infra/{}/main.tf", r.project))
            .collect();
        g.permissions.insert("alice".into(), "write".into());
    });
    std::fs::create_dir_all(dir.join("policies")).unwrap();
    std::fs::write(dir.join("policies/repo.yaml"), policy(roots, counter)).unwrap();
}

/// `$first, …` for `count` bound values.
fn placeholders(first: usize, count: usize) -> String {
    (first..first + count)
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// moto's `tfstate` bucket (the S3 backend of every root).
async fn create_state_bucket() {
    let moto = std::env::var("TFGATE_TEST_MOTO_URL").unwrap();
    let _ = reqwest::Client::new()
        .put(format!("{moto}/tfstate"))
        .send()
        .await
        .unwrap();
}

/// The last `lines` lines of a process log (for failure messages).
pub fn log_tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
