//! Signing in and out: GitHub's OAuth web flow with a one-use `state` kept in a short cookie,
//! then a sealed session cookie.

use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Form;
use serde::Deserialize;
use subtle::ConstantTimeEq;

use super::session::{self, UiSession};
use super::{message, oauth, secured, UI};
use crate::state::AppState;

/// The sign-in state cookie where cookies are `Secure`: the `__Host-` prefix makes the
/// browser refuse it unless it is Secure, for path `/` and without `Domain`, so a sibling
/// subdomain or a plain-HTTP page cannot plant a state of its choosing.
const STATE_COOKIE: &str = "__Host-tfgate_oauth_state";
/// On plain-HTTP loopback (development), where a browser refuses `__Host-` cookies (they
/// must be `Secure`), like the session cookie then.
const STATE_COOKIE_LOOPBACK: &str = "tfgate_oauth_state";
/// The length of a nonce ([`session::random_token`]: 32 bytes, URL-safe base64).
const NONCE_LEN: usize = 43;

fn state_cookie_name(secure: bool) -> &'static str {
    if secure {
        STATE_COOKIE
    } else {
        STATE_COOKIE_LOOPBACK
    }
}

/// The `Set-Cookie` value of the sign-in state (`max_age` 0 deletes it).
fn state_set_cookie(value: &str, max_age: i64, secure: bool) -> String {
    session::cookie(state_cookie_name(secure), value, "/", max_age, secure)
}

/// Whether GitHub's `state` is this browser's nonce: both of full length (an empty or short
/// state never matches, even an empty cookie nonce), compared in constant time.
fn state_matches(nonce: &str, sent: &str) -> bool {
    nonce.len() == NONCE_LEN
        && sent.len() == NONCE_LEN
        && bool::from(nonce.as_bytes().ct_eq(sent.as_bytes()))
}

fn callback_url(state: &AppState) -> Option<String> {
    let public = state.config.public_url.as_deref()?;
    Some(format!("{}/ui/callback", public.trim_end_matches('/')))
}

/// Only paths of the UI may be returned to after sign-in (never another site).
fn safe_return(path: &str) -> &str {
    let ok = path.starts_with("/ui")
        && !path.contains("//")
        && !path.contains('\\')
        && !path.starts_with("/ui/callback")
        && path.len() < 512;
    if ok {
        path
    } else {
        UI
    }
}

