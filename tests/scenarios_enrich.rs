//! Issue 7's check as a scenario: an apply fails with a bare `UnauthorizedOperation` (no
//! action in the text); the comment is posted at once with "confirming with CloudTrail…";
//! CloudTrail (a local fake speaking its JSON protocol) has nothing at the first poll and the
//! denied `ec2:RunInstances` record at the next; the same comment is updated to name it, with
//! no ARN or account id anywhere. STS (the read role) comes from moto.

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::json;
use support::*;
use wiremock::matchers::{header_regex, method};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

const REQUEST_ID: &str = "5a1b2c3d-0000-4000-8000-000000000001";

fn bare_failure() -> String {
    format!("creating EC2 Instance: UnauthorizedOperation: You are not authorized to perform this operation.\n\tstatus code: 403, request id: {REQUEST_ID}")
}

const POLICY: &str = r#"
repos: ["Codertocat/Hello-World"]
defaults:
  plan_role: arn:aws:iam::111111111111:role/tfgate-plan
  apply_role: arn:aws:iam::111111111111:role/tfgate-apply
apply_requirements: []
cloudtrail:
  read_roles:
    "111111111111": arn:aws:iam::111111111111:role/tfgate-cloudtrail-read
projects:
  - name: compute
    dir: infra/compute
"#;

/// Late delivery: the first LookupEvents finds nothing; later ones find the denied call.
struct LateCloudTrail {
    calls: Arc<AtomicUsize>,
}

impl Respond for LateCloudTrail {
    fn respond(&self, _req: &Request) -> ResponseTemplate {
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        if n == 0 {
            return ResponseTemplate::new(200)
                .insert_header("content-type", "application/x-amz-json-1.1")
                .set_body_json(json!({"Events": []}));
        }
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let record = json!({
            "eventVersion": "1.09", "eventSource": "ec2.amazonaws.com", "eventName": "RunInstances",
            "eventTime": "2026-12-02T10:00:00Z", "eventType": "AwsApiCall", "awsRegion": "us-east-1",
            "errorCode": "Client.UnauthorizedOperation",
            "errorMessage": "You are not authorized to perform this operation. User: arn:aws:sts::111111111111:assumed-role/tfgate-apply/tfgate-1 is not authorized to perform: ec2:RunInstances on resource: arn:aws:ec2:us-east-1:111111111111:instance/* because no identity-based policy allows the ec2:RunInstances action.",
            "requestID": REQUEST_ID, "eventID": "1a4debbb-0000-4000-8000-000000000002",
            "readOnly": false, "managementEvent": true, "recipientAccountId": "111111111111",
            "userIdentity": {"type": "AssumedRole", "arn": "arn:aws:sts::111111111111:assumed-role/tfgate-apply/tfgate-1", "accountId": "111111111111"}
        });
        ResponseTemplate::new(200)
            .insert_header("content-type", "application/x-amz-json-1.1")
            .set_body_json(json!({"Events": [{
                "EventId": "1a4debbb-0000-4000-8000-000000000002", "EventName": "RunInstances",
                "ReadOnly": "false", "EventTime": now as f64, "EventSource": "ec2.amazonaws.com",
                "Username": "tfgate-1", "CloudTrailEvent": record.to_string()
            }]}))
    }
}

/// A CloudTrail that answers late; returns its URL and the count of lookups.
async fn late_cloudtrail() -> (MockServer, Arc<AtomicUsize>) {
    let cloudtrail = MockServer::start().await;
    let calls = Arc::new(AtomicUsize::new(0));
    Mock::given(method("POST"))
        .and(header_regex("x-amz-target", "LookupEvents"))
        .respond_with(LateCloudTrail {
            calls: calls.clone(),
        })
        .mount(&cloudtrail)
        .await;
    (cloudtrail, calls)
}

