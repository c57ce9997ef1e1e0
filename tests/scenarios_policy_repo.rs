//! Policies from an admin repository (`TFGATE_POLICY_REPO`, issue 26 item 3): a push to its
//! default branch puts valid policies in force on every process and gets a `tfgate/policy`
//! check run; a broken set is refused with `file:line:col` and the previous one stays; a pull
//! request to it gets the same check but changes nothing; pushes elsewhere are not enqueued.

mod support;

use std::sync::{Arc, Mutex};

use axum::http::StatusCode;
use serde_json::{json, Value};
use support::*;
use tfgate::config::{Config, ConfigArgs};
use tfgate::state::AppState;
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

const ADMIN: &str = "Codertocat/tfgate-admin";
const VALID: &str = r#"
repos: ["Codertocat/Hello-World"]
projects:
  - name: app
    dir: app
    plan_role: arn:aws:iam::123456789012:role/plan
    apply_role: arn:aws:iam::123456789012:role/apply
"#;
const BROKEN: &str =
    "repos: [\"Codertocat/Hello-World\"]\nprojects:\n  - name: app\n    aply_role: x\n";

/// The commit the admin repository's default branch (`master`, as in the push fixture)
/// points at, as the fake GitHub answers it.
#[derive(Clone, Default)]
struct AdminHead(Arc<Mutex<String>>);

impl AdminHead {
    fn set(&self, sha: &str) {
        *self.0.lock().unwrap() = sha.to_string();
    }
}

async fn admin_harness() -> (Harness, AdminHead) {
    let h = Harness::start_with(Backend::Sqlite, None, |a| {
        a.policy_dir = None;
        a.policy_repo = Some(ADMIN.into());
    })
    .await
    .unwrap();
    Mock::given(method("GET"))
        .and(path(format!("/repos/{ADMIN}/installation")))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"id": 1})))
        .mount(&h.github.server)
        .await;
    let head = AdminHead::default();
    let answer = head.clone();
    Mock::given(method("GET"))
        .and(path(format!("/repos/{ADMIN}/commits/master")))
        .respond_with(move |_: &wiremock::Request| {
            let sha = answer.0.lock().unwrap().clone();
            ResponseTemplate::new(200).set_body_json(json!({ "sha": sha }))
        })
        .mount(&h.github.server)
        .await;
    (h, head)
}

/// The admin repository's tarball holds `policies/repo.yaml` = `text`.
fn admin_repo_with(h: &Harness, text: &str) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("policies")).unwrap();
    std::fs::write(dir.path().join("policies/repo.yaml"), text).unwrap();
    std::fs::write(dir.path().join("README.md"), "admin").unwrap();
    h.github.serve_repo(dir.path());
}

fn push_to_admin(sha: &str) -> Value {
    let mut v: Value = serde_json::from_slice(
        &std::fs::read(fixture_path("webhooks/push.default-branch.json")).unwrap(),
    )
    .unwrap();
    v["repository"]["name"] = "tfgate-admin".into();
    v["repository"]["full_name"] = ADMIN.into();
    v["after"] = sha.into();
    v
}

/// The body of the last `tfgate/policy` check run posted.
fn last_policy_check(h: &Harness) -> Value {
    h.github.with(|g| {
        let body = g
            .requests
            .iter()
            .rev()
            .find(|r| r.method == "POST" && r.path.ends_with("/check-runs"))
            .map(|r| r.body.clone())
            .expect("a check run was posted");
        serde_json::from_str(&body).unwrap()
    })
}

