//! Every process has the same keys and credentials, and `tfgate doctor` / `/readyz` say what
//! is wrong with a setup (issue 26, items 4 and 5).
//!
//! - The App registered through one server's setup page is used by a worker process started
//!   elsewhere on the same PostgreSQL database (credentials sealed in the database).
//! - PostgreSQL without `TFGATE_ENCRYPTION_KEY`, or a key the database does not know, stops
//!   start-up with a message that says what to do.
//! - `tfgate doctor` passes on a working setup and names each misconfiguration with its fix;
//!   `/readyz` answers 503 with the failed checks' names until they pass.

mod support;

use axum::http::StatusCode;
use serde_json::json;
use support::*;
use tfgate::config::{Config, ConfigArgs};
use tfgate::doctor::{doctor_for_config, doctor_for_state, Outcome};
use tfgate::state::AppState;
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

const POLICY: &str = r#"
repos: ["Codertocat/Hello-World"]
projects:
  - name: app
    dir: app
    plan_role: arn:aws:iam::123456789012:role/plan
    apply_role: arn:aws:iam::123456789012:role/apply
"#;

/// A process configured only by the database URL, a key and its own (empty) data directory.
fn another_process(database_url: &str, key: Option<&str>) -> (tempfile::TempDir, Config) {
    let dir = tempfile::tempdir().unwrap();
    let args = ConfigArgs {
        data_dir: Some(dir.path().join("data")),
        database_url: Some(database_url.to_string()),
        encryption_key: key.map(str::to_string),
        policy_dir: Some(dir.path().join("policies")),
        ..Default::default()
    };
    (dir, Config::resolve(&args).unwrap())
}

async fn register_app_through_setup(h: &Harness) {
    let pem = std::fs::read_to_string(fixture_path("github/test-app-key.pem")).unwrap();
    h.github
        .accept_manifest_code("c0de", &pem, "from-manifest")
        .await;
    let (_, page) = h
        .get(&format!("/?setup_token={}", h.state.setup.token()))
        .await;
    let state = page
        .split("?state=")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    let (status, body) = h
        .get(&format!("/setup/callback?code=c0de&state={state}"))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn a_worker_elsewhere_uses_the_app_registered_through_the_setup_page() {
    let Some(h) = Harness::start_with(Backend::Postgres, None, |a| {
        (a.app_id, a.private_key_path, a.webhook_secret) = (None, None, None);
    })
    .await
    else {
        return;
    };
    register_app_through_setup(&h).await;
    let (_dir, config) = another_process(&h.state.config.database_url, Some(TEST_SEAL_KEY));
    assert!(!config.data_dir.join("github-app.json").exists());
    let worker = AppState::build(config).await.unwrap();
    assert_eq!(worker.github().map(|g| g.app_id), Some(90210));
    assert_eq!(
        worker.webhook_secrets().len(),
        1,
        "the manifest's webhook secret came along"
    );
}

#[tokio::test]
async fn postgres_needs_a_configured_key_and_the_same_one_everywhere() {
    let Some(h) = Harness::start(Backend::Postgres).await else {
        return;
    };
    let url = &h.state.config.database_url;
    let (_d1, no_key) = another_process(url, None);
    let error = format!("{:#}", AppState::build(no_key).await.err().unwrap());
    assert!(
        error.contains("TFGATE_ENCRYPTION_KEY is required with PostgreSQL"),
        "{error}"
    );
    let other_key = "5anrBme7ddYKa5C1g2TuELiejxYlkTISVgKvuNRAffI=";
    let (_d2, wrong_key) = another_process(url, Some(other_key));
    let error = format!("{:#}", AppState::build(wrong_key).await.err().unwrap());
    assert!(
        error.contains("is not the one this database was first used with"),
        "{error}"
    );
    let (_d3, same_key) = another_process(url, Some(TEST_SEAL_KEY));
    assert!(AppState::build(same_key).await.is_ok());
}

#[tokio::test]
async fn a_new_key_file_on_an_existing_sqlite_database_stops_start_up() {
    let h = Harness::start(Backend::Sqlite).await.unwrap();
    // Another data directory: a new random key file, the same database.
    let (_dir, config) = another_process(&h.state.config.database_url, None);
    let error = format!("{:#}", AppState::build(config).await.err().unwrap());
    assert!(
        error.contains("Set the original TFGATE_ENCRYPTION_KEY"),
        "{error}"
    );
}

/// GitHub's answers to `GET /app`, the App's installations and their repositories.
async fn serve_app_endpoints(h: &Harness) {
    let server = &h.github.server;
    Mock::given(method("GET"))
        .and(path("/app"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "id": 4242, "slug": "tfgate", "node_id": "A_1", "name": "tfgate",
            "owner": {"login": "Codertocat", "id": 1, "type": "User"},
            "html_url": "https://github.com/apps/tfgate", "created_at": "2026-12-01T00:00:00Z",
            "updated_at": "2026-12-01T00:00:00Z", "permissions": {}, "events": []
        })))
        .mount(server)
        .await;
    Mock::given(method("GET"))
        .and(path("/app/installations"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!([{
            "id": 1, "account": {"login": "Codertocat", "id": 1, "type": "User"},
            "access_tokens_url": "", "repositories_url": "", "html_url": "",
            "app_id": 4242, "target_id": 1, "target_type": "User", "permissions": {},
            "events": [], "created_at": "2026-12-01T00:00:00Z",
            "updated_at": "2026-12-01T00:00:00Z", "repository_selection": "selected"
        }])))
        .mount(server)
        .await;
    Mock::given(method("GET")).and(path("/installation/repositories"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "total_count": 2,
            "repositories": [{"full_name": "Codertocat/Hello-World"}, {"full_name": "Codertocat/other"}]
        })))
        .mount(server).await;
}

