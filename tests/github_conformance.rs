//! Every GitHub request tfgate makes, sent once to Prism serving GitHub's official OpenAPI
//! description (npm `@octokit/openapi`). Prism answers 422 to a request that breaks the spec
//! (wrong path, method, parameter or body), which fails the call and so the test; and every
//! request goes through a recording proxy that keeps each request-side violation Prism names
//! in its `sl-violations` header (also those it lets pass with a 2xx), so the test fails on
//! any of them.

mod support;

use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::Request;
use axum::response::Response;
use secrecy::SecretString;
use tfgate::checkout::{tarball_request, tarball_url};
use tfgate::github::{api, facts, lists, manifest, GitHubApp};
use tfgate::model::view::{AnnotationLevel, AnnotationView};
use tfgate::model::RepoRef;

fn prism_url() -> Option<String> {
    match std::env::var("TFGATE_TEST_PRISM_URL") {
        Ok(u) if !u.is_empty() => Some(u.trim_end_matches('/').to_string()),
        _ => {
            if std::env::var("TFGATE_REQUIRE_PRISM").as_deref() == Ok("1") {
                panic!("TFGATE_TEST_PRISM_URL is not set but TFGATE_REQUIRE_PRISM=1");
            }
            eprintln!("note: TFGATE_TEST_PRISM_URL unset; conformance test skipped");
            None
        }
    }
}

/// A pass-through proxy in front of Prism that records what Prism says about each request.
struct Recorder {
    url: String,
    /// `METHOD PATH: violation` for every request-side violation Prism reported.
    violations: Arc<Mutex<Vec<String>>>,
    /// `METHOD PATH` of every request that went through.
    seen: Arc<Mutex<Vec<String>>>,
}

async fn recording_proxy(prism: String) -> Recorder {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let violations = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let (v, s) = (violations.clone(), seen.clone());
    let app = axum::Router::new().fallback(move |req: Request| {
        let (client, prism, v, s) = (client.clone(), prism.clone(), v.clone(), s.clone());
        async move {
            let (parts, body) = req.into_parts();
            let body = axum::body::to_bytes(body, usize::MAX).await.unwrap();
            let target = parts
                .uri
                .path_and_query()
                .map(|p| p.as_str())
                .unwrap_or("/");
            let what = format!("{} {}", parts.method, parts.uri.path());
            s.lock().unwrap().push(what.clone());
            let mut headers = parts.headers.clone();
            headers.remove(http::header::HOST);
            let resp = client
                .request(parts.method, format!("{prism}{target}"))
                .headers(headers)
                .body(body)
                .send()
                .await
                .unwrap();
            let status = resp.status();
            let mut headers = resp.headers().clone();
            if let Some(header) = headers.get("sl-violations") {
                let list: Vec<serde_json::Value> =
                    serde_json::from_slice(header.as_bytes()).unwrap();
                for violation in list {
                    if violation["location"][0] == "request" {
                        v.lock().unwrap().push(format!("{what}: {violation}"));
                    }
                }
            }
            let bytes = resp.bytes().await.unwrap();
            headers.remove(http::header::TRANSFER_ENCODING);
            headers.remove(http::header::CONTENT_LENGTH);
            let mut out = Response::new(Body::from(bytes));
            *out.status_mut() = status;
            *out.headers_mut() = headers;
            out
        }
    });
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    Recorder {
        url,
        violations,
        seen,
    }
}

fn app(url: &str) -> GitHubApp {
    let pem = std::fs::read_to_string(support::fixture_path("github/test-app-key.pem")).unwrap();
    GitHubApp::new(4242, "tfgate".into(), &SecretString::from(pem), url).unwrap()
}

fn repo() -> RepoRef {
    RepoRef {
        installation_id: 1,
        owner: "octo-org".into(),
        name: "infra".into(),
    }
}

