//! CloudTrail lookups against a local fake speaking LookupEvents' JSON 1.1 protocol (wiremock),
//! with real-shaped records: pagination, throttling and late delivery.

use super::*;
use crate::enrich::{
    enrichment_view, lookup_plan, EnrichmentState, FailureToEnrich, GaveUpReason,
    LookupEventRecord, UnixSeconds, CONFIRMED, CONFIRMING,
};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use wiremock::matchers::{body_partial_json, header, method};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// `X-Amz-Target`: the API reference and botocore send
/// `com.amazonaws.cloudtrail.v20131101.CloudTrail_20131101.LookupEvents`; aws-sdk-rust sends the
/// model's short form `CloudTrail_20131101.LookupEvents`. The fake accepts both, nothing else.
const TARGETS: [&str; 2] = [
    "com.amazonaws.cloudtrail.v20131101.CloudTrail_20131101.LookupEvents",
    "CloudTrail_20131101.LookupEvents",
];

struct LookupEventsTarget;

impl wiremock::Match for LookupEventsTarget {
    fn matches(&self, request: &wiremock::Request) -> bool {
        request
            .headers
            .get("x-amz-target")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| TARGETS.contains(&v))
    }
}
const EC2: &str = include_str!("../../tests/fixtures/cloudtrail/ec2-runinstances-denied.json");
const LOGS: &str =
    include_str!("../../tests/fixtures/cloudtrail/logs-createloggroup-scp-denied.json");
const OK: &str = include_str!("../../tests/fixtures/cloudtrail/ec2-describeinstances-ok.json");
const SESSION: &str = "tfgate-run-42";

/// One `Events[]` entry as CloudTrail serialises it: `EventTime` in epoch seconds and the
/// record as a JSON **string**.
fn wire_event(record: &str) -> Value {
    let r: Value = serde_json::from_str(record).unwrap();
    let time = UnixSeconds::parse_rfc3339(r["eventTime"].as_str().unwrap()).unwrap();
    json!({
        "EventId": r["eventID"],
        "EventName": r["eventName"],
        "ReadOnly": r["readOnly"].to_string(),
        "AccessKeyId": r["userIdentity"]["accessKeyId"],
        "EventTime": time.0 as f64,
        "EventSource": r["eventSource"],
        "Username": r["userIdentity"]["arn"].as_str().unwrap().rsplit('/').next().unwrap(),
        "Resources": [],
        "CloudTrailEvent": record.trim(),
    })
}

fn page(records: &[&str], next_token: Option<&str>) -> ResponseTemplate {
    let mut body = json!({ "Events": records.iter().map(|r| wire_event(r)).collect::<Vec<_>>() });
    if let Some(t) = next_token {
        body["NextToken"] = json!(t);
    }
    ResponseTemplate::new(200)
        .insert_header("content-type", "application/x-amz-json-1.1")
        .set_body_string(body.to_string())
}

fn error(status: u16, kind: &str, message: &str) -> ResponseTemplate {
    ResponseTemplate::new(status)
        .insert_header("content-type", "application/x-amz-json-1.1")
        .set_body_string(json!({"__type": kind, "message": message}).to_string())
}

fn lookup() -> wiremock::MockBuilder {
    Mock::given(method("POST"))
        .and(LookupEventsTarget)
        .and(header("content-type", "application/x-amz-json-1.1"))
}

async fn client_for(server: &MockServer) -> aws_sdk_cloudtrail::Client {
    let settings = AwsSettings {
        region: "eu-west-1".into(),
        endpoint_url: Some(server.uri()),
    };
    cloudtrail_client(&static_config(&settings, "AKIDTEST", "test-secret").await)
}

/// A bare `UnauthorizedOperation` with no action, operation or request id in the text.
fn bare_failure() -> FailureToEnrich {
    FailureToEnrich {
        address: "aws_instance.web".into(),
        aws_code: Some("UnauthorizedOperation".into()),
        failed_at: "2024-08-01T11:30:24Z".into(),
        ..FailureToEnrich::default()
    }
}

type SleepLog = Arc<Mutex<Vec<Duration>>>;

/// A sleep that records the wait and returns at once.
fn recording_sleep(log: &SleepLog) -> impl Fn(Duration) -> std::future::Ready<()> {
    let log = log.clone();
    move |d| {
        log.lock().unwrap().push(d);
        std::future::ready(())
    }
}

