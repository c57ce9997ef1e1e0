//! The axum router: `/webhooks`, `/healthz`, `/metrics`, and the setup pages.

mod ops;
mod setup;
mod webhooks;

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{DefaultBodyLimit, MatchedPath, Request, State};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;

use crate::state::AppState;

pub fn router(state: Arc<AppState>) -> Router {
    let limit = state.config.max_body_bytes;
    Router::new()
        .route(
            "/webhooks",
            post(webhooks::receive).layer(DefaultBodyLimit::max(limit)),
        )
        .route("/healthz", get(ops::healthz))
        .route("/metrics", get(ops::metrics))
        .route("/", get(setup::index))
        .route("/setup/callback", get(setup::callback))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            record_latency,
        ))
        .with_state(state)
}

async fn record_latency(State(state): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_string())
        .unwrap_or_else(|| "unmatched".into());
    let start = Instant::now();
    let resp = next.run(req).await;
    state
        .metrics
        .observe_request(&route, start.elapsed().as_secs_f64());
    resp
}