#[tokio::test]
async fn every_github_call_conforms_to_the_official_spec() {
    let Some(prism) = prism_url() else { return };
    let recorder = recording_proxy(prism).await;
    let url = recorder.url.clone();
    let app = app(&url);
    // The installation token request (JWT-authenticated) happens on the first call.
    let gh = app.installation(1).unwrap();
    let r = repo();
    let created = api::create_comment(&gh, &r, 7, "hello from tfgate")
        .await
        .expect("create comment");
    assert!(created.id > 0);
    api::update_comment(&gh, &r, created.id, "updated")
        .await
        .expect("update comment");
    api::react_to_comment(&gh, &r, created.id, "eyes")
        .await
        .expect("reaction");
    let pr = api::get_pull_request(&gh, &r, 7)
        .await
        .expect("get pull request");
    assert_eq!(pr.head.sha.len(), 40);
    let perm = api::collaborator_permission(&gh, &r, "alice")
        .await
        .expect("permission");
    assert!(!perm.permission.is_empty());
    let layout = api::file_at(&gh, &r, "tfgate.yaml", "release/2026")
        .await
        .expect("repository contents");
    assert_eq!(layout.expect("a file").encoding, "base64");
    let annotations: Vec<AnnotationView> = (1..=120)
        .map(|line| AnnotationView {
            path: "infra/eks/main.tf".into(),
            start_line: line,
            end_line: line + 2,
            level: AnnotationLevel::Failure,
            title: "aws_iam_role.node".into(),
            message: "AccessDenied (permission missing)".into(),
        })
        .collect();
    api::create_check_run(
        &gh,
        &r,
        &api::CheckRunRequest {
            name: "tfgate plan: eks",
            head_sha: &"a".repeat(40),
            external_id: Some("tfgate:job-7:eks"),
            conclusion: "failure",
            title: "1 to add",
            summary: "summary",
            text: "details",
            // 120: created with 50, then two PATCHes (50 and 20) that complete it.
            annotations: &annotations,
        },
    )
    .await
    .expect("check run");
    api::list_comments(&gh, &r, 7).await.expect("list comments");
    api::team_member(&gh, "octo-org", "platform", "alice")
        .await
        .expect("team membership");
    // The web UI's calls with a signed-in person's token.
    let user_api = tfgate::ui::oauth::UserApi::new(&url, std::time::Duration::from_secs(30));
    assert!(!user_api
        .user_login("gho_person")
        .await
        .expect("GET /user")
        .is_empty());
    user_api
        .can_read("gho_person", "octo-org/infra")
        .await
        .expect("GET /repos/{owner}/{repo}");
    user_api
        .team_member("gho_person", "octo-org", "platform", "alice")
        .await
        .expect("team membership with a person's token");
    // Reviews (and each reviewer's permission), commits, changed files, check runs of the
    // head and the base/head comparison, each list paged.
    facts::pr_facts(&gh, &r, 7).await.expect("PR facts");
    lists::behind_by(&gh, &r, "release/2026", &"a".repeat(40))
        .await
        .expect("compare a branch with a commit");
    api::default_branch(&gh, &r).await.expect("repository");
    // The tarball request, as the checkout sends it; GitHub (and Prism) answer 302.
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let tarball = tarball_url(&url, "octo-org", "infra", &"a".repeat(40)).unwrap();
    let token = app.installation_token(1).await.unwrap();
    let resp = tarball_request(&client, tarball, &token)
        .unwrap()
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 302, "tarball request refused by the spec");
    manifest::exchange_code(&url, "abc123")
        .await
        .expect("manifest conversion");
    let violations = recorder.violations.lock().unwrap().clone();
    assert!(violations.is_empty(), "{violations:#?}");
    // Every call above went through the proxy (the token request included).
    let seen = recorder.seen.lock().unwrap().clone();
    for expected in [
        "POST /app/installations/1/access_tokens",
        "POST /repos/octo-org/infra/issues/7/comments",
        "POST /app-manifests/abc123/conversions",
        "GET /repos/octo-org/infra/pulls/7/reviews",
        "GET /repos/octo-org/infra/pulls/7/commits",
        "GET /repos/octo-org/infra/pulls/7/files",
        "GET /repos/octo-org/infra/compare/release%2F2026...aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "GET /repos/octo-org/infra",
    ] {
        assert!(
            seen.iter().any(|s| s == expected),
            "{expected} not in {seen:#?}"
        );
    }
    assert!(seen.len() >= 16, "{seen:#?}");
    let patches = seen
        .iter()
        .filter(|s| s.starts_with("PATCH /repos/octo-org/infra/check-runs/"))
        .count();
    assert_eq!(
        patches, 2,
        "120 annotations: one create and two updates: {seen:#?}"
    );
}

#[tokio::test]
async fn the_check_can_fail_a_request_outside_the_spec() {
    let Some(prism) = prism_url() else { return };
    let recorder = recording_proxy(prism).await;
    let app = app(&recorder.url);
    let gh = app.installation(1).unwrap();
    let err = api::react_to_comment(&gh, &repo(), 1, "banana").await;
    assert!(
        err.is_err(),
        "Prism must reject a reaction the spec does not allow"
    );
    // And the proxy recorded why, which is what fails the conformance test on a violation
    // that Prism lets pass.
    let violations = recorder.violations.lock().unwrap().clone();
    assert!(
        violations
            .iter()
            .any(|v| v.contains("reactions") && v.contains("\"enum\"")),
        "{violations:#?}"
    );
}
