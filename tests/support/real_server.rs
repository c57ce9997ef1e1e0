//! Talking to a real `tfgate serve` a test started: a free port, signed deliveries over HTTP,
//! waiting for it to be healthy.

use serde_json::Value;

use super::SECRET;

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
