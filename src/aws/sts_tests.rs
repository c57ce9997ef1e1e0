//! STS against moto (AssumeRole) behind a recording proxy, and DecodeAuthorizationMessage
//! against a wiremock fake (moto does not implement it).
//!
//! moto ignores `SourceIdentity` and does not echo it, so the test puts a wiremock server in
//! front of moto that forwards every request and keeps a copy: the copy proves what was sent,
//! moto's answer proves the request was a valid AssumeRole.

use super::*;
use crate::enrich::parse_decoded_authorization_message;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, SystemTime};
use wiremock::matchers::{body_string_contains, method};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// The moto URL, or `None` (with a note) when moto is not running for this test run.
fn moto_url() -> Option<String> {
    match std::env::var("TFGATE_TEST_MOTO_URL") {
        Ok(url) if !url.trim().is_empty() => Some(url.trim().trim_end_matches('/').to_string()),
        _ => {
            assert!(
                std::env::var("TFGATE_REQUIRE_MOTO").as_deref() != Ok("1"),
                "TFGATE_REQUIRE_MOTO=1 but TFGATE_TEST_MOTO_URL is not set"
            );
            eprintln!("note: TFGATE_TEST_MOTO_URL unset; skipping the moto STS test (bash scripts/test.sh starts moto and runs it)");
            None
        }
    }
}

/// Forwards a request to moto over a plain HTTP/1.1 connection and relays the answer.
struct ForwardToMoto {
    host_port: String,
}

impl Respond for ForwardToMoto {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let mut head = format!(
            "{} {} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Length: {}\r\n",
            request.method,
            request.url.path(),
            self.host_port,
            request.body.len()
        );
        for (name, value) in &request.headers {
            let skip = ["host", "connection", "content-length", "transfer-encoding"];
            if !skip.contains(&name.as_str()) {
                head.push_str(&format!("{}: {}\r\n", name, value.to_str().unwrap_or("")));
            }
        }
        head.push_str("\r\n");
        let mut stream = TcpStream::connect(&self.host_port).expect("moto reachable");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(&request.body).unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).unwrap();
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("an HTTP response");
        let head = String::from_utf8_lossy(&raw[..split]).to_string();
        let status: u16 = head.split_whitespace().nth(1).unwrap().parse().unwrap();
        assert!(
            !head
                .to_ascii_lowercase()
                .contains("transfer-encoding: chunked"),
            "moto answered chunked; the proxy only relays sized bodies"
        );
        ResponseTemplate::new(status)
            .insert_header("content-type", "text/xml")
            .set_body_bytes(raw[split + 4..].to_vec())
    }
}

fn form_fields(body: &[u8]) -> Vec<(String, String)> {
    reqwest::Url::parse(&format!("http://x/?{}", String::from_utf8_lossy(body)))
        .unwrap()
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

#[tokio::test]
async fn assume_role_against_moto_sends_source_identity_tags_and_session_policy() {
    let Some(moto) = moto_url() else { return };
    let host_port = moto
        .trim_start_matches("http://")
        .trim_start_matches("https://")
        .to_string();
    let proxy = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ForwardToMoto { host_port })
        .mount(&proxy)
        .await;
    let settings = AwsSettings {
        region: "eu-west-1".into(),
        endpoint_url: Some(proxy.uri()),
    };
    let base = static_config(&settings, "AKIDTESTBASE", "base-secret").await;
    let policy = r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"cloudtrail:LookupEvents","Resource":"*"}]}"#;
    let started = SystemTime::now();
    let creds = assume_role(
        &base,
        &AssumeRoleRequest {
            role_arn: "arn:aws:iam::123456789012:role/tfgate-cloudtrail-read",
            session_name: "tfgate-run-42",
            source_identity: "dependabot[bot]",
            tags: &[("tfgate:repo", "acme/infra"), ("tfgate:pr", "7")],
            duration_secs: 900,
            session_policy: Some(policy),
        },
    )
    .await
    .expect("moto assumes the role");

    assert!(creds.access_key_id.starts_with("ASIA"), "{creds:?}");
    assert!(!creds.secret_access_key.is_empty() && !creds.session_token.is_empty());
    let lifetime = creds.expiration.duration_since(started).unwrap();
    assert!(
        lifetime > Duration::from_secs(800) && lifetime <= Duration::from_secs(910),
        "{lifetime:?}"
    );
    let shown = format!("{creds:?}");
    assert!(!shown.contains(&creds.secret_access_key) && !shown.contains(&creds.session_token));
    assert!(!shown.contains(&creds.access_key_id), "{shown}");

    let requests = proxy.received_requests().await.unwrap();
    assert_eq!(requests.len(), 1);
    let fields = form_fields(&requests[0].body);
    let field = |k: &str| fields.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    assert_eq!(field("Action"), Some("AssumeRole"));
    assert_eq!(field("SourceIdentity"), Some("dependabot-bot-"));
    assert_eq!(field("RoleSessionName"), Some("tfgate-run-42"));
    assert_eq!(field("DurationSeconds"), Some("900"));
    assert_eq!(field("Policy"), Some(policy));
    assert_eq!(field("Tags.member.1.Key"), Some("tfgate:repo"));
    assert_eq!(field("Tags.member.2.Value"), Some("7"));

    // The credentials work as a config for the next call (moto: GetCallerIdentity).
    let read = config_with_credentials(&base, &creds);
    let who = aws_sdk_sts::Client::new(&read)
        .get_caller_identity()
        .send()
        .await
        .expect("moto answers GetCallerIdentity");
    assert!(who.arn().unwrap_or_default().ends_with("/tfgate-run-42"));
    let second = proxy.received_requests().await.unwrap();
    let auth = second[1]
        .headers
        .get("authorization")
        .unwrap()
        .to_str()
        .unwrap();
    assert!(
        auth.contains(&format!("Credential={}/", creds.access_key_id)),
        "signed with the new key"
    );
    assert!(second[1].headers.contains_key("x-amz-security-token"));
}

