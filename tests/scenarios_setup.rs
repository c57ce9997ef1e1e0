//! The setup pages through the real router: the GitHub App manifest flow cannot be hijacked.
//! A configured App is never replaced, setup needs the one-time link from the server log,
//! setup states are single-use and expire, and the public URL is `https://` unless loopback.

mod support;

use std::time::{Duration, Instant};

use axum::http::StatusCode;
use support::*;
use tfgate::config::{Config, ConfigArgs};
use tfgate::github::manifest::SETUP_STATE_TTL;

/// A harness with no App configured (first run).
async fn first_run() -> Harness {
    Harness::start_with(Backend::Sqlite, None, |a| {
        (a.app_id, a.private_key_path, a.webhook_secret) = (None, None, None);
    })
    .await
    .unwrap()
}

fn saved_credentials(h: &Harness) -> std::path::PathBuf {
    h.state.config.data_dir.join("github-app.json")
}

fn setup_path(h: &Harness) -> String {
    format!("/?setup_token={}", h.state.setup.token())
}

/// The form's state, from the setup page.
fn form_state(page: &str) -> String {
    page.split("?state=")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("no setup state in:\n{page}"))
        .to_string()
}

async fn accept_code(h: &Harness, code: &str) {
    let pem = std::fs::read_to_string(fixture_path("github/test-app-key.pem")).unwrap();
    h.github
        .accept_manifest_code(code, &pem, "from-manifest")
        .await;
}

/// First run: the link from the log opens the form, the callback stores the credentials
/// (0600) and tfgate uses them at once; after that the callback refuses with 409.
#[tokio::test]
async fn first_run_registers_the_app_through_the_manifest_flow() {
    use std::os::unix::fs::PermissionsExt;
    let h = first_run().await;
    let link = tfgate::http::setup_link(&h.state).expect("setup is open");
    assert!(
        link.starts_with("http://127.0.0.1:") && link.ends_with(&setup_path(&h)),
        "{link}"
    );
    let (status, page) = h.get(&setup_path(&h)).await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("Register"), "{page}");
    let state = form_state(&page);
    assert_eq!(
        h.get("/setup/callback?code=c0de&state=forged").await.0,
        StatusCode::BAD_REQUEST
    );
    accept_code(&h, "c0de").await;
    let (status, done) = h
        .get(&format!("/setup/callback?code=c0de&state={state}"))
        .await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert!(
        done.contains("https://github.com/apps/tfgate-acme/installations/new"),
        "{done}"
    );
    let mode = std::fs::metadata(saved_credentials(&h))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o600);
    assert!(std::fs::read_to_string(saved_credentials(&h))
        .unwrap()
        .contains("\"id\": 90210"));
    assert_eq!(h.state.github().unwrap().app_id, 90210);
    assert_eq!(tfgate::http::setup_link(&h.state), None);
    let (status, _) = h
        .deliver_signed_by(
            "from-manifest",
            "issue_comment",
            &pr_comment("/plan", "alice"),
            "m-1",
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
}

/// With an App configured, `/` shows its status only (no form, even with the token) and the
/// callback answers 409 without calling GitHub or writing `github-app.json`.
#[tokio::test]
async fn a_configured_app_is_never_replaced() {
    let h = Harness::start(Backend::Sqlite).await.unwrap();
    for path in ["/".to_string(), setup_path(&h)] {
        let (status, page) = h.get(&path).await;
        assert_eq!(status, StatusCode::OK);
        assert!(page.contains("is configured"), "{page}");
        assert!(
            !page.contains("manifest") && !page.contains("state="),
            "{page}"
        );
    }
    accept_code(&h, "c0de").await;
    let state = h.state.setup.issue_state(Instant::now());
    let (status, body) = h
        .get(&format!("/setup/callback?code=c0de&state={state}"))
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert!(!saved_credentials(&h).exists());
    assert_eq!(h.state.github().unwrap().app_id, 4242);
    assert_eq!(h.get("/setup/callback").await.0, StatusCode::CONFLICT);
}

/// Without the token from the server log the page says where to find it and hands out no form
/// (no state a callback would accept).
#[tokio::test]
async fn setup_needs_the_one_time_token_from_the_server_log() {
    let h = first_run().await;
    let wrong = format!("/?setup_token={}", "0".repeat(64));
    let truncated = format!("/?setup_token={}", &h.state.setup.token()[1..]);
    for path in ["/", "/?setup_token=", "/?org=acme", &wrong, &truncated] {
        let (status, page) = h.get(path).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{path}");
        assert!(
            page.contains("server log") && page.contains("setup_token="),
            "{page}"
        );
        assert!(
            !page.contains("Register") && !page.contains("state="),
            "{page}"
        );
    }
    let (status, page) = h.get(&format!("{}&org=acme", setup_path(&h))).await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("/organizations/acme/settings/apps/new?state="));
}

/// A state is good for one callback: a failed exchange uses it up too.
#[tokio::test]
async fn a_setup_state_is_single_use() {
    let h = first_run().await;
    let (_, page) = h.get(&setup_path(&h)).await;
    let state = form_state(&page);
    // GitHub does not know this code: 502, and the state is gone.
    let (status, _) = h
        .get(&format!("/setup/callback?code=unknown&state={state}"))
        .await;
    assert_eq!(status, StatusCode::BAD_GATEWAY);
    accept_code(&h, "c0de").await;
    let (status, _) = h
        .get(&format!("/setup/callback?code=c0de&state={state}"))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(!saved_credentials(&h).exists());
    assert!(h.state.github().is_none());
}

/// A state older than ten minutes is refused; one just inside the limit is accepted.
#[tokio::test]
async fn a_setup_state_expires_after_ten_minutes() {
    let h = first_run().await;
    accept_code(&h, "c0de").await;
    let issued = |age: Duration| {
        let at = Instant::now().checked_sub(age).expect("clock far enough");
        h.state.setup.issue_state(at)
    };
    assert_eq!(SETUP_STATE_TTL, Duration::from_secs(600));
    let stale = issued(SETUP_STATE_TTL + Duration::from_secs(1));
    let (status, _) = h
        .get(&format!("/setup/callback?code=c0de&state={stale}"))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(!saved_credentials(&h).exists());
    let fresh = issued(SETUP_STATE_TTL - Duration::from_secs(30));
    let (status, body) = h
        .get(&format!("/setup/callback?code=c0de&state={fresh}"))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

/// `TFGATE_PUBLIC_URL` is refused at start unless `https://` or loopback.
#[test]
fn the_public_url_must_be_https_unless_loopback() {
    let dir = tempfile::tempdir().unwrap();
    let resolve = |url: &str| {
        Config::resolve(&ConfigArgs {
            data_dir: Some(dir.path().join("data")),
            public_url: Some(url.into()),
            ..Default::default()
        })
    };
    for bad in [
        "http://tfgate.example",
        "http://10.0.0.7:3000",
        "tfgate.example",
    ] {
        let err = format!("{:#}", resolve(bad).unwrap_err());
        assert!(
            err.contains("TFGATE_PUBLIC_URL") && err.contains("https://") && err.contains(bad),
            "{err}"
        );
    }
    for ok in [
        "https://tfgate.example/",
        "http://127.0.0.1:3000",
        "http://[::1]:3000",
        "http://localhost:3000",
    ] {
        let config = resolve(ok).unwrap();
        assert_eq!(config.public_url.as_deref(), Some(ok.trim_end_matches('/')));
    }
}