fn redirect(to: &str, cookies: &[String]) -> Response {
    let mut resp = (StatusCode::SEE_OTHER, [(header::LOCATION, to.to_string())]).into_response();
    for c in cookies {
        if let Ok(v) = HeaderValue::from_str(c) {
            resp.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    secured(resp)
}

/// Sends the browser to GitHub to sign in, to come back to `return_to`.
pub async fn start(state: &AppState, return_to: &str) -> Response {
    let client = match oauth::client(state).await {
        Ok(Some(c)) => c,
        Ok(None) => {
            return message(
                StatusCode::SERVICE_UNAVAILABLE,
                "Sign-in is not set up",
                "Set TFGATE_OAUTH_CLIENT_ID and TFGATE_OAUTH_CLIENT_SECRET (the GitHub App's client), or register the App through this server's setup page, which stores them.",
            )
        }
        Err(e) => return super::internal(&e),
    };
    let Some(callback) = callback_url(state) else {
        return message(
            StatusCode::SERVICE_UNAVAILABLE,
            "Sign-in is not set up",
            "Set TFGATE_PUBLIC_URL: GitHub sends people back to PUBLIC_URL/ui/callback.",
        );
    };
    let nonce = session::random_token();
    let url = oauth::authorize_url(&state.config.github_url, &client.id, &callback, &nonce);
    let secure = session::secure_cookies(state.config.public_url.as_deref());
    let value = format!("{nonce}.{}", urlencoding(safe_return(return_to)));
    redirect(&url, &[state_set_cookie(&value, 600, secure)])
}

fn urlencoding(path: &str) -> String {
    url::form_urlencoded::byte_serialize(path.as_bytes()).collect()
}

pub async fn login(State(state): State<Arc<AppState>>) -> Response {
    start(&state, UI).await
}

#[derive(Deserialize)]
pub struct CallbackQuery {
    #[serde(default)]
    code: String,
    #[serde(default)]
    state: String,
}

/// `(nonce, return path)` of the state cookie (named as `secure` says).
fn state_cookie(headers: &HeaderMap, secure: bool) -> Option<(String, String)> {
    let cookies = headers.get(header::COOKIE)?.to_str().ok()?;
    let name = state_cookie_name(secure);
    let value = cookies
        .split(';')
        .map(str::trim)
        .find_map(|p| p.strip_prefix(name)?.strip_prefix('='))?;
    let (nonce, path) = value.split_once('.')?;
    let path: String = url::form_urlencoded::parse(format!("p={path}").as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())?;
    Some((nonce.to_string(), path))
}

pub async fn callback(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Query(q): Query<CallbackQuery>,
) -> Response {
    let secure = session::secure_cookies(state.config.public_url.as_deref());
    let Some((nonce, return_to)) = state_cookie(&headers, secure) else {
        return message(
            StatusCode::BAD_REQUEST,
            "Sign-in failed",
            "The sign-in took too long or was started elsewhere; start again from /ui.",
        );
    };
    if q.code.is_empty() || !state_matches(&nonce, &q.state) {
        return message(
            StatusCode::BAD_REQUEST,
            "Sign-in failed",
            "GitHub's answer does not belong to this sign-in; start again from /ui.",
        );
    }
    let (Ok(Some(client)), Some(callback)) = (oauth::client(&state).await, callback_url(&state))
    else {
        return message(
            StatusCode::SERVICE_UNAVAILABLE,
            "Sign-in is not set up",
            "The OAuth client or TFGATE_PUBLIC_URL is missing.",
        );
    };
    let signed = async {
        let token = oauth::exchange_code(&state, &client, &q.code, &callback).await?;
        let login = oauth::UserApi::of(&state).user_login(&token).await?;
        anyhow::Ok((token, login))
    }
    .await;
    let (token, login) = match signed {
        Ok(pair) => pair,
        Err(e) => {
            tracing::warn!(error = %format!("{e:#}"), "ui: sign-in failed");
            return message(
                StatusCode::BAD_GATEWAY,
                "Sign-in failed",
                "GitHub did not confirm the sign-in; try again.",
            );
        }
    };
    tracing::info!(%login, "ui: signed in");
    let s = UiSession::start(&login, &token, chrono::Utc::now().timestamp());
    let key = session::cookie_key(&state.seal_key);
    redirect(
        safe_return(&return_to),
        &[
            session::set_cookie(&session::seal_session(&key, &s), secure),
            state_set_cookie("", 0, secure),
        ],
    )
}

pub async fn logout(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Form(form): Form<super::CsrfForm>,
) -> Response {
    let Some(s) = super::session_of(&state, &headers) else {
        return message(StatusCode::OK, "Signed out", "You are signed out.");
    };
    if !s.csrf_matches(&form.csrf) {
        return super::forbidden("The form did not carry this session's CSRF token.");
    }
    let secure = session::secure_cookies(state.config.public_url.as_deref());
    let mut resp = message(StatusCode::OK, "Signed out", "You are signed out.");
    if let Ok(v) = HeaderValue::from_str(&session::clear_cookie(secure)) {
        resp.headers_mut().append(header::SET_COOKIE, v);
    }
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_ui_paths_are_returned_to() {
        for (path, want) in [
            ("/ui/runs/4", "/ui/runs/4"),
            ("/ui/audit?repo=a%2Fb", "/ui/audit?repo=a%2Fb"),
            ("https://evil.example/ui", "/ui"),
            ("//evil.example/ui", "/ui"),
            ("/ui//evil.example", "/ui"),
            ("/ui/callback?code=x", "/ui"),
            ("/uiother", "/uiother"),
            ("/\\evil", "/ui"),
        ] {
            assert_eq!(safe_return(path), want, "{path}");
        }
    }

    #[test]
    fn the_state_cookie_round_trips_its_path() {
        let value = format!("abc.{}", urlencoding("/ui/audit?repo=a/b&user=x"));
        let mut headers = HeaderMap::new();
        headers.insert(
            header::COOKIE,
            HeaderValue::from_str(&format!("x=1; {STATE_COOKIE}={value}")).unwrap(),
        );
        assert_eq!(
            state_cookie(&headers, true),
            Some(("abc".into(), "/ui/audit?repo=a/b&user=x".into()))
        );
        // Without the prefix it is not the state cookie of a Secure server.
        assert_eq!(state_cookie(&headers, false), None);
        let plain = format!("{STATE_COOKIE_LOOPBACK}={value}");
        headers.insert(header::COOKIE, HeaderValue::from_str(&plain).unwrap());
        assert_eq!(state_cookie(&headers, true), None);
        assert!(state_cookie(&headers, false).is_some());
    }

    #[test]
    fn the_state_cookie_is_host_prefixed_where_cookies_are_secure() {
        assert_eq!(
            state_set_cookie("n.p", 600, true),
            "__Host-tfgate_oauth_state=n.p; Path=/; Max-Age=600; HttpOnly; SameSite=Lax; Secure"
        );
        let loopback = state_set_cookie("n.p", 600, false);
        assert!(
            loopback.starts_with("tfgate_oauth_state=n.p; Path=/;"),
            "{loopback}"
        );
        assert!(!loopback.contains("Secure") && !loopback.contains("Domain"));
    }

    #[test]
    fn only_a_full_length_nonce_matches() {
        let nonce = session::random_token();
        assert_eq!(nonce.len(), NONCE_LEN);
        assert!(state_matches(&nonce, &nonce.clone()));
        let other = session::random_token();
        for (cookie, sent) in [
            ("", ""),
            ("abc", "abc"),
            (&nonce[..42], &nonce[..42]),
            (nonce.as_str(), other.as_str()),
            (nonce.as_str(), &nonce[..42]),
            (nonce.as_str(), ""),
        ] {
            assert!(!state_matches(cookie, sent), "{cookie:?} {sent:?}");
        }
        let long = format!("{nonce}x");
        assert!(!state_matches(&long, &long));
    }
}
