//! `fetch_tarball` against wiremock servers: the happy path, redirects to another origin,
//! HTTP and network failures, and hostile archives over the wire.

use std::error::Error;
use std::fs;

use reqwest::redirect::Policy;
use secrecy::SecretString;
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use super::tarball::{under_top, Tarball, SHA};
use crate::checkout::{fetch_tarball, CheckoutError, ExtractError, ExtractLimits};

const TOKEN: &str = "ghs_TESTinstallationTOKEN0123456789";
const CODELOAD_TOKEN: &str = "CODELOADsecret42";

fn token() -> SecretString {
    SecretString::from(TOKEN)
}

fn api_path() -> String {
    format!("/repos/octo/infra/tarball/{SHA}")
}

fn repo_tarball() -> Vec<u8> {
    Tarball::github()
        .file(&under_top("main.tf"), b"terraform {}\n")
        .file(&under_top("modules/net/main.tf"), b"variable \"cidr\" {}\n")
        .gzip()
}

/// Display of the error and all its sources, plus its Debug form.
fn every_rendering(err: &CheckoutError) -> String {
    let mut text = format!("{err}\n{err:?}");
    let mut source = err.source();
    while let Some(inner) = source {
        text.push_str(&format!("\n{inner}\n{inner:?}"));
        source = inner.source();
    }
    text
}

fn assert_no_secrets(err: &CheckoutError) {
    let text = every_rendering(err);
    assert!(!text.contains(TOKEN), "token leaked: {text}");
    assert!(
        !text.contains(CODELOAD_TOKEN),
        "codeload token leaked: {text}"
    );
}

async fn fetch(
    client: &reqwest::Client,
    api: &str,
    dest: &std::path::Path,
) -> Result<crate::checkout::CheckoutInfo, CheckoutError> {
    fetch_tarball(
        client,
        api,
        "octo",
        "infra",
        SHA,
        &token(),
        dest,
        ExtractLimits::default(),
    )
    .await
}

fn closed_port_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("http://127.0.0.1:{port}")
}

#[tokio::test]
async fn downloads_with_bearer_header_and_extracts() {
    let api = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path(api_path()))
        .and(header("authorization", format!("Bearer {TOKEN}").as_str()))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(repo_tarball()))
        .expect(1)
        .mount(&api)
        .await;
    let outer = tempfile::tempdir().unwrap();
    let dest = outer.path().join("repo");

    let info = fetch(&reqwest::Client::new(), &api.uri(), &dest)
        .await
        .unwrap();

    assert_eq!((info.files, info.root.clone()), (2, dest.clone()));
    assert_eq!(
        fs::read_to_string(dest.join("modules/net/main.tf")).unwrap(),
        "variable \"cidr\" {}\n"
    );
    let requests = api.received_requests().await.unwrap();
    assert!(!requests[0].url.as_str().contains(TOKEN));
}

/// API server answering 302 to a "codeload" server on another port.
async fn api_redirecting_to_codeload() -> (MockServer, MockServer) {
    let api = MockServer::start().await;
    let codeload = MockServer::start().await;
    let location = format!(
        "{}/octo/infra/legacy.tar.gz/{SHA}?token={CODELOAD_TOKEN}",
        codeload.uri()
    );
    Mock::given(method("GET"))
        .and(path(api_path()))
        .respond_with(ResponseTemplate::new(302).insert_header("Location", location.as_str()))
        .expect(1)
        .mount(&api)
        .await;
    Mock::given(method("GET"))
        .and(path(format!("/octo/infra/legacy.tar.gz/{SHA}")))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(repo_tarball()))
        .expect(1)
        .mount(&codeload)
        .await;
    (api, codeload)
}

async fn assert_redirect_drops_authorization(client: reqwest::Client) {
    let (api, codeload) = api_redirecting_to_codeload().await;
    assert_ne!(api.address().port(), codeload.address().port());
    let outer = tempfile::tempdir().unwrap();

    let info = fetch(&client, &api.uri(), &outer.path().join("repo"))
        .await
        .unwrap();
    assert_eq!(info.files, 2);

    let first = &api.received_requests().await.unwrap()[0];
    assert_eq!(
        first.headers.get("authorization").unwrap(),
        format!("Bearer {TOKEN}").as_str()
    );
    let second = &codeload.received_requests().await.unwrap()[0];
    assert!(second.headers.get("authorization").is_none());
    let all_headers = format!("{:?}", second.headers);
    assert!(!all_headers.contains(TOKEN), "{all_headers}");
}

#[tokio::test]
async fn reqwest_default_policy_drops_authorization_on_port_change() {
    assert_redirect_drops_authorization(reqwest::Client::new()).await;
}

#[tokio::test]
async fn manual_redirects_never_send_authorization() {
    let client = reqwest::Client::builder()
        .redirect(Policy::none())
        .build()
        .unwrap();
    assert_redirect_drops_authorization(client).await;
}

