//! Scheduled drift detection (issue 29), end to end with real Terraform: a root is applied
//! through a PR, its state is then changed behind Terraform's back (the state object in moto's
//! S3 edited, as a console edit would leave it), and the drift check of the default branch
//! opens one "tfgate drift report" issue, updates the same issue on the next check, and closes
//! it once the root is back in sync. A root a PR holds the lock of is skipped. The schedule
//! runs from an injected clock.

mod support;

use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};
use serde_json::{json, Value};
use support::*;
use tfgate::model::RepoRef;
use wiremock::matchers::{method, path, path_regex};
use wiremock::{Mock, Request, Respond, ResponseTemplate};

/// The repository's issues, as a fake GitHub keeps them (list, create, update).
#[derive(Clone, Default)]
struct Issues(Arc<Mutex<Vec<Value>>>);

impl Respond for Issues {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let mut issues = self.0.lock().unwrap();
        let body: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
        match req.method.as_str() {
            "GET" => ResponseTemplate::new(200).set_body_json(issues.clone()),
            "POST" => {
                let issue = json!({"number": 100 + issues.len(), "title": body["title"],
                    "body": body["body"], "state": "open", "user": {"login": "tfgate[bot]", "type": "Bot"}});
                issues.push(issue.clone());
                ResponseTemplate::new(201).set_body_json(issue)
            }
            _ => {
                let number: i64 = req.url.path().rsplit('/').next().unwrap().parse().unwrap();
                let issue = issues.iter_mut().find(|i| i["number"] == number).unwrap();
                for key in ["body", "state"] {
                    if !body[key].is_null() {
                        issue[key] = body[key].clone();
                    }
                }
                ResponseTemplate::new(200).set_body_json(issue.clone())
            }
        }
    }
}

fn policy() -> String {
    one_root_policy(
        "app",
        "infra/app",
        "apply_requirements: []\ndrift_detection:\n  schedule: \"0 6 * * *\"\n",
    )
}

async fn mount(h: &Harness, issues: &Issues) {
    let server = &h.github.server;
    let repo = "/repos/Codertocat/Hello-World";
    Mock::given(path_regex(format!(r"^{repo}/issues(/\d+)?$")))
        .respond_with(issues.clone())
        .mount(server)
        .await;
    let branch = h.github.with(|g| g.pr.default_branch.clone());
    Mock::given(method("GET"))
        .and(path(format!("{repo}/commits/{branch}")))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"sha": "d".repeat(40)})))
        .mount(server)
        .await;
    Mock::given(method("GET"))
        .and(path(format!("{repo}/installation")))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"id": 1})))
        .mount(server)
        .await;
    Mock::given(method("GET"))
        .and(path("/app/installations"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!([{"id": 1}])))
        .mount(server)
        .await;
    Mock::given(method("GET"))
        .and(path("/installation/repositories"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"repositories": [{"full_name": "Codertocat/Hello-World"}]})),
        )
        .mount(server)
        .await;
}

fn repo() -> RepoRef {
    RepoRef {
        installation_id: 1,
        owner: "Codertocat".into(),
        name: "Hello-World".into(),
    }
}

async fn drift_check(h: &Harness) {
    tfgate::worker::drift_detection::schedule::enqueue_drift(&h.state, repo(), vec![], "test")
        .await
        .unwrap();
    h.run_jobs_except(&[]).await;
}

/// Serves a repository whose `infra/app` root (state `key` in moto) holds `resources`, with
/// alice allowed to write; the returned directory must outlive the test's runs.
fn serve_app_root(h: &Harness, key: &str, resources: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("infra/app")).unwrap();
    std::fs::write(
        dir.path().join("infra/app/main.tf"),
        moto_root_tf(key, resources),
    )
    .unwrap();
    h.github.serve_repo(dir.path());
    h.github.with(|g| {
        g.files = vec!["infra/app/main.tf".into()];
        g.permissions.insert("alice".into(), "write".into());
    });
    dir
}

/// Terraform's objects are private; moto wants a signed request but does not check the
/// signature.
const SIGNED: &str = "AWS4-HMAC-SHA256 Credential=testing/20240101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=0";

/// The state object in moto's S3, and a writer for it (a change made outside Terraform).
async fn state_object(key: &str) -> Value {
    let moto = std::env::var("TFGATE_TEST_MOTO_URL").unwrap();
    let get = reqwest::Client::new()
        .get(format!("{moto}/tfstate/{key}"))
        .header("Authorization", SIGNED);
    let resp = get.send().await.unwrap();
    let status = resp.status();
    let text = resp.text().await.unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{status} {text:?}: {e}"))
}