fn assert_pr_safe(text: &str) {
    assert!(!text.contains("arn:"), "ARN in {text}");
    assert!(
        !regex::Regex::new(r"\d{12}").unwrap().is_match(text),
        "account id in {text}"
    );
    assert!(!text.contains("203.0.113"), "IP in {text}");
}

#[tokio::test]
async fn bare_unauthorized_operation_is_named_after_late_delivery_throttling_and_paging() {
    let server = MockServer::start().await;
    // First request: throttled. Then two empty polls (not delivered yet). Then the record, on
    // the second page.
    lookup()
        .respond_with(error(400, "ThrottlingException", "Rate exceeded"))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    lookup()
        .and(body_partial_json(json!({"NextToken": "page-2"})))
        .respond_with(page(&[LOGS, EC2], None))
        .with_priority(2)
        .mount(&server)
        .await;
    lookup()
        .respond_with(page(&[], None))
        .up_to_n_times(2)
        .with_priority(3)
        .mount(&server)
        .await;
    lookup()
        .respond_with(page(&[OK], Some("page-2")))
        .with_priority(4)
        .mount(&server)
        .await;

    let failure = bare_failure();
    let query = lookup_plan(&failure, Some(SESSION), Some("ASIAEXAMPLEKEY000042")).unwrap();
    let limiter = lookup_events_limiter("000000000001-test", "eu-west-1");
    let sleeps = SleepLog::default();
    let schedule = crate::enrich::backoff_schedule();

    // What the first comment shows, before CloudTrail answers.
    let before = enrichment_view(
        &failure,
        &failure.address,
        None,
        &EnrichmentState::Pending,
        &crate::redact::Redactor::new(&Default::default()).unwrap(),
    );
    assert_eq!(before.status, CONFIRMING);
    assert_eq!(before.iam_action, None);

    let state = poll_until_found(
        &client_for(&server).await,
        &limiter,
        &query,
        &failure,
        SESSION,
        &schedule,
        recording_sleep(&sleeps),
    )
    .await;

    let EnrichmentState::Found(call) = &state else {
        panic!("expected Found, got {state:?}");
    };
    assert_eq!(call.iam_action, "ec2:RunInstances");
    assert_eq!(call.error_code.as_deref(), Some("UnauthorizedOperation"));
    assert_eq!(call.resource_type.as_deref(), Some("instance"));

    // Three scheduled waits (30 s, 60 s, 90 s: found "two minutes later") and one throttle
    // back-off of 1 s.
    assert_eq!(
        *sleeps.lock().unwrap(),
        [30, 1, 60, 90].map(Duration::from_secs).to_vec()
    );

    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 5, "throttled, empty, empty, page 1, page 2");
    let bodies: Vec<Value> = requests
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    for body in &bodies {
        assert_eq!(
            body["LookupAttributes"],
            json!([{"AttributeKey": "Username", "AttributeValue": SESSION}])
        );
        assert_eq!(
            body["StartTime"], bodies[0]["StartTime"],
            "same parameters with NextToken"
        );
        assert_eq!(body["EndTime"], bodies[0]["EndTime"]);
        assert_eq!(body["MaxResults"], 50);
    }
    assert_eq!(bodies[4]["NextToken"], "page-2");
    assert!(bodies[..4].iter().all(|b| b.get("NextToken").is_none()));

    // The updated comment names the action; nothing derived carries an ARN, id or IP.
    let after = enrichment_view(
        &failure,
        &failure.address,
        None,
        &state,
        &crate::redact::Redactor::new(&Default::default()).unwrap(),
    );
    assert_eq!(after.status, CONFIRMED);
    assert_eq!(after.iam_action.as_deref(), Some("ec2:RunInstances"));
    assert_pr_safe(&serde_json::to_string(&state).unwrap());
    assert_pr_safe(&serde_json::to_string(&after).unwrap());
    assert_pr_safe(&format!("{state:?} {after:?}"));
}

