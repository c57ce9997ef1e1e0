//! The admin web UI (`/ui`): sign in with GitHub, then runs, per-resource results, locks, the
//! queue, the audit log, shared inputs and policies. Server-rendered HTML (templates in
//! `templates/ui/`), no JavaScript; every answer carries a strict CSP, every form a CSRF
//! token, every action an audit line. Who sees what is decided in [`access`].

// Helpers return `Err(Response)`: the answer to send instead, which is what a handler returns.
#![allow(clippy::result_large_err)]

/// The value of a `Result<T, Response>`, or return the answer it holds.
macro_rules! or_answer {
    ($result:expr) => {
        match $result {
            Ok(value) => value,
            Err(answer) => return answer,
        }
    };
}

mod access;
mod admin_pages;
mod charts;
pub mod oauth;
mod pages;
mod policy_pages;
mod rows;
mod session;
mod signin;
mod templates;
mod viewer;

use std::collections::BTreeSet;
use std::sync::Arc;

use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde_json::{Map, Value};

pub use access::Viewer;
use session::UiSession;

use crate::policy::PolicySet;
use crate::state::AppState;

/// Every UI path starts with this.
pub const UI: &str = "/ui";

pub fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route("/ui", get(pages::overview))
        .route("/ui/static/ui.css", get(css))
        .route("/ui/login", get(signin::login))
        .route("/ui/callback", get(signin::callback))
        .route("/ui/logout", post(signin::logout))
        .route("/ui/runs", get(pages::runs))
        .route("/ui/runs/{id}", get(pages::run))
        .route("/ui/runs/{id}/raw", post(pages::raw_log))
        .route("/ui/locks", get(admin_pages::locks))
        .route("/ui/locks/release", post(admin_pages::release_lock))
        .route("/ui/queue", get(admin_pages::queue))
        .route("/ui/queue/{id}/{action}", post(admin_pages::queue_action))
        .route("/ui/audit", get(admin_pages::audit))
        .route("/ui/audit.csv", get(admin_pages::audit_csv))
        .route("/ui/inputs", get(admin_pages::inputs))
        .route("/ui/policies", get(policy_pages::policies))
}

/// A form that carries nothing but the session's CSRF token (sign out, show raw log, cancel
/// or retry a job).
#[derive(serde::Deserialize)]
pub struct CsrfForm {
    #[serde(default)]
    csrf: String,
}

/// The headers every UI answer carries: no script may run, nothing may frame the page, no
/// answer is cached or sniffed, no referrer leaves.
fn secured(mut resp: Response) -> Response {
    let h = resp.headers_mut();
    let pairs = [
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        ),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::CACHE_CONTROL, "no-store"),
    ];
    for (name, value) in pairs {
        h.insert(name, HeaderValue::from_static(value));
    }
    resp
}

fn html(status: StatusCode, body: String) -> Response {
    secured(
        (
            status,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            body,
        )
            .into_response(),
    )
}

