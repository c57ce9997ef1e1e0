//! `/` (setup page or status) and `/setup/callback` (manifest code exchange).

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};

use crate::github::manifest;
use crate::state::AppState;

fn public_url(state: &AppState, headers: &HeaderMap) -> String {
    if let Some(u) = &state.config.public_url {
        return u.clone();
    }
    let host = headers
        .get("host")
        .and_then(|h| h.to_str().ok())
        .filter(|h| {
            h.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b))
        })
        .unwrap_or("localhost");
    format!("http://{host}")
}

pub async fn index(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    if let Some(app) = state.github() {
        return Html(manifest::installed_page(&app.slug, None)).into_response();
    }
    let org = q.get("org").map(String::as_str).filter(|o| {
        !o.is_empty() && o.len() <= 39 && o.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    });
    let setup_state = state.new_setup_state();
    Html(manifest::setup_page(
        &state.config.github_url,
        &public_url(&state, &headers),
        &setup_state,
        org,
    ))
    .into_response()
}

pub async fn callback(
    State(state): State<Arc<AppState>>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let (Some(code), Some(setup_state)) = (q.get("code"), q.get("state")) else {
        return (StatusCode::BAD_REQUEST, "missing code or state").into_response();
    };
    if !state.take_setup_state(setup_state) {
        return (
            StatusCode::BAD_REQUEST,
            "unknown or expired setup state; start again from /",
        )
            .into_response();
    }
    let creds = match manifest::exchange_code(&state.config.github_api_url, code).await {
        Ok(c) => c,
        Err(e) => {
            tracing::error!(error = %format!("{e:#}"), "manifest conversion failed");
            return (
                StatusCode::BAD_GATEWAY,
                "GitHub did not accept the manifest code; start again from /",
            )
                .into_response();
        }
    };
    if let Err(e) = creds.save(&state.config.data_dir) {
        tracing::error!(error = %format!("{e:#}"), "could not save App credentials");
        return (
            StatusCode::INTERNAL_SERVER_ERROR,
            "could not save the App credentials",
        )
            .into_response();
    }
    if let Err(e) = state.install_app(&creds) {
        tracing::error!(error = %format!("{e:#}"), "could not load new App credentials");
        return (
            StatusCode::INTERNAL_SERVER_ERROR,
            "the App credentials could not be loaded",
        )
            .into_response();
    }
    tracing::info!(app_id = creds.id, slug = %creds.slug, "GitHub App registered through the manifest flow");
    Html(manifest::installed_page(
        &creds.slug,
        creds.html_url.as_deref(),
    ))
    .into_response()
}