fn line<'a>(text: &'a str, name: &str) -> &'a str {
    text.lines()
        .find(|l| l.split_whitespace().nth(1) == Some(name))
        .unwrap_or_else(|| panic!("no {name} line in:\n{text}"))
}

#[tokio::test]
async fn doctor_passes_a_working_setup_and_names_each_misconfiguration() {
    let h = Harness::start_with_policy(Backend::Sqlite, Some(POLICY))
        .await
        .unwrap();
    if !terraform_tools_available() {
        return;
    }
    serve_app_endpoints(&h).await;
    let good = doctor_for_config(&h.state.config).await;
    let text = good.to_string();
    assert!(good.passed(), "{text}");
    assert!(
        line(&text, "policies").contains("1 of 2 installed repositories covered"),
        "{text}"
    );
    assert!(
        line(&text, "github_app").contains("GET /app: tfgate"),
        "{text}"
    );
    assert!(
        line(&text, "terraform").contains("Terraform v1.0.3"),
        "{text}"
    );

    // (what is broken, the line that must fail, words of its fix)
    type Breaks = Box<dyn Fn(&mut Config)>;
    let cases: Vec<(Breaks, &str, &str)> = vec![
        (
            Box::new(|c| c.terraform = "/nonexistent/terraform".into()),
            "terraform",
            "TFGATE_TERRAFORM",
        ),
        (
            // A release on demand from a mirror nobody answers on.
            Box::new(|c| {
                c.terraform_release = Some(
                    tfgate::tool_release::release(tfgate::tool_release::Tool::Terraform, "1.0.3")
                        .unwrap(),
                );
                c.releases.mirror = Some("http://127.0.0.1:9".into());
            }),
            "terraform",
            "TFGATE_RELEASE_URL",
        ),
        (
            Box::new(|c| c.webhook_secrets.clear()),
            "webhook_secret",
            "TFGATE_WEBHOOK_SECRET",
        ),
        (
            Box::new(|c| (c.app_id, c.private_key_path) = (None, None)),
            "github_app",
            "manifest",
        ),
        (
            Box::new(|c| c.policy_dir = c.data_dir.join("no-policies")),
            "policies",
            "TFGATE_POLICY_DIR",
        ),
        (
            Box::new(|c| c.encryption_key = Some(TEST_SEAL_KEY.into())),
            "sealing_key",
            "original",
        ),
    ];
    for (breaks, name, fix) in cases {
        let mut config = h.state.config.clone();
        breaks(&mut config);
        let report = doctor_for_config(&config).await;
        let text = report.to_string();
        assert_eq!(report.failed(), vec![name], "{text}");
        assert!(
            line(&text, name).starts_with("FAIL") && line(&text, name).contains(fix),
            "{text}"
        );
    }
}

#[tokio::test]
async fn readyz_names_the_failed_checks_until_they_pass() {
    let h = Harness::start_with_policy(Backend::Sqlite, Some(POLICY))
        .await
        .unwrap();
    if !terraform_tools_available() {
        return;
    }
    assert_eq!(
        h.get("/readyz").await,
        (
            StatusCode::SERVICE_UNAVAILABLE,
            "not ready: start-up checks have not finished\n".into()
        )
    );
    // GitHub does not know the App yet (no `GET /app`).
    h.state.set_readiness(doctor_for_state(&h.state).await);
    assert_eq!(
        h.get("/readyz").await,
        (
            StatusCode::SERVICE_UNAVAILABLE,
            "not ready: github_app\n".into()
        )
    );
    assert_eq!(
        h.get("/healthz").await.0,
        StatusCode::OK,
        "liveness is not readiness"
    );
    serve_app_endpoints(&h).await;
    let report = doctor_for_state(&h.state).await;
    assert!(
        report
            .checks
            .iter()
            .all(|c| !matches!(c.outcome, Outcome::Fail { .. })),
        "{report}"
    );
    h.state.set_readiness(report);
    assert_eq!(h.get("/readyz").await, (StatusCode::OK, "ready\n".into()));
}

#[test]
fn the_doctor_command_on_a_fresh_machine_says_what_to_set() {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tfgate"))
        .arg("doctor")
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("TFGATE_DATA_DIR", dir.path().join("data"))
        .env("TFGATE_POLICY_DIR", dir.path().join("policies"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    for (name, words) in [
        ("database", "serve creates it"),
        ("github_app", "manifest"),
        ("webhook_secret", "TFGATE_WEBHOOK_SECRET"),
        ("policies", "TFGATE_POLICY_DIR"),
    ] {
        let l = line(&text, name);
        assert!(l.starts_with("FAIL") && l.contains(words), "{name}: {l}");
    }
    assert!(line(&text, "sealing_key").starts_with("ok"), "{text}");
    assert!(
        !dir.path().join("data/seal.key").exists(),
        "the doctor creates nothing"
    );
}