/// One root whose only resource fails with the bare denial; alice may apply.
fn serve_failing_root(h: &Harness) -> tempfile::TempDir {
    let repo = tempfile::tempdir().unwrap();
    let dir = repo.path().join("infra/compute");
    std::fs::create_dir_all(&dir).unwrap();
    let tf = format!(
        "terraform {{\n  required_providers {{\n    fake = {{ source = \"tfgate/fake\", version = \"0.1.0\" }}\n  }}\n}}\nprovider \"fake\" {{}}\nresource \"fake_thing\" \"web\" {{\n  name = \"web\"\n  fail_with = {:?}\n}}\n",
        bare_failure()
    );
    std::fs::write(dir.join("main.tf"), tf).unwrap();
    h.github.serve_repo(repo.path());
    h.github.with(|g| {
        g.files = vec!["infra/compute/main.tf".into()];
        g.permissions.insert("alice".into(), "write".into());
    });
    repo
}

/// Every enrich job's payload is sealed: no role ARN, account, request id or address in clear.
async fn assert_enrich_payloads_sealed(h: &Harness) {
    let stored: Vec<String> = sqlx::query_scalar("SELECT payload FROM jobs WHERE kind = 'enrich'")
        .fetch_all(&h.state.db.pool)
        .await
        .unwrap();
    assert!(stored.len() >= 2, "one enrich job per poll: {stored:?}");
    for payload in &stored {
        assert!(payload.starts_with(r#"{"sealed":""#), "{payload}");
        for leak in ["arn:", "111111111111", REQUEST_ID, "fake_thing"] {
            assert!(!payload.contains(leak), "{leak} stored in clear: {payload}");
        }
    }
}

const CONFIRMED: &str = "`fake_thing.web` needs `ec2:RunInstances` on `instance *`: no identity-based policy allows it _(confirmed by CloudTrail)_";
const STATEMENT: &str = "\"Action\": \"ec2:RunInstances\",\n  \"Resource\": \"<instance/*>\"";

async fn enrichment_names_the_denied_action(backend: Backend) {
    if !terraform_tools_available() {
        return;
    }
    let (cloudtrail, calls) = late_cloudtrail().await;
    let Some(h) = Harness::start_with(backend, Some(&with_test_network(POLICY)), |a| {
        a.cloudtrail_endpoint_url = Some(cloudtrail.uri());
        a.enrich_schedule = Some("0,0,0".into());
    })
    .await
    else {
        return;
    };
    let _repo = serve_failing_root(&h);
    h.comment(1, "/plan", "alice").await;
    h.comment(1, "/apply", "alice").await;

    let comments = h.github.comments();
    let apply = comments
        .iter()
        .find(|c| c.body.contains("tfgate apply"))
        .unwrap();
    assert!(
        calls.load(Ordering::SeqCst) >= 2,
        "polled until the late record arrived"
    );
    assert!(
        apply.edits >= 1,
        "the same comment was updated:\n{}",
        apply.body
    );
    // The resource type and name (no ARN), the deny kind and the statement an admin could add.
    assert!(apply.body.contains(CONFIRMED), "{}", apply.body);
    assert!(apply.body.contains(STATEMENT), "{}", apply.body);
    assert!(
        !apply.body.contains("confirming with CloudTrail"),
        "{}",
        apply.body
    );
    for leak in ["arn:", "111111111111", REQUEST_ID] {
        assert!(!apply.body.contains(leak), "{leak} leaked:\n{}", apply.body);
    }
    assert_enrich_payloads_sealed(&h).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn enrichment_sqlite() {
    enrichment_names_the_denied_action(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn enrichment_postgres() {
    enrichment_names_the_denied_action(Backend::Postgres).await;
}

/// A plan-time denial: the plan role may not read what the root looks up (a bare
/// `UnauthorizedOperation` at plan time, no action in the text).
fn plan_denial() -> String {
    format!("reading EC2 VPC: UnauthorizedOperation: You are not authorized to perform this operation.\n\tstatus code: 403, request id: {PLAN_REQUEST_ID}")
}

const PLAN_REQUEST_ID: &str = "5a1b2c3d-0000-4000-8000-0000000000aa";

/// A CloudTrail that has the plan role's denied `DescribeVpcs` record from the first lookup.
async fn plan_role_cloudtrail() -> MockServer {
    let cloudtrail = MockServer::start().await;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let record = json!({
        "eventVersion": "1.09", "eventSource": "ec2.amazonaws.com", "eventName": "DescribeVpcs",
        "eventTime": "2026-12-02T10:00:00Z", "eventType": "AwsApiCall", "awsRegion": "us-east-1",
        "errorCode": "Client.UnauthorizedOperation",
        "errorMessage": "You are not authorized to perform this operation. User: arn:aws:sts::111111111111:assumed-role/tfgate-plan/tfgate-1 is not authorized to perform: ec2:DescribeVpcs because no identity-based policy allows the ec2:DescribeVpcs action.",
        "requestID": PLAN_REQUEST_ID, "eventID": "1a4debbb-0000-4000-8000-0000000000ab",
        "readOnly": true, "managementEvent": true, "recipientAccountId": "111111111111",
        "userIdentity": {"type": "AssumedRole", "arn": "arn:aws:sts::111111111111:assumed-role/tfgate-plan/tfgate-1", "accountId": "111111111111"}
    });
    Mock::given(method("POST"))
        .and(header_regex("x-amz-target", "LookupEvents"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("content-type", "application/x-amz-json-1.1")
                .set_body_json(json!({"Events": [{
                    "EventId": "1a4debbb-0000-4000-8000-0000000000ab", "EventName": "DescribeVpcs",
                    "ReadOnly": "true", "EventTime": now as f64, "EventSource": "ec2.amazonaws.com",
                    "Username": "tfgate-1", "CloudTrailEvent": record.to_string()
                }]})),
        )
        .mount(&cloudtrail)
        .await;
    cloudtrail
}

async fn a_plan_time_denial_is_enriched_and_names_the_plan_role(backend: Backend) {
    if !terraform_tools_available() {
        return;
    }
    let cloudtrail = plan_role_cloudtrail().await;
    let Some(h) = Harness::start_with(backend, Some(&with_test_network(POLICY)), |a| {
        a.cloudtrail_endpoint_url = Some(cloudtrail.uri());
        a.enrich_schedule = Some("0,0,0".into());
    })
    .await
    else {
        return;
    };
    let repo = tempfile::tempdir().unwrap();
    let dir = repo.path().join("infra/compute");
    std::fs::create_dir_all(&dir).unwrap();
    let tf = format!(
        "terraform {{\n  required_providers {{\n    fake = {{ source = \"tfgate/fake\", version = \"0.1.0\" }}\n  }}\n}}\nprovider \"fake\" {{}}\nresource \"fake_thing\" \"vpc\" {{\n  name = \"vpc\"\n  plan_fail_with = {:?}\n}}\n",
        plan_denial()
    );
    std::fs::write(dir.join("main.tf"), tf).unwrap();
    h.github.serve_repo(repo.path());
    h.github.with(|g| {
        g.files = vec!["infra/compute/main.tf".into()];
        g.permissions.insert("alice".into(), "write".into());
    });
    h.comment(1, "/plan", "alice").await;

    let comments = h.github.comments();
    let plan = comments
        .iter()
        .find(|c| c.body.contains("tfgate plan"))
        .unwrap();
    let body = &plan.body;
    assert!(plan.edits >= 1, "the plan comment was updated:\n{body}");
    // The row: category and (confirmed) action.
    assert!(
        body.contains("| `fake_thing.vpc` | `UnauthorizedOperation` | permission missing | `ec2:DescribeVpcs` |"),
        "{body}"
    );
    // The missing-permission statement, for the plan role.
    assert!(
        body.contains("`fake_thing.vpc` needs `ec2:DescribeVpcs`: no identity-based policy allows it _(confirmed by CloudTrail)_"),
        "{body}"
    );
    assert!(body.contains("\"Action\": \"ec2:DescribeVpcs\""), "{body}");
    assert!(
        body.contains("add this statement to the plan role"),
        "{body}"
    );
    // Advice names the plan role by name, never the apply role, an ARN or the account.
    assert!(
        body.contains("to the policy of the plan role `tfgate-plan`"),
        "{body}"
    );
    assert!(!body.contains("apply role"), "{body}");
    assert!(!body.contains("confirming with CloudTrail"), "{body}");
    for leak in ["arn:", "111111111111", PLAN_REQUEST_ID] {
        assert!(!body.contains(leak), "{leak} leaked:\n{body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_time_denial_sqlite() {
    a_plan_time_denial_is_enriched_and_names_the_plan_role(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_time_denial_postgres() {
    a_plan_time_denial_is_enriched_and_names_the_plan_role(Backend::Postgres).await;
}