const DECODED: &str = include_str!("../../tests/fixtures/cloudtrail/decoded-explicit-deny.json");

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[tokio::test]
async fn decode_authorization_message_against_a_fake_sts() {
    let server = MockServer::start().await;
    let body = format!(
        r#"<DecodeAuthorizationMessageResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <DecodeAuthorizationMessageResult>
    <DecodedMessage>{}</DecodedMessage>
  </DecodeAuthorizationMessageResult>
  <ResponseMetadata><RequestId>6a3f6a3b-0000-4000-8000-000000000001</RequestId></ResponseMetadata>
</DecodeAuthorizationMessageResponse>"#,
        xml_escape(DECODED.trim())
    );
    Mock::given(method("POST"))
        .and(body_string_contains("Action=DecodeAuthorizationMessage"))
        .and(body_string_contains("EncodedMessage=T-kSWIRF"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("content-type", "text/xml")
                .set_body_string(body),
        )
        .mount(&server)
        .await;
    let settings = AwsSettings {
        region: "eu-west-1".into(),
        endpoint_url: Some(server.uri()),
    };
    let config = static_config(&settings, "AKIDTEST", "secret").await;
    let decoded = decode_authorization_message(&config, " T-kSWIRFexampleexampleexample\n")
        .await
        .unwrap();
    assert_eq!(decoded, DECODED.trim());
    let call = parse_decoded_authorization_message(&decoded).unwrap();
    assert_eq!(call.iam_action, "ec2:RunInstances");
    assert!(call.is_pr_safe());
}

#[tokio::test]
async fn sts_errors_carry_no_provider_text() {
    let server = MockServer::start().await;
    let body = r#"<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <Error><Type>Sender</Type><Code>AccessDenied</Code><Message>User: arn:aws:sts::123456789012:assumed-role/ct-read/x is not authorized to perform: sts:DecodeAuthorizationMessage</Message></Error>
  <RequestId>6a3f6a3b-0000-4000-8000-000000000002</RequestId>
</ErrorResponse>"#;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(403)
                .insert_header("content-type", "text/xml")
                .set_body_string(body),
        )
        .mount(&server)
        .await;
    let settings = AwsSettings {
        region: "eu-west-1".into(),
        endpoint_url: Some(server.uri()),
    };
    let config = static_config(&settings, "AKIDTEST", "secret").await;
    let err = decode_authorization_message(&config, "T-kSWIRFexample")
        .await
        .unwrap_err();
    assert_eq!(
        err,
        StsError::Denied {
            code: "AccessDenied".into()
        }
    );
    let shown = err.to_string();
    assert!(
        !shown.contains("arn:") && !shown.contains("123456789012"),
        "{shown}"
    );
}