async fn css() -> Response {
    secured(
        (
            [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
            templates::CSS,
        )
            .into_response(),
    )
}

/// A page with a title and one sentence (errors, sign-out, "not set up").
fn message(status: StatusCode, title: &str, text: &str) -> Response {
    let ctx = minijinja::context! { title => title, text => text };
    match templates::render("message.html", ctx) {
        Ok(body) => html(status, body),
        Err(e) => {
            tracing::error!(error = %e, "ui: rendering a message failed");
            html(status, String::new())
        }
    }
}

/// Renders `page` with `ctx` (a JSON object) plus the signed-in frame's values.
fn render(page: &str, frame: &Frame, ctx: Value) -> Response {
    let mut all = match ctx {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    all.insert("login".into(), frame.session.login.clone().into());
    all.insert("csrf".into(), frame.session.csrf.clone().into());
    all.insert("is_admin".into(), frame.viewer.is_admin().into());
    all.insert(
        "page".into(),
        page.trim_end_matches(".html").to_string().into(),
    );
    all.insert("github_url".into(), frame.github_url.clone().into());
    match templates::render(page, minijinja::Value::from_serialize(&all)) {
        Ok(body) => html(StatusCode::OK, body),
        Err(e) => {
            tracing::error!(page, error = %format!("{e:#}"), "ui: rendering a page failed");
            message(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong",
                "The page could not be rendered; the server log says why.",
            )
        }
    }
}

/// A signed-in request: the session, what the person may see, the policies it was decided on.
pub struct Frame {
    session: UiSession,
    viewer: Viewer,
    policies: Arc<PolicySet>,
    github_url: String,
}

impl Frame {
    fn sees(&self, repo: Option<&str>) -> bool {
        self.viewer.sees(&self.policies, repo)
    }

    fn acts_on(&self, repo: &str) -> bool {
        self.viewer.acts_on(&self.policies, repo)
    }

    /// Refuses with 403 unless the form's CSRF token is the session's.
    fn check_csrf(&self, sent: &str) -> Result<(), Response> {
        if self.session.csrf_matches(sent) {
            Ok(())
        } else {
            Err(message(
                StatusCode::FORBIDDEN,
                "Refused",
                "The form did not carry this session's CSRF token. Reload the page and try again.",
            ))
        }
    }
}

/// The session a request carries, if any (and still valid).
fn session_of(state: &AppState, headers: &HeaderMap) -> Option<UiSession> {
    let cookie = headers.get(header::COOKIE)?.to_str().ok()?;
    let value = session::cookie_value(cookie)?;
    let key = session::cookie_key(&state.seal_key);
    session::open_session(&key, value, chrono::Utc::now().timestamp())
}

/// The session of a request, or the answer to send instead: GETs are sent to sign in (and
/// back here afterwards), other methods get 401. Every page asks this before anything else,
/// so a request without a session costs no database query.
async fn session_or_answer(
    state: &AppState,
    headers: &HeaderMap,
    uri: &Uri,
    get: bool,
) -> Result<UiSession, Response> {
    match session_of(state, headers) {
        Some(session) => Ok(session),
        None if get => {
            Err(signin::start(state, uri.path_and_query().map_or(UI, |p| p.as_str())).await)
        }
        None => Err(message(
            StatusCode::UNAUTHORIZED,
            "Signed out",
            "Your session has ended; sign in again.",
        )),
    }
}

/// The signed-in frame of `session` for a page that shows rows of `repos`.
async fn frame_of(state: &AppState, session: UiSession, repos: &BTreeSet<String>) -> Frame {
    let policies = state.policies.current();
    let viewer = viewer::viewer(state, &session, &policies, repos).await;
    Frame {
        session,
        viewer,
        policies,
        github_url: state.config.github_url.trim_end_matches('/').to_string(),
    }
}

/// [`session_or_answer`], then [`frame_of`]: for pages whose repositories are known before
/// the database is read.
async fn signed_in(
    state: &AppState,
    headers: &HeaderMap,
    uri: &Uri,
    get: bool,
    repos: &BTreeSet<String>,
) -> Result<Frame, Response> {
    let session = session_or_answer(state, headers, uri, get).await?;
    Ok(frame_of(state, session, repos).await)
}

/// Writes an action of the UI to the audit log (actor `ui:LOGIN`).
async fn record_audit(
    state: &AppState,
    frame: &Frame,
    repo: Option<&str>,
    pr: Option<i64>,
    action: &str,
    result: &str,
    detail: String,
) -> Result<(), Response> {
    let event = crate::db::audit::AuditEvent {
        actor: format!("ui:{}", frame.session.login),
        repo: repo.map(str::to_string),
        pr,
        action: action.into(),
        rule: None,
        result: result.into(),
        detail: Some(detail),
    };
    crate::db::audit::record(&state.db, &event)
        .await
        .map_err(|e| internal(&e))
}

/// A database or other internal failure: logged, and a short page.
fn internal(e: &anyhow::Error) -> Response {
    tracing::error!(error = %format!("{e:#}"), "ui: a request failed");
    message(
        StatusCode::INTERNAL_SERVER_ERROR,
        "Something went wrong",
        "The request failed; the server log says why.",
    )
}

fn forbidden(text: &str) -> Response {
    message(StatusCode::FORBIDDEN, "Not allowed", text)
}

fn not_found(text: &str) -> Response {
    message(StatusCode::NOT_FOUND, "Not found", text)
}
