//! Benchmark reference, not part of tfgate: `POST /webhooks` of `tfgate serve` without its
//! durable write. It verifies the signature and routes the delivery with tfgate's own functions
//! (`webhook::signature::verify`, `webhook::event::route`) on the same axum, tokio and allocator,
//! then answers 202 and stores nothing. It acknowledges deliveries it then loses: never deploy it.
//!
//! `BENCH_CEILING=1 bash bench/webhooks/run.sh` measures it in every round beside the peer and
//! tfgate, so the share of the ratio that the durable, deduplicated write costs is measured in
//! the same minutes instead of argued. Directly: `TFGATE_ADDR=127.0.0.1:25602
//! TFGATE_WEBHOOK_SECRET=… cargo run --profile dist --example bench_intake_ceiling`.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use axum::Router;
use secrecy::SecretString;
use tfgate::config;
use tfgate::webhook::{event, signature};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

type Secrets = Arc<[SecretString]>;

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

async fn receive(
    State(secrets): State<Secrets>,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, &'static str) {
    if signature::verify(&secrets, header(&headers, "x-hub-signature-256"), &body).is_err() {
        return (StatusCode::UNAUTHORIZED, "bad signature");
    }
    let event_name = header(&headers, "x-github-event").unwrap_or("");
    match event::route(event_name, &body) {
        // The jobs are built (and their payloads serialised) as tfgate builds them, then dropped.
        Ok(routed) if !routed.jobs.is_empty() => (StatusCode::ACCEPTED, "routed, not stored"),
        Ok(_) => (StatusCode::ACCEPTED, "ignored"),
        Err(_) => (StatusCode::BAD_REQUEST, "malformed"),
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let addr = std::env::var("TFGATE_ADDR").unwrap_or_else(|_| "127.0.0.1:25602".into());
    let secrets: Secrets = std::env::var("TFGATE_WEBHOOK_SECRET")
        .map(|list| config::split_secrets(&list))
        .map_err(|_| anyhow::anyhow!("TFGATE_WEBHOOK_SECRET is required"))?
        .into();
    let app = Router::new()
        .route("/webhooks", post(receive))
        .with_state(secrets);
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    eprintln!("bench_intake_ceiling listening on {addr} (stores nothing: a benchmark reference)");
    axum::serve(listener, app).await?;
    Ok(())
}
