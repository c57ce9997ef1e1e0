//! The harness: the real router and database on a fresh configuration, a fake GitHub over
//! HTTP, signed deliveries in.

use std::path::PathBuf;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::Value;
use tower::ServiceExt;

use super::fake_github::FakeGitHub;
use super::{fixture_path, fresh_database, tools_dir, Backend, SECRET, TEST_SEAL_KEY};
use tfgate::config::{Config, ConfigArgs};
use tfgate::state::AppState;
use tfgate::webhook::signature::sign;

pub struct Harness {
    pub state: Arc<AppState>,
    pub github: FakeGitHub,
    pub dir: tempfile::TempDir,
    delivery_seq: std::sync::atomic::AtomicU64,
    /// The heads tfgate is told about without a test delivering their `pull_request` event.
    pub(super) pushes: std::sync::Mutex<SeenPushes>,
}

/// By default a scenario's PR is one tfgate saw opened, and every head the fake GitHub serves
/// was pushed by its author: before each delivery about a PR, a head the harness has not
/// recorded yet is stored as GitHub's `opened` (the first) or `synchronize` (from the previous
/// one) delivery would have had tfgate store it, sent by the PR's author (who can never
/// approve anyway). [`Harness::push_by`] delivers a push by someone else;
/// [`Harness::pushes_unseen`] stops this (a PR opened before the App was installed).
pub(super) struct SeenPushes {
    pub(super) enabled: bool,
    /// PR → the head last recorded or delivered.
    pub(super) heads: std::collections::HashMap<i64, String>,
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