async fn put_state(key: &str, state: &Value) {
    let moto = std::env::var("TFGATE_TEST_MOTO_URL").unwrap();
    let put = reqwest::Client::new()
        .put(format!("{moto}/tfstate/{key}"))
        .header("Authorization", SIGNED)
        .body(state.to_string());
    assert!(put.send().await.unwrap().status().is_success());
}

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drift_is_reported_in_one_issue_that_closes_when_fixed() {
    if !terraform_tools_available() {
        return;
    }
    let h = Harness::start_with_policy(Backend::Sqlite, Some(&policy()))
        .await
        .unwrap();
    let issues = Issues::default();
    mount(&h, &issues).await;
    create_state_bucket().await;
    let id = uuid::Uuid::new_v4().simple().to_string();
    let key = format!("{id}.tfstate");
    let resource = format!("resource \"fake_thing\" \"web\" {{\n  name = \"web-{id}\"\n}}\n");
    let _repo = serve_app_root(&h, &key, &resource);
    let plan = h.comment(1, "/plan", "alice").await.join("\n");
    assert!(plan.contains("| `app` |"), "{plan}");
    let apply = h.comment(1, "/apply", "alice").await.join("\n");
    assert!(
        apply.contains("| `fake_thing.web` | create | ✅ done |"),
        "{apply}"
    );

    // The PR still holds the lock: the root is skipped, and no issue is opened for that.
    drift_check(&h).await;
    assert!(issues.0.lock().unwrap().is_empty());
    h.comment(1, "/unlock", "alice").await;

    // In sync: still no issue.
    drift_check(&h).await;
    assert!(issues.0.lock().unwrap().is_empty());

    // A change behind Terraform's back.
    let original = state_object(&key).await;
    let mut edited = original.clone();
    edited["resources"][0]["instances"][0]["attributes"]["name"] = "console-edit".into();
    put_state(&key, &edited).await;
    drift_check(&h).await;
    let opened = issues.0.lock().unwrap().clone();
    assert_eq!(opened.len(), 1, "{opened:?}");
    let body = opened[0]["body"].as_str().unwrap();
    assert_eq!(opened[0]["title"], "tfgate drift report");
    assert!(
        body.contains("| `app` | `infra/app` | 0 | 1 | 0 | ⚠ drift |"),
        "{body}"
    );
    assert!(body.contains("- `fake_thing.web` (update)"), "{body}");
    assert!(
        body.contains(&format!("`name`: `console-edit` → `web-{id}`")),
        "{body}"
    );
    let metrics = h.state.metrics.render();
    assert!(
        metrics
            .contains("tfgate_drift_resources{repo=\"Codertocat/Hello-World\",project=\"app\"} 1"),
        "{metrics}"
    );

    // The next check updates the same issue.
    drift_check(&h).await;
    assert_eq!(issues.0.lock().unwrap().len(), 1);

    // Fixed: back in sync, the issue is closed.
    put_state(&key, &original).await;
    drift_check(&h).await;
    let closed = issues.0.lock().unwrap().clone();
    assert_eq!(closed.len(), 1);
    assert_eq!(closed[0]["state"], "closed");
    assert!(closed[0]["body"].as_str().unwrap().contains("✅ in sync"));
    assert!(closed[0]["body"]
        .as_str()
        .unwrap()
        .contains("No drift is left"));
}

