//! `/` (setup page or status) and `/setup/callback` (manifest code exchange). Once an App is
//! configured both only report it; before, the setup form is shown only to whoever opens the
//! one-time link from the server log, and each form's state is good for one callback.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use std::time::Instant;

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
    let token = q.get(SETUP_TOKEN_PARAM).map(String::as_str).unwrap_or("");
    if !state.setup.token_matches(token) {
        return (StatusCode::FORBIDDEN, Html(token_needed_page())).into_response();
    }
    let org = q.get("org").map(String::as_str).filter(|o| {
        !o.is_empty() && o.len() <= 39 && o.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    });
    let setup_state = state.setup.issue_state(Instant::now());
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
    if state.github().is_some() {
        return already_configured();
    }
    let (Some(code), Some(setup_state)) = (q.get("code"), q.get("state")) else {
        return (StatusCode::BAD_REQUEST, "missing code or state").into_response();
    };
    if !state.setup.take_state(setup_state, Instant::now()) {
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
    // Another callback may have finished while GitHub answered.
    if state.github().is_some() {
        return already_configured();
    }
    if let Err(e) = creds.save(&state.config.data_dir) {
        tracing::error!(error = %format!("{e:#}"), "could not save App credentials");
        return (
            StatusCode::INTERNAL_SERVER_ERROR,
            "could not save the App credentials",
        )
            .into_response();
    }
    if let Err(e) = crate::github::credentials_store::save(&state.db, &state.seal_key, &creds).await
    {
        tracing::error!(error = %format!("{e:#}"), "could not store App credentials in the database");
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

/// The query parameter of the one-time setup link.
const SETUP_TOKEN_PARAM: &str = "setup_token";

fn already_configured() -> Response {
    (
        StatusCode::CONFLICT,
        "a GitHub App is already configured; nothing was changed",
    )
        .into_response()
}

/// Shown instead of the setup form without the right token: where to find the link.
fn token_needed_page() -> String {
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>tfgate setup</title></head><body>\
<h1>tfgate is running, but no GitHub App is configured</h1>\
<p>Setting it up needs the one-time link tfgate printed in its server log when it started: \
look for the line <code>open http://…/?{SETUP_TOKEN_PARAM}=…</code> and open that address. \
Restarting tfgate prints a new one.</p></body></html>"
    )
}

/// The one-time setup link to print at start, while no App is configured: the public URL, or
/// the listening address (`0.0.0.0` / `::` shown as `127.0.0.1`).
pub fn setup_link(state: &AppState) -> Option<String> {
    if state.github().is_some() {
        return None;
    }
    let base = state.config.public_url.clone().unwrap_or_else(|| {
        let mut addr = state.config.addr;
        if addr.ip().is_unspecified() {
            addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
        }
        format!("http://{addr}")
    });
    Some(format!(
        "{base}/?{SETUP_TOKEN_PARAM}={}",
        state.setup.token()
    ))
}

/// Logs the one-time setup link (see [`setup_link`]), if setup is open.
pub fn log_setup_link(state: &AppState) {
    if let Some(link) = setup_link(state) {
        tracing::warn!("no GitHub App is configured; to register one, open {link}");
    }
}
