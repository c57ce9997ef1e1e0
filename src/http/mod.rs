//! The axum routers: the public one (`/webhooks`, `/healthz`, `/readyz`, the setup pages and
//! the web UI) and the metrics one (`/metrics`, on its own listen address: its labels name
//! repositories and projects).

mod ops;
mod setup;
mod webhooks;

pub use setup::{log_setup_link, setup_link};

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{DefaultBodyLimit, MatchedPath, Request, State};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use tower_http::catch_panic::CatchPanicLayer;

use crate::state::AppState;

const WEBHOOKS: &str = "/webhooks";
const HEALTHZ: &str = "/healthz";
const READYZ: &str = "/readyz";
const METRICS: &str = "/metrics";
const SETUP: &str = "/";
const SETUP_CALLBACK: &str = "/setup/callback";
/// Every route, so that the latency metric's `route` label is one of these (or `unmatched`;
/// the web UI's pages are all `/ui`).
const ROUTES: [&str; 5] = [WEBHOOKS, HEALTHZ, READYZ, SETUP, SETUP_CALLBACK];

/// `/metrics` alone, for the `--metrics-addr` listener (loopback by default).
pub fn metrics_router(state: Arc<AppState>) -> Router {
    Router::new()
        .route(METRICS, get(ops::metrics))
        .with_state(state)
}

pub fn router(state: Arc<AppState>) -> Router {
    let limit = state.config.max_body_bytes;
    Router::new()
        .route(
            WEBHOOKS,
            post(webhooks::receive).layer(DefaultBodyLimit::max(limit)),
        )
        .route(HEALTHZ, get(ops::healthz))
        .route(READYZ, get(ops::readyz))
        .route(SETUP, get(setup::index))
        .route(SETUP_CALLBACK, get(setup::callback))
        .merge(crate::ui::routes())
        .layer(CatchPanicLayer::custom(answer_panic))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            record_latency,
        ))
        .with_state(state)
}

/// A handler that panicked (a bug) answers 500 instead of dropping the connection; the server
/// keeps serving. The panic's message stays out of the answer (it may quote request data).
fn answer_panic(_panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
    tracing::error!("a request handler panicked; answered 500");
    let mut resp = Response::new(axum::body::Body::from(
        r#"{"outcome":"internal_error","detail":"internal error; see the server log"}"#,
    ));
    *resp.status_mut() = axum::http::StatusCode::INTERNAL_SERVER_ERROR;
    resp.headers_mut().insert(
        axum::http::header::CONTENT_TYPE,
        axum::http::HeaderValue::from_static("application/json"),
    );
    resp
}

async fn record_latency(State(state): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let route = route_label(req.extensions().get::<MatchedPath>());
    let start = Instant::now();
    let resp = next.run(req).await;
    state
        .metrics
        .observe_request(route, start.elapsed().as_secs_f64());
    resp
}

fn route_label(matched: Option<&MatchedPath>) -> &'static str {
    if matched.is_some_and(|m| m.as_str().starts_with(crate::ui::UI)) {
        return crate::ui::UI;
    }
    matched
        .and_then(|m| ROUTES.iter().find(|r| **r == m.as_str()))
        .copied()
        .unwrap_or("unmatched")
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use tower::ServiceExt;

    use super::*;

    #[tokio::test]
    async fn every_route_is_its_own_latency_label() {
        let app = ROUTES.iter().fold(Router::new(), |app, route| {
            app.route(
                route,
                get(|req: Request| async move { route_label(req.extensions().get()) }),
            )
        });
        for route in ROUTES {
            let resp = app
                .clone()
                .oneshot(Request::get(route).body(Body::empty()).unwrap())
                .await
                .unwrap();
            let body = axum::body::to_bytes(resp.into_body(), 1024).await.unwrap();
            assert_eq!(body, route.as_bytes());
        }
        assert_eq!(route_label(None), "unmatched");
    }

    #[tokio::test]
    async fn a_panicking_handler_answers_500_without_its_message_and_the_router_keeps_serving() {
        let app = Router::new()
            .route(
                "/boom",
                get(|| async { panic!("secret-ish request data") as &'static str }),
            )
            .route("/fine", get(|| async { "ok" }))
            .layer(CatchPanicLayer::custom(answer_panic));
        let resp = app
            .clone()
            .oneshot(Request::get("/boom").body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(resp.status(), axum::http::StatusCode::INTERNAL_SERVER_ERROR);
        let body = axum::body::to_bytes(resp.into_body(), 1024).await.unwrap();
        let body = String::from_utf8_lossy(&body);
        assert!(
            body.contains("internal_error") && !body.contains("secret-ish"),
            "{body}"
        );
        let resp = app
            .oneshot(Request::get("/fine").body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(resp.status(), axum::http::StatusCode::OK);
    }
}