// Issue 38 item 6: the report's title and marker are public, so anyone can open an issue
// carrying them; tfgate keeps to the issue its own App opened and leaves a forged one alone.
scenario!(a_forged_report_issue_is_ignored, policy = &policy(), |h| {
    if !terraform_tools_available() {
        return;
    }
    let issues = Issues::default();
    mount(&h, &issues).await;
    let forged_body =
        "<!-- tfgate:drift-report -->\nPlease rotate your keys at https://evil.example";
    issues
        .0
        .lock()
        .unwrap()
        .push(json!({"number": 7, "title": "tfgate drift report",
        "body": forged_body, "state": "open", "user": {"login": "mallory", "type": "User"}}));
    create_state_bucket().await;
    let id = uuid::Uuid::new_v4().simple().to_string();
    let key = format!("{id}.tfstate");
    let resource = format!("resource \"fake_thing\" \"web\" {{\n  name = \"web-{id}\"\n}}\n");
    let _repo = serve_app_root(&h, &key, &resource);
    h.comment(1, "/plan", "alice").await;
    let apply = h.comment(1, "/apply", "alice").await.join("\n");
    assert!(
        apply.contains("| `fake_thing.web` | create | ✅ done |"),
        "{apply}"
    );
    h.comment(1, "/unlock", "alice").await;

    let mut edited = state_object(&key).await;
    edited["resources"][0]["instances"][0]["attributes"]["name"] = "console-edit".into();
    put_state(&key, &edited).await;
    drift_check(&h).await;
    let all = issues.0.lock().unwrap().clone();
    assert_eq!(all.len(), 2, "tfgate opens its own issue: {all:?}");
    assert_eq!(
        all[0]["body"], forged_body,
        "the forged issue is left alone"
    );
    assert_eq!(all[0]["state"], "open");
    assert_eq!(all[1]["user"]["login"], "tfgate[bot]");
    let body = all[1]["body"].as_str().unwrap();
    assert!(
        body.contains("| `app` | `infra/app` | 0 | 1 | 0 | ⚠ drift |"),
        "{body}"
    );

    // The next check updates tfgate's issue, not the forged one.
    drift_check(&h).await;
    let all = issues.0.lock().unwrap().clone();
    assert_eq!(all.len(), 2, "{all:?}");
    assert_eq!(all[0]["body"], forged_body);
});

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_schedule_enqueues_each_slot_once_from_an_injected_clock() {
    let h = Harness::start_with_policy(Backend::Sqlite, Some(&policy()))
        .await
        .unwrap();
    mount(&h, &Issues::default()).await;
    use tfgate::worker::drift_detection::schedule::poll_once;
    // First sight records 06:00 without running it.
    assert!(poll_once(&h.state, t("2026-12-05T10:00:00Z"))
        .await
        .unwrap()
        .is_empty());
    assert!(poll_once(&h.state, t("2026-12-06T05:59:00Z"))
        .await
        .unwrap()
        .is_empty());
    let due = poll_once(&h.state, t("2026-12-06T06:00:30Z"))
        .await
        .unwrap();
    assert_eq!(
        due,
        [(
            "Codertocat/Hello-World".to_string(),
            "2026-12-06T06:00:00+00:00".to_string()
        )]
    );
    // A second process polling the same minute finds the slot taken.
    assert!(poll_once(&h.state, t("2026-12-06T06:00:40Z"))
        .await
        .unwrap()
        .is_empty());
    let queued: Vec<(String, String)> =
        sqlx::query_as("SELECT kind, payload FROM jobs WHERE kind = 'drift'")
            .fetch_all(&h.state.db.pool)
            .await
            .unwrap();
    assert_eq!(queued.len(), 1);
    assert!(
        queued[0].1.contains("schedule 2026-12-06T06:00:00+00:00"),
        "{queued:?}"
    );
}

/// A CloudTrail that answers `LookupEvents` by `ResourceName` with the records it holds for
/// that name (real record shape), and remembers every name asked.
#[derive(Clone, Default)]
struct Trail {
    records: Arc<Mutex<Vec<(String, Value)>>>,
    asked: Arc<Mutex<Vec<String>>>,
}

impl Respond for Trail {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&req.body).unwrap();
        let attribute = &body["LookupAttributes"][0];
        assert_eq!(attribute["AttributeKey"], "ResourceName", "{body}");
        let name = attribute["AttributeValue"].as_str().unwrap().to_string();
        self.asked.lock().unwrap().push(name.clone());
        let events: Vec<Value> = self
            .records
            .lock()
            .unwrap()
            .iter()
            .filter(|(n, _)| *n == name)
            .map(|(_, record)| {
                json!({"EventId": record["eventID"], "EventName": record["eventName"],
                    "ReadOnly": record["readOnly"].to_string(), "EventTime": Utc::now().timestamp() as f64,
                    "EventSource": record["eventSource"], "CloudTrailEvent": record.to_string()})
            })
            .collect();
        ResponseTemplate::new(200)
            .insert_header("content-type", "application/x-amz-json-1.1")
            .set_body_json(json!({"Events": events}))
    }
}

/// A write on `resource` by `identity` (a CloudTrail `userIdentity`), `minutes_ago`.
fn write_record(event: &str, identity: Value, minutes_ago: i64) -> Value {
    let at = Utc::now() - chrono::Duration::minutes(minutes_ago);
    json!({"eventVersion": "1.09", "userIdentity": identity,
        "eventTime": at.format("%Y-%m-%dT%H:%M:%SZ").to_string(), "eventSource": "fake.amazonaws.com",
        "eventName": event, "awsRegion": "us-east-1", "sourceIPAddress": "203.0.113.40",
        "requestID": uuid::Uuid::new_v4().to_string(), "eventID": uuid::Uuid::new_v4().to_string(),
        "readOnly": false, "eventType": "AwsApiCall", "managementEvent": true,
        "recipientAccountId": "111111111111"})
}

