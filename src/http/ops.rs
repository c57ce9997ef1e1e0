use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;

use crate::db::jobs as queue;
use crate::state::AppState;

pub async fn healthz(State(state): State<Arc<AppState>>) -> impl IntoResponse {
    if !state.intake.is_running() {
        tracing::error!("health check: the intake writer has stopped");
        return (StatusCode::SERVICE_UNAVAILABLE, "intake writer stopped\n");
    }
    match state.db.ping().await {
        Ok(()) => (StatusCode::OK, "ok\n"),
        Err(e) => {
            tracing::error!(error = %format!("{e:#}"), "health check: database unreachable");
            (StatusCode::SERVICE_UNAVAILABLE, "database unreachable\n")
        }
    }
}

/// Readiness: 503 with the failed checks' names until the doctor's checks pass
/// ([`crate::doctor`]); `/healthz` stays the liveness probe.
pub async fn readyz(State(state): State<Arc<AppState>>) -> impl IntoResponse {
    let report = state.readiness();
    let (ready, body) = crate::doctor::readiness_body(report.as_deref());
    let status = if ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (status, body)
}

pub async fn metrics(State(state): State<Arc<AppState>>) -> impl IntoResponse {
    match queue::queue_depth(&state.db).await {
        Ok(depth) => {
            state.metrics.queue_depth.set(depth);
        }
        Err(e) => tracing::warn!(error = %format!("{e:#}"), "metrics: queue depth unavailable"),
    }
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        state.metrics.render(),
    )
}
