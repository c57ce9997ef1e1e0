//! The real binary's logs: with `TFGATE_LOG_FORMAT=json` every line is one JSON object, and at
//! `debug` level neither the webhook secret, the signature, the private key nor anything from
//! a delivery's body appears in them, for good, malformed and wrongly signed deliveries.

mod support;

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Duration;

use support::{fixture_path, free_port, pr_comment, wait_healthy};

const SECRET: &str = "log-test-secret-5f2c9a";
const BODY_MARKER: &str = "marker-body-7d1e";

#[tokio::test]
async fn json_logs_hold_no_secret_signature_key_or_body() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let key = std::fs::read_to_string(fixture_path("github/test-app-key.pem")).unwrap();
    let mut server = Command::new(env!("CARGO_BIN_EXE_tfgate"))
        .arg("serve")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("RUST_LOG", "debug")
        .env("TFGATE_LOG_FORMAT", "json")
        .env("TFGATE_ADDR", format!("127.0.0.1:{port}"))
        .env("TFGATE_DATA_DIR", dir.path().join("data"))
        .env("TFGATE_POLICY_DIR", dir.path().join("policies"))
        .env("TFGATE_WEBHOOK_SECRET", SECRET)
        .env("TFGATE_APP_ID", "4242")
        .env("TFGATE_PRIVATE_KEY", &key)
        // Nothing answers here: the worker's GitHub calls fail, and are logged.
        .env("TFGATE_GITHUB_API_URL", "http://127.0.0.1:9")
        // tracing's fmt subscriber writes to stdout.
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let base = format!("http://127.0.0.1:{port}");
    let client = reqwest::Client::new();
    wait_healthy(&client, &base).await;

    let good = serde_json::to_vec(&pr_comment(&format!("/plan {BODY_MARKER}"), "alice")).unwrap();
    let signature = tfgate::webhook::signature::sign(SECRET, &good);
    let malformed = format!("{{\"comment\": \"{BODY_MARKER}").into_bytes();
    let malformed_signature = tfgate::webhook::signature::sign(SECRET, &malformed);
    let cases = [
        (good.clone(), signature.clone(), 202),
        (
            good.clone(),
            tfgate::webhook::signature::sign("wrong", &good),
            401,
        ),
        (malformed, malformed_signature, 400),
    ];
    for (i, (body, sig, want)) in cases.into_iter().enumerate() {
        let resp = client
            .post(format!("{base}/webhooks"))
            .header("x-github-event", "issue_comment")
            .header("x-github-delivery", format!("log-{i}"))
            .header("x-hub-signature-256", sig)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), want);
    }
    // Let the worker take the job and fail to reach GitHub (a logged error).
    tokio::time::sleep(Duration::from_millis(1500)).await;
    server.kill().unwrap();
    server.wait().unwrap();
    let mut logs = String::new();
    server
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut logs)
        .unwrap();

    let lines: Vec<&str> = logs.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(
        lines.len() >= 5,
        "too few log lines to mean anything:\n{logs}"
    );
    for line in &lines {
        let v: serde_json::Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("not one JSON object ({e}): {line}"));
        assert!(v["level"].is_string() && v["message"].is_string(), "{line}");
    }
    assert!(
        logs.contains("job failed") || logs.contains("GitHub"),
        "the worker's failure was not logged:\n{logs}"
    );
    let key_line = key.lines().nth(1).unwrap();
    for secret in [SECRET, &signature[7..], BODY_MARKER, key_line] {
        assert!(
            !logs.contains(secret),
            "{secret:?} leaked into the logs:\n{logs}"
        );
    }
}