#[tokio::test]
async fn redirect_loop_stops() {
    let api = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(302).insert_header("Location", api_path().as_str()))
        .mount(&api)
        .await;
    let client = reqwest::Client::builder()
        .redirect(Policy::none())
        .build()
        .unwrap();
    let outer = tempfile::tempdir().unwrap();
    let err = fetch(&client, &api.uri(), &outer.path().join("repo"))
        .await
        .unwrap_err();
    assert!(matches!(err, CheckoutError::TooManyRedirects), "{err:?}");
    assert_eq!(api.received_requests().await.unwrap().len(), 6);
}

#[tokio::test]
async fn http_errors_name_the_status_and_never_the_token() {
    for status in [401u16, 403, 404, 500] {
        let api = MockServer::start().await;
        Mock::given(method("GET"))
            .respond_with(
                ResponseTemplate::new(status).set_body_string(format!("{{\"echo\":\"{TOKEN}\"}}")),
            )
            .mount(&api)
            .await;
        let outer = tempfile::tempdir().unwrap();
        let dest = outer.path().join("repo");
        let err = fetch(&reqwest::Client::new(), &api.uri(), &dest)
            .await
            .unwrap_err();
        assert!(
            matches!(err, CheckoutError::HttpStatus { status: s } if s == status),
            "{err:?}"
        );
        assert!(err.to_string().contains(&status.to_string()));
        assert_no_secrets(&err);
        assert!(!dest.exists());
    }
}

#[tokio::test]
async fn network_error_never_contains_the_token() {
    let outer = tempfile::tempdir().unwrap();
    let err = fetch(
        &reqwest::Client::new(),
        &closed_port_url(),
        &outer.path().join("repo"),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, CheckoutError::Network(_)), "{err:?}");
    assert!(err.is_retryable());
    assert_no_secrets(&err);
}

#[tokio::test]
async fn network_error_on_the_codeload_hop_hides_its_url() {
    let api = MockServer::start().await;
    let location = format!(
        "{}/octo/infra/legacy.tar.gz/{SHA}?token={CODELOAD_TOKEN}",
        closed_port_url()
    );
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(302).insert_header("Location", location.as_str()))
        .mount(&api)
        .await;
    for client in [
        reqwest::Client::new(),
        reqwest::Client::builder()
            .redirect(Policy::none())
            .build()
            .unwrap(),
    ] {
        let outer = tempfile::tempdir().unwrap();
        let err = fetch(&client, &api.uri(), &outer.path().join("repo"))
            .await
            .unwrap_err();
        assert!(matches!(err, CheckoutError::Network(_)), "{err:?}");
        assert_no_secrets(&err);
    }
}

#[tokio::test]
async fn hostile_archive_over_http_is_rejected_and_removed() {
    let api = MockServer::start().await;
    let archive = Tarball::github()
        .file(&under_top("ok.tf"), b"x")
        .symlink(&under_top("passwd"), "/etc/passwd")
        .gzip();
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(archive))
        .mount(&api)
        .await;
    let outer = tempfile::tempdir().unwrap();
    let dest = outer.path().join("repo");
    let err = fetch(&reqwest::Client::new(), &api.uri(), &dest)
        .await
        .unwrap_err();
    assert!(
        matches!(err, CheckoutError::Archive(ExtractError::UnsafeLink { .. })),
        "{err:?}"
    );
    assert!(!dest.exists());
}

#[tokio::test]
async fn large_archive_streams_through_in_many_chunks() {
    let api = MockServer::start().await;
    let mut archive = Tarball::github();
    for i in 0..64 {
        let body: Vec<u8> = (0..64 * 1024).map(|b| (b * 31 + i) as u8).collect();
        archive = archive.file(&under_top(&format!("data/{i}.bin")), &body);
    }
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(archive.gzip()))
        .mount(&api)
        .await;
    let outer = tempfile::tempdir().unwrap();
    let dest = outer.path().join("repo");
    let info = fetch(&reqwest::Client::new(), &api.uri(), &dest)
        .await
        .unwrap();
    assert_eq!((info.files, info.bytes), (64, 64 * 64 * 1024));
    let sample = fs::read(dest.join("data/5.bin")).unwrap();
    assert_eq!(sample[1], 31 + 5);
}

#[tokio::test]
async fn bad_sha_or_token_is_refused_before_any_request() {
    let api = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200))
        .expect(0)
        .mount(&api)
        .await;
    let client = reqwest::Client::new();
    let outer = tempfile::tempdir().unwrap();
    let dest = outer.path().join("repo");

    let short_sha = &SHA[..12];
    let err = fetch_tarball(
        &client,
        &api.uri(),
        "octo",
        "infra",
        short_sha,
        &token(),
        &dest,
        ExtractLimits::default(),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, CheckoutError::InvalidSha), "{err:?}");

    let bad_token = SecretString::from(format!("{TOKEN}\r\nX-Injected: 1"));
    let err = fetch_tarball(
        &client,
        &api.uri(),
        "octo",
        "infra",
        SHA,
        &bad_token,
        &dest,
        ExtractLimits::default(),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, CheckoutError::InvalidToken), "{err:?}");
    assert_no_secrets(&err);
    assert!(!dest.exists());
}
