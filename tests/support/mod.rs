//! Scenario harness: the real router and database, a fake GitHub over HTTP, signed deliveries
//! in, posted comments out.

#![allow(dead_code)]

pub mod fake_github;
pub mod jobs;

use std::path::PathBuf;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::Value;
use tower::ServiceExt;

use fake_github::FakeGitHub;
use tfgate::config::{Config, ConfigArgs};
use tfgate::db::jobs as queue;
use tfgate::db::Db;
use tfgate::jobs::runner::JobHandler;
use tfgate::state::AppState;
use tfgate::webhook::signature::sign;
use tfgate::worker::JobRouter;

pub const SECRET: &str = "test-webhook-secret";
/// A fixed sealing key (base64 of 32 bytes) for harnesses on PostgreSQL.
pub const TEST_SEAL_KEY: &str = "dGZnYXRlLXRlc3Qtc2VhbC1rZXktMzItYnl0ZXMhISE=";

pub fn tools_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".tools")
}

/// Whether real Terraform, the test provider and moto are available; when they are not, the
/// test is skipped with a note, or fails under `TFGATE_REQUIRE_TOOLS=1` (CI).
pub fn terraform_tools_available() -> bool {
    let missing: Vec<&str> = [
        (!tools_dir().join("bin/terraform").is_file())
            .then_some("terraform (scripts/install-terraform.sh)"),
        (!tools_dir().join("fake-provider.tfrc").is_file())
            .then_some("test provider (scripts/build-test-provider.sh)"),
        std::env::var("TFGATE_TEST_MOTO_URL")
            .map(|u| u.is_empty())
            .unwrap_or(true)
            .then_some("moto (TFGATE_TEST_MOTO_URL)"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if missing.is_empty() {
        // moto accepts any credentials; the base chain reads them from the environment.
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            std::env::set_var("AWS_ACCESS_KEY_ID", "testing");
            std::env::set_var("AWS_SECRET_ACCESS_KEY", "testing");
        });
        return true;
    }
    if std::env::var("TFGATE_REQUIRE_TOOLS").as_deref() == Ok("1") {
        panic!("TFGATE_REQUIRE_TOOLS=1 but missing: {}", missing.join(", "));
    }
    eprintln!("SKIPPED: missing {}", missing.join(", "));
    false
}