#[tokio::test]
async fn a_push_puts_valid_policies_in_force_and_a_broken_one_is_refused() {
    let (h, head) = admin_harness().await;
    assert!(h
        .state
        .policies
        .current()
        .for_repo("Codertocat/Hello-World")
        .is_none());

    admin_repo_with(&h, VALID);
    let first = "1".repeat(40);
    head.set(&first);
    let (status, _) = h.deliver("push", &push_to_admin(&first)).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    h.run_jobs().await;
    let check = last_policy_check(&h);
    assert_eq!(
        (check["name"].as_str(), check["conclusion"].as_str()),
        (Some("tfgate/policy"), Some("success"))
    );
    assert_eq!(check["head_sha"], first.as_str());
    assert!(h
        .state
        .policies
        .current()
        .for_repo("Codertocat/Hello-World")
        .is_some());
    assert_eq!(h.state.policies.commit(), Some(first.clone()));

    admin_repo_with(&h, BROKEN);
    head.set(&"2".repeat(40));
    h.deliver("push", &push_to_admin(&"2".repeat(40))).await;
    h.run_jobs().await;
    let check = last_policy_check(&h);
    assert_eq!(check["conclusion"], "failure");
    let summary = check["output"]["summary"].as_str().unwrap();
    assert!(
        summary.contains("\npolicies/repo.yaml:4:5: projects[0]: unknown field `aply_role`"),
        "{summary}"
    );
    assert!(
        summary.contains("stay the previous valid ones"),
        "{summary}"
    );
    assert_eq!(
        check["output"]["annotations"][0]["path"],
        "policies/repo.yaml"
    );
    assert_eq!(
        h.state.policies.commit(),
        Some(first.clone()),
        "the valid set stays"
    );
    assert!(
        !summary.contains("123456789012"),
        "no account id is posted: {summary}"
    );

    // Another process on the same database (a worker machine without a volume).
    let other = another_process(&h).await;
    let (tx, rx) = tokio::sync::watch::channel(false);
    let watch = tfgate::worker::policy_repo::spawn_policy_repo_watch(&other, rx).unwrap();
    for _ in 0..100 {
        if other.policies.commit().is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(other.policies.commit(), Some(first));
    assert!(other
        .policies
        .current()
        .for_repo("Codertocat/Hello-World")
        .is_some());
    tx.send(true).unwrap();
    watch.await.unwrap();
}

async fn another_process(h: &Harness) -> std::sync::Arc<AppState> {
    let dir = tempfile::tempdir().unwrap().keep();
    let args = ConfigArgs {
        data_dir: Some(h.state.config.data_dir.clone()),
        database_url: Some(h.state.config.database_url.clone()),
        policy_repo: Some(ADMIN.into()),
        work_dir: Some(dir),
        ..Default::default()
    };
    AppState::build(Config::resolve(&args).unwrap())
        .await
        .unwrap()
}

#[tokio::test]
async fn a_pull_request_to_the_admin_repository_is_checked_but_changes_nothing() {
    let (h, _) = admin_harness().await;
    admin_repo_with(&h, BROKEN);
    let mut pr: Value = serde_json::from_slice(
        &std::fs::read(fixture_path("webhooks/pull_request.opened.json")).unwrap(),
    )
    .unwrap();
    pr["repository"]["name"] = "tfgate-admin".into();
    pr["repository"]["full_name"] = ADMIN.into();
    pr["pull_request"]["head"]["repo"]["full_name"] = ADMIN.into();
    let head = pr["pull_request"]["head"]["sha"]
        .as_str()
        .unwrap()
        .to_string();
    h.deliver("pull_request", &pr).await;
    h.run_jobs().await;
    let check = last_policy_check(&h);
    assert_eq!(
        (check["conclusion"].as_str(), check["head_sha"].as_str()),
        (Some("failure"), Some(head.as_str()))
    );
    assert!(!check["output"]["summary"]
        .as_str()
        .unwrap()
        .contains("previous valid"));
    assert_eq!(
        h.state.policies.commit(),
        None,
        "a PR never changes the policies"
    );
    assert!(
        h.github.comments().is_empty(),
        "no plan on the admin repository"
    );
}

#[tokio::test]
async fn pushes_to_other_repositories_are_not_enqueued() {
    let (h, _) = admin_harness().await;
    let push: Value = serde_json::from_slice(
        &std::fs::read(fixture_path("webhooks/push.default-branch.json")).unwrap(),
    )
    .unwrap();
    let (status, reply) = h.deliver("push", &push).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(reply["outcome"], "ignored");
    assert_eq!(
        reply["detail"],
        "push to a repository other than TFGATE_POLICY_REPO"
    );
    assert_eq!(h.run_jobs().await, 0);
}

/// Issue 38 item 9: a push job that runs after a newer push (retried, redelivered, or simply
/// late) finds its commit is no longer the default branch's head and changes nothing.
#[tokio::test]
async fn a_late_push_job_does_not_put_older_policies_back() {
    let (h, head) = admin_harness().await;
    let (old, new) = ("5".repeat(40), "6".repeat(40));
    admin_repo_with(&h, VALID);
    head.set(&new);
    h.deliver("push", &push_to_admin(&new)).await;
    h.run_jobs().await;
    assert_eq!(h.state.policies.commit(), Some(new.clone()));
    let checks_before = h.github.with(|g| g.check_runs_created.len());

    // The older push's job runs now: its commit is valid, but the branch has moved on.
    h.deliver("push", &push_to_admin(&old)).await;
    h.run_jobs().await;
    assert_eq!(
        h.state.policies.commit(),
        Some(new.clone()),
        "the newer set stays"
    );
    let stored: String = sqlx::query_scalar("SELECT value FROM server_settings WHERE name = $1")
        .bind(tfgate::policy_repo::STORED_POLICIES_SETTING)
        .fetch_one(&h.state.db.pool)
        .await
        .unwrap();
    assert!(stored.contains(&new) && !stored.contains(&old), "{stored}");
    assert_eq!(
        h.github.with(|g| g.check_runs_created.len()),
        checks_before,
        "no check run says the stale commit is in force"
    );
    let audited: Vec<(String, String)> = sqlx::query_as(
        "SELECT result, detail FROM audit_events WHERE action = 'policy.push' ORDER BY id",
    )
    .fetch_all(&h.state.db.pool)
    .await
    .unwrap();
    assert_eq!(audited.len(), 2, "{audited:?}");
    assert_eq!(audited[0].0, "applied");
    assert_eq!(audited[1].0, "stale");
    assert!(
        audited[1].1.contains("branch head 666666666666"),
        "{audited:?}"
    );
}

/// Issue 38 item 11: a pushed policy whose input reads the server's sealing key (a file of
/// its data directory) is refused with the located problem, and the previous set stays.
#[tokio::test]
async fn a_push_whose_input_reads_the_data_directory_is_refused() {
    let (h, head) = admin_harness().await;
    let key = h.state.config.data_dir.join("seal.key");
    let leaking = format!(
        "{VALID}inputs:\n  - name: KEY\n    variable: key\n    source: file:{}\n",
        key.display()
    );
    admin_repo_with(&h, &leaking);
    let sha = "7".repeat(40);
    head.set(&sha);
    h.deliver("push", &push_to_admin(&sha)).await;
    h.run_jobs().await;
    let check = last_policy_check(&h);
    assert_eq!(check["conclusion"], "failure", "{check}");
    let summary = check["output"]["summary"].as_str().unwrap();
    assert!(
        summary.contains("policies/repo.yaml:11:13: file:")
            && summary.contains("tfgate's own files"),
        "{summary}"
    );
    assert_eq!(h.state.policies.commit(), None, "nothing put in force");
}

/// Issue 38 item 11, with a policy directory: a server whose policy reads `TFGATE_*` or the
/// App's key file does not start, and says where.
#[tokio::test]
async fn a_policy_directory_that_reads_tfgate_secrets_stops_the_start() {
    let key = fixture_path("github/test-app-key.pem");
    for (source, says) in [
        ("env:TFGATE_WEBHOOK_SECRET".to_string(), "TFGATE_*"),
        (format!("file:{}", key.display()), "tfgate's own files"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("policies")).unwrap();
        let text = format!("{VALID}inputs:\n  - name: X\n    variable: x\n    source: {source}\n");
        std::fs::write(dir.path().join("policies/repo.yaml"), text).unwrap();
        let args = ConfigArgs {
            data_dir: Some(dir.path().join("data")),
            policy_dir: Some(dir.path().join("policies")),
            private_key_path: Some(key.clone()),
            app_id: Some(4242),
            ..Default::default()
        };
        let error = AppState::build(Config::resolve(&args).unwrap())
            .await
            .err()
            .expect("the server refuses to start");
        let error = format!("{error:#}");
        assert!(
            error.contains("repo.yaml:11:13: ") && error.contains(says),
            "{error}"
        );
    }
}

/// The periodic read (every 5 minutes, and at start) catches a push whose webhook was lost.
#[tokio::test]
async fn the_default_branch_is_read_without_a_webhook() {
    let (h, _) = admin_harness().await;
    admin_repo_with(&h, VALID);
    let branch = h.github.with(|g| g.pr.default_branch.clone());
    let sha = "3".repeat(40);
    Mock::given(method("GET"))
        .and(path(format!("/repos/{ADMIN}/commits/{branch}")))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"sha": sha})))
        .mount(&h.github.server)
        .await;
    tfgate::worker::policy_repo::sync_default_branch(&h.state)
        .await
        .unwrap();
    assert_eq!(h.state.policies.commit(), Some(sha));
    assert!(h
        .state
        .policies
        .current()
        .for_repo("Codertocat/Hello-World")
        .is_some());

    admin_repo_with(&h, BROKEN);
    Mock::given(method("GET"))
        .and(path(format!("/repos/{ADMIN}/commits/{branch}")))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"sha": "4".repeat(40)})))
        .with_priority(1)
        .mount(&h.github.server)
        .await;
    let error = tfgate::worker::policy_repo::sync_default_branch(&h.state)
        .await
        .unwrap_err();
    assert!(
        format!("{error:#}").contains("problem(s); the previous ones stay"),
        "{error:#}"
    );
    assert_eq!(h.state.policies.commit(), Some("3".repeat(40)));
}

/// A command that arrives before the first read of the admin repository (a process that
/// just started) waits for it: the job fails transiently and runs again, and nobody is told
/// that tfgate is "not enabled" for a repository the policies do cover.
#[tokio::test]
async fn a_command_before_the_first_read_waits_instead_of_being_refused() {
    let (h, _) = admin_harness().await;
    admin_repo_with(&h, VALID);
    let before = h.github.comments().len();
    h.deliver("issue_comment", &pr_comment("/plan", "alice"))
        .await;
    let job = tfgate::db::jobs::claim(&h.state.db, "test-worker", 30_000)
        .await
        .unwrap()
        .unwrap();
    use tfgate::jobs::runner::JobHandler;
    let error = tfgate::worker::JobRouter::new(h.state.clone())
        .handle(&job)
        .await
        .unwrap_err();
    assert!(
        matches!(error, tfgate::jobs::JobError::Transient(_)),
        "{error}"
    );
    assert!(
        error
            .to_string()
            .contains("policies have not been read yet"),
        "{error}"
    );
    assert_eq!(h.github.comments().len(), before, "nothing posted");
}
