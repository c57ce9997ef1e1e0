//! The web UI signed out. It checks the session before it reads anything (issue 38 item 7):
//! a request without a session is answered with the sign-in redirect (GET) or 401 (POST) and
//! costs no database query (the pool is closed before the requests, so any query would fail
//! the page with a 500). The sign-in state (item 10) is a `__Host-` cookie wherever cookies
//! are Secure, and GitHub's `state` must be the full nonce.

mod support;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use support::*;
use tower::ServiceExt;

const PAGES: [&str; 9] = [
    "/ui",
    "/ui/runs?repo=a/b",
    "/ui/runs/1",
    "/ui/locks",
    "/ui/queue",
    "/ui/audit",
    "/ui/audit.csv",
    "/ui/inputs",
    "/ui/policies",
];

const FORMS: [(&str, &str); 3] = [
    ("/ui/runs/1/raw", "csrf=x"),
    ("/ui/queue/1/cancel", "csrf=x"),
    ("/ui/locks/release", "csrf=x&id=a/b/app/default"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signed_out_requests_are_answered_without_the_database() {
    for backend in [Backend::Sqlite, Backend::Postgres] {
        let Some(h) = Harness::start_with(backend, None, |a| {
            a.public_url = Some("https://tfgate.example".into());
            a.oauth_client_id = Some("Iv1.client".into());
            a.oauth_client_secret = Some("client-secret".into());
        })
        .await
        else {
            continue;
        };
        h.state.db.pool.close().await;
        let router = tfgate::http::router(h.state.clone());
        for page in PAGES {
            let req = Request::get(page).body(Body::empty()).unwrap();
            let resp = router.clone().oneshot(req).await.unwrap();
            assert_eq!(resp.status(), StatusCode::SEE_OTHER, "{backend:?} {page}");
            let to = resp.headers()[header::LOCATION].to_str().unwrap();
            assert!(to.contains("/login/oauth/authorize?"), "{page}: {to}");
        }
        for (path, form) in FORMS {
            let req = Request::post(path)
                .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                .body(Body::from(form))
                .unwrap();
            let resp = router.clone().oneshot(req).await.unwrap();
            assert_eq!(
                resp.status(),
                StatusCode::UNAUTHORIZED,
                "{backend:?} {path}"
            );
        }
    }
}

async fn harness(public_url: &str) -> Harness {
    let public = public_url.to_string();
    Harness::start_with(Backend::Sqlite, None, move |a| {
        a.public_url = Some(public);
        // The OAuth endpoints are the fake's (none is mounted: a code exchange fails).
        a.github_url = a.github_api_url.clone();
        a.oauth_client_id = Some("Iv1.client".into());
        a.oauth_client_secret = Some("client-secret".into());
    })
    .await
    .unwrap()
}

async fn callback(h: &Harness, cookie: &str, state: &str) -> (StatusCode, String) {
    let req = Request::get(format!("/ui/callback?code=c0de&state={state}"))
        .header(header::COOKIE, cookie)
        .body(Body::empty())
        .unwrap();
    let resp = tfgate::http::router(h.state.clone())
        .oneshot(req)
        .await
        .unwrap();
    let status = resp.status();
    let body = axum::body::to_bytes(resp.into_body(), usize::MAX)
        .await
        .unwrap();
    (status, String::from_utf8_lossy(&body).into_owned())
}

#[tokio::test]
async fn the_sign_in_state_is_a_host_cookie_where_cookies_are_secure() {
    let h = harness("https://tfgate.example").await;
    let resp = tfgate::http::router(h.state.clone())
        .oneshot(Request::get("/ui/runs").body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::SEE_OTHER);
    let set = resp.headers()[header::SET_COOKIE].to_str().unwrap();
    assert!(set.starts_with("__Host-tfgate_oauth_state="), "{set}");
    assert!(
        set.contains("; Path=/;") && set.ends_with("; Secure"),
        "{set}"
    );
    assert!(!set.contains("Domain"), "{set}");

    // The same nonce in a cookie without the prefix (one a sibling subdomain could have set)
    // is not the sign-in state.
    let nonce = "n".repeat(43);
    let (status, body) = callback(&h, &format!("tfgate_oauth_state={nonce}.%2Fui"), &nonce).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body.contains("started elsewhere"), "{body}");
}

#[tokio::test]
async fn an_empty_or_short_state_never_matches() {
    // Plain-HTTP loopback: the cookie keeps its plain name (a browser refuses `__Host-`
    // cookies that are not Secure), as the session cookie does.
    let h = harness("http://127.0.0.1:9").await;
    for (nonce, state) in [
        ("", ""),
        ("abc", "abc"),
        (&"n".repeat(42)[..], &"n".repeat(42)[..]),
    ] {
        let cookie = format!("tfgate_oauth_state={nonce}.%2Fui");
        let (status, body) = callback(&h, &cookie, state).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{nonce:?}: {body}");
        assert!(body.contains("does not belong to this sign-in"), "{body}");
    }
}