/// A TCP port free on 127.0.0.1 (for a real `tfgate serve` started by a test).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// POST `payload` to a real server's `/webhooks` as GitHub would (signed with [`SECRET`], a
/// fresh delivery id); returns the status code.
pub async fn post_signed(
    client: &reqwest::Client,
    base: &str,
    event: &str,
    payload: &Value,
) -> u16 {
    let body = serde_json::to_vec(payload).unwrap();
    let signature = tfgate::webhook::signature::sign(SECRET, &body);
    client
        .post(format!("{base}/webhooks"))
        .header("x-github-event", event)
        .header("x-github-delivery", uuid::Uuid::new_v4().to_string())
        .header("x-hub-signature-256", signature)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

/// Wait (up to 10 s) until the server at `base` answers `/healthz` with 2xx.
pub async fn wait_healthy(client: &reqwest::Client, base: &str) {
    for _ in 0..200 {
        if let Ok(r) = client.get(format!("{base}/healthz")).send().await {
            if r.status().is_success() {
                return;
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("server did not become healthy");
}

/// A policy for the fixture repository with one project `name` in `dir`, plan and apply
/// roles in account 111111111111, and `extra` top-level keys (YAML) appended.
pub fn one_root_policy(name: &str, dir: &str, extra: &str) -> String {
    let egress = test_network();
    format!(
        "repos: [\"Codertocat/Hello-World\"]\ndefaults:\n  plan_role: arn:aws:iam::111111111111:role/tfgate-plan\n  apply_role: arn:aws:iam::111111111111:role/tfgate-apply\n{egress}projects:\n  - name: {name}\n    dir: {dir}\n{extra}"
    )
}

/// `policy` with [`test_network`] added to its `defaults:`.
pub fn with_test_network(policy: &str) -> String {
    policy.replacen("defaults:\n", &format!("defaults:\n{}", test_network()), 1)
}

/// The `defaults` lines every test policy whose runs use Terraform needs: the test provider
/// (`tfgate/*`; the default is `hashicorp/*`) and moto's port on the egress allowlist.
pub fn test_network() -> String {
    format!("  providers: [\"tfgate/*\"]\n{}", moto_egress())
}

/// The `defaults` line that lets runs reach moto (the S3 state backend) through the egress
/// proxy: `  egress: ["127.0.0.1:PORT"]`. Without it, the sandbox reaches nothing on the host.
pub fn moto_egress() -> String {
    let moto = std::env::var("TFGATE_TEST_MOTO_URL").unwrap_or_default();
    match moto.strip_prefix("http://") {
        Some(host_port) => format!("  egress: [\"{}\"]\n", host_port.trim_end_matches('/')),
        None => String::new(),
    }
}

/// Creates the `tfstate` bucket in moto's S3 that [`moto_root_tf`] roots keep their state in
/// (a bucket that exists already is fine).
pub async fn create_state_bucket() {
    let moto = std::env::var("TFGATE_TEST_MOTO_URL").unwrap();
    reqwest::Client::new()
        .put(format!("{moto}/tfstate"))
        .send()
        .await
        .unwrap();
}

/// A root for the test provider whose state lives in moto's S3 under `state_key`, then
/// `resources` (HCL).
pub fn moto_root_tf(state_key: &str, resources: &str) -> String {
    let moto = std::env::var("TFGATE_TEST_MOTO_URL").unwrap_or_default();
    format!(
        r#"terraform {{
  required_providers {{
    fake = {{ source = "tfgate/fake", version = "0.1.0" }}
  }}
  backend "s3" {{
    bucket                      = "tfstate"
    key                         = "{state_key}"
    region                      = "us-east-1"
    endpoint                    = "{moto}"
    force_path_style            = true
    skip_credentials_validation = true
    skip_metadata_api_check     = true
    skip_region_validation      = true
  }}
}}
provider "fake" {{}}
{resources}"#
    )
}

pub fn fixture_path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

pub fn webhook_fixture(name: &str) -> Value {
    let text = std::fs::read_to_string(fixture_path(&format!("webhooks/{name}"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// A PR comment delivery (`issue_comment.created` on a PR) with the given body and author;
/// each gets a comment id of its own (tfgate handles a comment id once).
pub fn pr_comment(body: &str, author: &str) -> Value {
    static NEXT_COMMENT_ID: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(1);
    let mut v = webhook_fixture("issue_comment.created.on-pr.json");
    v["comment"]["body"] = body.into();
    v["comment"]["user"]["login"] = author.into();
    v["comment"]["id"] = NEXT_COMMENT_ID
        .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
        .into();
    v
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// The PostgreSQL server for tests, if one is configured. With `TFGATE_REQUIRE_POSTGRES=1`
/// (the README test command sets it) a missing server fails the test instead of skipping.
pub fn postgres_admin_url() -> Option<String> {
    match std::env::var("TFGATE_TEST_DATABASE_URL") {
        Ok(u) if !u.is_empty() => Some(u),
        _ => {
            if std::env::var("TFGATE_REQUIRE_POSTGRES").as_deref() == Ok("1") {
                panic!("TFGATE_TEST_DATABASE_URL is not set but TFGATE_REQUIRE_POSTGRES=1");
            }
            eprintln!("note: TFGATE_TEST_DATABASE_URL unset; PostgreSQL variant skipped");
            None
        }
    }
}

/// A fresh, empty database URL for one test.
pub async fn fresh_database(backend: Backend, dir: &std::path::Path) -> Option<String> {
    match backend {
        Backend::Sqlite => Some(format!("sqlite://{}?mode=rwc", dir.join("t.db").display())),
        Backend::Postgres => {
            let admin = postgres_admin_url()?;
            let name = format!("tfgate_t_{}", uuid::Uuid::new_v4().simple());
            let db = Db::connect(&admin)
                .await
                .expect("connect to test PostgreSQL");
            sqlx::query(&format!("CREATE DATABASE {name}"))
                .execute(&db.pool)
                .await
                .expect("create test database");
            db.pool.close().await;
            let base = admin.rsplit_once('/').map(|(b, _)| b).unwrap_or(&admin);
            Some(format!("{base}/{name}"))
        }
    }
}

pub struct Harness {
    pub state: Arc<AppState>,
    pub github: FakeGitHub,
    pub dir: tempfile::TempDir,
    delivery_seq: std::sync::atomic::AtomicU64,
    /// The heads tfgate is told about without a test delivering their `pull_request` event.
    pushes: std::sync::Mutex<SeenPushes>,
}

/// By default a scenario's PR is one tfgate saw opened, and every head the fake GitHub serves
/// was pushed by its author: before each delivery about a PR, a head the harness has not
/// recorded yet is stored as GitHub's `opened` (the first) or `synchronize` (from the previous
/// one) delivery would have had tfgate store it, sent by the PR's author (who can never
/// approve anyway). [`Harness::push_by`] delivers a push by someone else;
/// [`Harness::pushes_unseen`] stops this (a PR opened before the App was installed).
struct SeenPushes {
    enabled: bool,
    /// PR → the head last recorded or delivered.
    heads: std::collections::HashMap<i64, String>,
}

impl Harness {
    /// `None` only for PostgreSQL when no server is configured.
    pub async fn start(backend: Backend) -> Option<Harness> {
        Self::start_with_policy(backend, None).await
    }

    /// Start with one server-side policy file (YAML) in the policy directory.
    pub async fn start_with_policy(backend: Backend, policy: Option<&str>) -> Option<Harness> {
        Self::start_with(backend, policy, |_| {}).await
    }

    /// Start with a policy and a change to the configuration.
    pub async fn start_with(
        backend: Backend,
        policy: Option<&str>,
        tweak: impl FnOnce(&mut ConfigArgs),
    ) -> Option<Harness> {
        let dir = tempfile::tempdir().unwrap();
        if let Some(text) = policy {
            std::fs::create_dir_all(dir.path().join("policies")).unwrap();
            std::fs::write(dir.path().join("policies/repo.yaml"), text).unwrap();
        }
        let url = fresh_database(backend, dir.path()).await?;
        let github = FakeGitHub::start().await;
        let key_path = fixture_path("github/test-app-key.pem");
        let mut args = ConfigArgs {
            data_dir: Some(dir.path().join("data")),
            database_url: Some(url),
            webhook_secret: Some(format!("old-secret,{SECRET}")),
            app_id: Some(4242),
            app_slug: Some("tfgate".into()),
            private_key_path: Some(key_path),
            github_api_url: Some(github.url()),
            policy_dir: Some(dir.path().join("policies")),
            terraform: Some(tools_dir().join("bin/terraform")),
            provider_mirror: Some(tools_dir().join("provider-mirror")),
            sandbox_relay: Some(PathBuf::from(env!("CARGO_BIN_EXE_tfgate"))),
            aws_endpoint_url: std::env::var("TFGATE_TEST_MOTO_URL")
                .ok()
                .filter(|u| !u.is_empty()),
            // PostgreSQL requires a configured sealing key (every process shares it).
            encryption_key: (backend == Backend::Postgres).then(|| TEST_SEAL_KEY.to_string()),
            ..Default::default()
        };
        tweak(&mut args);
        let config = Config::resolve(&args).unwrap();
        let state = AppState::build(config).await.unwrap();
        Some(Harness {
            state,
            github,
            dir,
            delivery_seq: Default::default(),
            pushes: std::sync::Mutex::new(SeenPushes {
                enabled: true,
                heads: Default::default(),
            }),
        })
    }

    pub fn next_delivery_id(&self) -> String {
        let n = self
            .delivery_seq
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        format!("00000000-0000-4000-8000-{n:012}")
    }

    /// POST a delivery signed with the current secret; returns status and JSON reply.
    pub async fn deliver(&self, event: &str, payload: &Value) -> (StatusCode, Value) {
        let id = self.next_delivery_id();
        self.deliver_with_id(event, payload, &id).await
    }

    pub async fn deliver_with_id(
        &self,
        event: &str,
        payload: &Value,
        id: &str,
    ) -> (StatusCode, Value) {
        self.deliver_signed_by(SECRET, event, payload, id).await
    }

    /// POST a delivery signed with `secret` (to test rotation and bad signatures).
    pub async fn deliver_signed_by(
        &self,
        secret: &str,
        event: &str,
        payload: &Value,
        id: &str,
    ) -> (StatusCode, Value) {
        let pr = payload["issue"]["number"]
            .as_i64()
            .or_else(|| payload["pull_request"]["number"].as_i64());
        if let Some(pr) = pr {
            self.record_fake_head(pr).await;
        }
        let body = serde_json::to_vec(payload).unwrap();
        let sig = sign(secret, &body);
        self.post_raw(
            &[
                ("x-github-event", event),
                ("x-github-delivery", id),
                ("x-hub-signature-256", &sig),
                ("content-type", "application/json"),
            ],
            body,
        )
        .await
    }

    pub async fn post_raw(&self, headers: &[(&str, &str)], body: Vec<u8>) -> (StatusCode, Value) {
        let mut req = Request::post("/webhooks");
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        self.request(req.body(Body::from(body)).unwrap()).await
    }

    pub async fn get(&self, path: &str) -> (StatusCode, String) {
        let resp = tfgate::http::router(self.state.clone())
            .oneshot(Request::get(path).body(Body::empty()).unwrap())
            .await
            .unwrap();
        let status = resp.status();
        let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
            .await
            .unwrap();
        (status, String::from_utf8_lossy(&bytes).to_string())
    }

    async fn request(&self, req: Request<Body>) -> (StatusCode, Value) {
        let resp = tfgate::http::router(self.state.clone())
            .oneshot(req)
            .await
            .unwrap();
        let status = resp.status();
        let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
            .await
            .unwrap();
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    /// Run queued jobs until none is left; returns how many ran.
    pub async fn run_jobs(&self) -> usize {
        let dispatcher = JobRouter::new(self.state.clone());
        let mut n = 0;
        while let Some(job) = queue::claim(&self.state.db, "test-worker", 30_000)
            .await
            .unwrap()
        {
            match dispatcher.handle(&job).await {
                Ok(()) => {
                    queue::complete(&self.state.db, &job).await.unwrap();
                }
                Err(tfgate::jobs::JobError::Interrupted(e)) => {
                    let error = format!("{e:#}");
                    queue::end_interrupted(&self.state.db, &job, &error)
                        .await
                        .unwrap();
                }
                Err(e) => panic!("job {} ({}) failed: {e}", job.id, job.kind),
            }
            n += 1;
        }
        n
    }

    /// Run queued jobs, but drop (complete without running) those of the given kinds: policy
    /// scenarios stop where Terraform would start.
    pub async fn run_jobs_except(&self, skip: &[&str]) -> usize {
        let dispatcher = JobRouter::new(self.state.clone());
        let mut n = 0;
        while let Some(job) = queue::claim(&self.state.db, "test-worker", 30_000)
            .await
            .unwrap()
        {
            if !skip.contains(&job.kind.as_str()) {
                if let Err(e) = dispatcher.handle(&job).await {
                    panic!("job {} ({}) failed: {e}", job.id, job.kind);
                }
                n += 1;
            }
            queue::complete(&self.state.db, &job).await.unwrap();
        }
        n
    }

    /// `user` comments `body` on PR `pr`; every job it leads to runs (Terraform included).
    /// Returns the comments tfgate posted meanwhile.
    pub async fn comment(&self, pr: i64, body: &str, user: &str) -> Vec<String> {
        self.comment_except(pr, body, user, &[]).await
    }

    /// Like [`Harness::comment`], but jobs of the `skip` kinds are dropped, not run (policy
    /// stories stop where Terraform would start: `&["run"]`).
    pub async fn comment_except(
        &self,
        pr: i64,
        body: &str,
        user: &str,
        skip: &[&str],
    ) -> Vec<String> {
        let before = self.github.comments().len();
        let mut delivery = pr_comment(body, user);
        delivery["issue"]["number"] = pr.into();
        self.deliver("issue_comment", &delivery).await;
        self.run_jobs_except(skip).await;
        self.github.comments()[before..]
            .iter()
            .map(|c| c.body.clone())
            .collect()
    }

    /// A push to PR `pr` by the webhook fixture's sender (`Codertocat`): the fake PR's head
    /// becomes `head_sha`, its changed files `files`, and a signed `pull_request.synchronize`
    /// is delivered (its jobs are left queued).
    pub async fn push(&self, pr: i64, head_sha: &str, files: &[&str]) {
        self.push_by(pr, head_sha, files, "Codertocat").await;
    }

    /// [`Harness::push`] by `sender` to the fake PR's author's PR: the delivery names the
    /// sender as the pusher and the previous head as `before`.
    pub async fn push_by(&self, pr: i64, head_sha: &str, files: &[&str], sender: &str) {
        self.record_fake_head(pr).await;
        let (before, author) = self.github.with(|g| {
            let before = std::mem::replace(&mut g.pr.head_sha, head_sha.to_string());
            g.files = files.iter().map(|f| f.to_string()).collect();
            (before, g.pr.author.clone())
        });
        self.pushes
            .lock()
            .unwrap()
            .heads
            .insert(pr, head_sha.to_string());
        let mut delivery = webhook_fixture("pull_request.synchronize.json");
        delivery["number"] = pr.into();
        delivery["pull_request"]["number"] = pr.into();
        delivery["pull_request"]["head"]["sha"] = head_sha.into();
        delivery["before"] = before.into();
        delivery["after"] = head_sha.into();
        delivery["pull_request"]["user"]["login"] = author.into();
        delivery["sender"]["login"] = sender.into();
        self.deliver("pull_request", &delivery).await;
    }

    /// The PR was opened before the App was installed, and heads the fake serves are not
    /// recorded as pushed: tfgate knows only the `pull_request` deliveries a test makes.
    pub fn pushes_unseen(&self) {
        self.pushes.lock().unwrap().enabled = false;
    }

    /// Record the fake PR's head as pushed by its author if the harness has not yet (see
    /// [`SeenPushes`]).
    async fn record_fake_head(&self, pr: i64) {
        let (head, author) = self
            .github
            .with(|g| (g.pr.head_sha.clone(), g.pr.author.clone()));
        let previous = {
            let mut pushes = self.pushes.lock().unwrap();
            if !pushes.enabled {
                return;
            }
            match pushes.heads.insert(pr, head.clone()) {
                Some(previous) if previous == head => return,
                previous => previous,
            }
        };
        let action = if previous.is_some() {
            "synchronize"
        } else {
            "opened"
        };
        let record =
            tfgate::policy::PushRecord::from_event(action, &head, previous.as_deref(), &author)
                .unwrap();
        tfgate::db::pr_pushes::record(
            &self.state.db,
            "Codertocat/Hello-World",
            pr,
            action,
            &record,
        )
        .await
        .unwrap();
    }

    /// `user` submits a review in `state` (`APPROVED`, `CHANGES_REQUESTED`, …) on the head.
    pub async fn review(&self, pr: i64, user: &str, state: &str) {
        let head = self.github.with(|g| {
            g.reviews.push(fake_github::FakeReview {
                user: user.into(),
                state: state.into(),
                commit_id: g.pr.head_sha.clone(),
                is_bot: false,
            });
            g.pr.head_sha.clone()
        });
        let mut delivery = webhook_fixture("pull_request_review.submitted.json");
        delivery["pull_request"]["number"] = pr.into();
        delivery["review"]["user"]["login"] = user.into();
        delivery["review"]["state"] = state.to_lowercase().into();
        delivery["review"]["commit_id"] = head.into();
        self.deliver("pull_request_review", &delivery).await;
    }

    /// Wait (up to 300 s) until no job is queued or running.
    pub async fn wait_idle(&self) {
        for _ in 0..30_000 {
            let busy: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM jobs WHERE status IN ('queued', 'running')",
            )
            .fetch_one(&self.state.db.pool)
            .await
            .unwrap();
            if busy == 0 {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        panic!("jobs still running after 300 s");
    }

    /// How many jobs of a kind were enqueued.
    pub async fn jobs_of(&self, kind: &str) -> i64 {
        sqlx::query_scalar("SELECT COUNT(*) FROM jobs WHERE kind = $1")
            .bind(kind)
            .fetch_one(&self.state.db.pool)
            .await
            .unwrap()
    }

    pub async fn job_count(&self) -> i64 {
        sqlx::query_scalar("SELECT COUNT(*) FROM jobs")
            .fetch_one(&self.state.db.pool)
            .await
            .unwrap()
    }

    /// `/metrics`, from the metrics listener's router (the public router has no `/metrics`).
    pub async fn metrics(&self) -> String {
        let resp = tfgate::http::metrics_router(self.state.clone())
            .oneshot(Request::get("/metrics").body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::OK);
        let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
            .await
            .unwrap();
        String::from_utf8_lossy(&bytes).to_string()
    }
}

/// Define a scenario test twice: on SQLite and on PostgreSQL.
#[macro_export]
macro_rules! scenario {
    ($name:ident, policy = $policy:expr, |$h:ident| $body:block) => {
        mod $name {
            use super::*;
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                let $h = $crate::support::Harness::start_with_policy(
                    $crate::support::Backend::Sqlite,
                    Some($policy),
                )
                .await
                .unwrap();
                $body
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                let Some($h) = $crate::support::Harness::start_with_policy(
                    $crate::support::Backend::Postgres,
                    Some($policy),
                )
                .await
                else {
                    return;
                };
                $body
            }
        }
    };
    ($name:ident, |$h:ident| $body:block) => {
        mod $name {
            use super::*;
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                let $h = $crate::support::Harness::start($crate::support::Backend::Sqlite)
                    .await
                    .unwrap();
                $body
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                let Some($h) =
                    $crate::support::Harness::start($crate::support::Backend::Postgres).await
                else {
                    return;
                };
                $body
            }
        }
    };
}

/// A PR (alice may write) whose one root `app` in `infra/app` is `main_tf`, served by the fake
/// GitHub; `extra_policy` is appended to the project's policy entry. `None` when Terraform
/// or the test provider is missing.
pub async fn one_root_harness(
    extra_policy: &str,
    main_tf: &str,
) -> Option<(Harness, tempfile::TempDir)> {
    if !terraform_tools_available() {
        return None;
    }
    let policy = one_root_policy("app", "infra/app", extra_policy);
    let h = Harness::start_with_policy(Backend::Sqlite, Some(&policy)).await?;
    let repo = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(repo.path().join("infra/app")).unwrap();
    std::fs::write(repo.path().join("infra/app/main.tf"), main_tf).unwrap();
    h.github.serve_repo(repo.path());
    h.github.with(|g| {
        g.files = vec!["infra/app/main.tf".into()];
        g.permissions.insert("alice".into(), "write".into());
    });
    Some((h, repo))
}

/// Like [`one_root_harness`], on `backend` and with the whole `policy` given (its one root
/// `app` in `infra/app`).
pub async fn policy_root_harness(
    backend: Backend,
    policy: &str,
    main_tf: &str,
) -> Option<(Harness, tempfile::TempDir)> {
    if !terraform_tools_available() {
        return None;
    }
    let h = Harness::start_with_policy(backend, Some(policy)).await?;
    let repo = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(repo.path().join("infra/app")).unwrap();
    std::fs::write(repo.path().join("infra/app/main.tf"), main_tf).unwrap();
    h.github.serve_repo(repo.path());
    h.github.with(|g| {
        g.files = vec!["infra/app/main.tf".into()];
        g.permissions.insert("alice".into(), "write".into());
    });
    Some((h, repo))
}