fn assumed_role(role: &str, session: &str) -> Value {
    json!({"type": "AssumedRole", "principalId": format!("AROAEXAMPLE:{session}"),
        "arn": format!("arn:aws:sts::111111111111:assumed-role/{role}/{session}"),
        "accountId": "111111111111",
        "sessionContext": {"sessionIssuer": {"type": "Role",
            "arn": format!("arn:aws:iam::111111111111:role/{role}"), "accountId": "111111111111"}}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_report_names_who_changed_a_resource_outside_terraform() {
    if !terraform_tools_available() {
        return;
    }
    let trail = Trail::default();
    let cloudtrail = wiremock::MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(trail.clone())
        .mount(&cloudtrail)
        .await;
    let extra = "apply_requirements: []\ncloudtrail:\n  read_roles:\n    \"111111111111\": arn:aws:iam::111111111111:role/tfgate-cloudtrail-read\ndrift_detection:\n  schedule: \"0 6 * * *\"\n  show_principals: true\n";
    let policy = one_root_policy("app", "infra/app", extra);
    let h = Harness::start_with(Backend::Sqlite, Some(&policy), |a| {
        a.cloudtrail_endpoint_url = Some(cloudtrail.uri());
    })
    .await
    .unwrap();
    let issues = Issues::default();
    mount(&h, &issues).await;
    create_state_bucket().await;
    // The "remote objects": files the provider reads at create and at every refresh, in a
    // directory the sandbox sees (the provider mirror is bound read-only into it).
    let id = uuid::Uuid::new_v4().simple().to_string();
    let remote = tools_dir().join("provider-mirror/remote-objects").join(&id);
    std::fs::create_dir_all(&remote).unwrap();
    let (web, db) = (remote.join("web"), remote.join("db"));
    std::fs::write(&web, "80").unwrap();
    std::fs::write(&db, "small").unwrap();
    let resources = format!(
        "resource \"fake_thing\" \"web\" {{\n  name = \"web-{id}\"\n  remote_file = \"{}\"\n}}\nresource \"fake_thing\" \"db\" {{\n  name = \"db-{id}\"\n  remote_file = \"{}\"\n}}\n",
        web.display(),
        db.display()
    );
    let _repo = serve_app_root(&h, &format!("{id}.tfstate"), &resources);
    h.comment(1, "/plan", "alice").await;
    let apply = h.comment(1, "/apply", "alice").await.join("\n");
    assert!(
        apply.contains("| `fake_thing.web` | create | ✅ done |"),
        "{apply}"
    );
    h.comment(1, "/unlock", "alice").await;

    // Both objects are edited behind Terraform's back. CloudTrail knows who edited `web` (by
    // its id): a console session; tfgate's own apply session wrote it later, which is not a
    // change outside Terraform. It knows nothing of `db`.
    std::fs::write(&web, "8080").unwrap();
    std::fs::write(&db, "large").unwrap();
    let web_id = format!("fake-web-{id}");
    trail.records.lock().unwrap().extend([
        (
            web_id.clone(),
            write_record(
                "UpdateThing",
                assumed_role("AWSReservedSSO_Admin_0123", "alice@example.com"),
                30,
            ),
        ),
        (
            web_id.clone(),
            write_record("UpdateThing", assumed_role("tfgate-apply", "tfgate-1"), 5),
        ),
    ]);
    drift_check(&h).await;
    std::fs::remove_dir_all(&remote).unwrap();

    let opened = issues.0.lock().unwrap().clone();
    assert_eq!(opened.len(), 1, "{opened:?}");
    let body = opened[0]["body"].as_str().unwrap();
    assert!(
        body.contains("| `app` | `infra/app` | 2 | 0 | 0 | ⚠ drift |"),
        "{body}"
    );
    assert!(body.contains("`remote_value`: `80` → `8080`"), "{body}");
    assert!(
        body.contains(
            "- changed by an assumed role, session `alice@example.com`: `UpdateThing` at "
        ),
        "{body}"
    );
    assert!(
        body.contains("`remote_value`: `small` → `large`\n  - who: not found in CloudTrail"),
        "{body}"
    );
    for secret in [
        "arn:",
        "111111111111",
        "AWSReservedSSO",
        "203.0.113.40",
        "tfgate-1",
    ] {
        assert!(!body.contains(secret), "{secret} in {body}");
    }
    // Looked up by id, then by the next name when the id found nothing.
    let asked = trail.asked.lock().unwrap().clone();
    assert!(
        asked.contains(&web_id) && asked.contains(&format!("fake-db-{id}")),
        "{asked:?}"
    );
    assert!(asked.contains(&format!("db-{id}")), "{asked:?}");
}
