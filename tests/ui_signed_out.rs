//! The web UI checks the session before it reads anything (issue 38 item 7): a request
//! without a session is answered with the sign-in redirect (GET) or 401 (POST) and costs no
//! database query. The database pool is closed before the requests, so any query would fail
//! the page with a 500.

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