#[tokio::test]
async fn event_name_query_matches_the_request_id() {
    let server = MockServer::start().await;
    lookup()
        .and(body_partial_json(json!({
            "LookupAttributes": [{"AttributeKey": "EventName", "AttributeValue": "RunInstances"}]
        })))
        .respond_with(page(&[EC2], None))
        .mount(&server)
        .await;
    let failure = FailureToEnrich {
        operation: Some("ec2:RunInstances".into()),
        request_id: Some("b663854b-0f2c-4d5e-9a51-6c1d2e3f4a5b".into()),
        ..bare_failure()
    };
    let query = lookup_plan(&failure, Some(SESSION), None).unwrap();
    let client = client_for(&server).await;
    let (events, next): (Vec<LookupEventRecord>, _) =
        lookup_events(&client, &query, None).await.unwrap();
    assert_eq!(next, None);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].event_time, Some(UnixSeconds(1_722_511_823)));
    assert_eq!(events[0].username.as_deref(), Some(SESSION));
    assert!(events[0].cloud_trail_event.contains("\"requestID\""));

    let limiter = RateLimiter::new(100.0, 100.0);
    let sleeps = SleepLog::default();
    let state = poll_until_found(
        &client,
        &limiter,
        &query,
        &failure,
        SESSION,
        &[Duration::from_secs(30)],
        recording_sleep(&sleeps),
    )
    .await;
    assert!(matches!(&state, EnrichmentState::Found(c) if c.iam_action == "ec2:RunInstances"));
}

#[tokio::test]
async fn gives_up_with_a_note_when_nothing_arrives() {
    let server = MockServer::start().await;
    lookup()
        .respond_with(page(&[OK], None))
        .mount(&server)
        .await;
    let limiter = RateLimiter::new(100.0, 100.0);
    let failure = bare_failure();
    let query = lookup_plan(&failure, Some(SESSION), None).unwrap();
    let sleeps = SleepLog::default();
    let state = poll_until_found(
        &client_for(&server).await,
        &limiter,
        &query,
        &failure,
        SESSION,
        &crate::enrich::backoff_schedule(),
        recording_sleep(&sleeps),
    )
    .await;
    assert_eq!(
        state,
        EnrichmentState::gave_up(GaveUpReason::NoMatchingEvent)
    );
    let waited: Duration = sleeps.lock().unwrap().iter().sum();
    assert_eq!(waited, Duration::from_secs(900));
    assert_eq!(server.received_requests().await.unwrap().len(), 8);
}

#[tokio::test]
async fn keeps_throttling_gives_up_as_throttled() {
    let server = MockServer::start().await;
    lookup()
        .respond_with(error(400, "ThrottlingException", "Rate exceeded"))
        .mount(&server)
        .await;
    let limiter = RateLimiter::new(100.0, 100.0);
    let failure = bare_failure();
    let query = lookup_plan(&failure, Some(SESSION), None).unwrap();
    let sleeps = SleepLog::default();
    let state = poll_until_found(
        &client_for(&server).await,
        &limiter,
        &query,
        &failure,
        SESSION,
        &[Duration::from_secs(30), Duration::from_secs(60)],
        recording_sleep(&sleeps),
    )
    .await;
    assert_eq!(state, EnrichmentState::gave_up(GaveUpReason::Throttled));
    let per_poll = MAX_THROTTLE_RETRIES as usize + 1;
    assert_eq!(
        server.received_requests().await.unwrap().len(),
        2 * per_poll
    );
    let backoffs: Vec<u64> = sleeps.lock().unwrap()[1..per_poll]
        .iter()
        .map(Duration::as_secs)
        .collect();
    assert_eq!(backoffs, vec![1, 2, 4, 8, 16]);
}

#[tokio::test]
async fn a_denied_read_role_stops_at_once() {
    let server = MockServer::start().await;
    let text = "User: arn:aws:sts::123456789012:assumed-role/ct-read/x is not authorized to perform: cloudtrail:LookupEvents";
    lookup()
        .respond_with(error(400, "AccessDeniedException", text))
        .mount(&server)
        .await;
    let client = client_for(&server).await;
    let failure = bare_failure();
    let query = lookup_plan(&failure, Some(SESSION), None).unwrap();
    let err = lookup_events(&client, &query, None).await.unwrap_err();
    assert_eq!(err, LookupError::Denied);
    assert_pr_safe(&err.to_string());

    let limiter = RateLimiter::new(100.0, 100.0);
    let state = poll_until_found(
        &client,
        &limiter,
        &query,
        &failure,
        SESSION,
        &crate::enrich::backoff_schedule(),
        recording_sleep(&SleepLog::default()),
    )
    .await;
    assert_eq!(state, EnrichmentState::gave_up(GaveUpReason::LookupFailed));
    assert_eq!(server.received_requests().await.unwrap().len(), 2);
}

#[test]
fn throttle_backoff_doubles_and_caps() {
    let secs: Vec<u64> = (1..=7).map(|a| throttle_backoff(a).as_secs()).collect();
    assert_eq!(secs, vec![1, 2, 4, 8, 16, 16, 16]);
}
