//! Scenario tests for webhook intake and comment commands: a signed delivery in, the
//! database rows and the GitHub calls out. Each runs on SQLite and on PostgreSQL.

mod support;

use axum::http::StatusCode;
use support::*;

/// tfgate answers only on repositories with a policy, to commenters it lets plan.
fn policy() -> String {
    one_root_policy("network", "infra/network", "")
}

fn alice_may_plan(h: &Harness) {
    h.github
        .with(|g| g.permissions.insert("alice".into(), "write".into()));
}

scenario!(help_gets_the_help_text, policy = &policy(), |h| {
    alice_may_plan(&h);
    let (status, _) = h
        .deliver("issue_comment", &pr_comment("/help", "alice"))
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(h.run_jobs().await, 1);
    let comments = h.github.comments();
    assert_eq!(comments.len(), 1);
    assert_eq!(comments[0].number, 1);
    assert!(comments[0].body.contains("/plan") && comments[0].body.contains("/apply"));
    assert!(h.github.reactions().is_empty());
});

scenario!(accepted_command_gets_eyes, policy = &policy(), |h| {
    alice_may_plan(&h);
    let comment = pr_comment("/plan -d infra/network", "alice");
    h.deliver("issue_comment", &comment).await;
    h.run_jobs_except(&["run"]).await;
    let id = comment["comment"]["id"].as_i64().unwrap();
    assert_eq!(h.github.reactions(), vec![(id, "eyes".to_string())]);
    assert_eq!(h.github.token_requests(), 1);
});

#[tokio::test]
async fn the_tarball_token_is_requested_once_per_installation_until_forgotten() {
    let github = support::fake_github::FakeGitHub::start().await;
    let pem = std::fs::read_to_string(fixture_path("github/test-app-key.pem")).unwrap();
    let app = tfgate::github::GitHubApp::new(
        4242,
        "tfgate".into(),
        &secrecy::SecretString::from(pem),
        &github.url(),
    )
    .unwrap();
    use secrecy::ExposeSecret;
    let first = app.installation_token(1).await.unwrap();
    let again = app.installation_token(1).await.unwrap();
    assert_eq!(first.expose_secret(), again.expose_secret());
    assert_eq!(github.token_requests(), 1);
    app.installation_token(2).await.unwrap();
    assert_eq!(
        github.token_requests(),
        2,
        "another installation, another token"
    );
    app.forget_installation(1);
    app.installation_token(1).await.unwrap();
    assert_eq!(
        github.token_requests(),
        3,
        "an uninstalled installation's token is dropped"
    );
}

scenario!(rejected_flag_gets_exact_reply, policy = &policy(), |h| {
    alice_may_plan(&h);
    h.deliver(
        "issue_comment",
        &pr_comment("/plan -- -chdir=/etc", "alice"),
    )
    .await;
    h.run_jobs().await;
    let comments = h.github.comments();
    assert_eq!(comments.len(), 1);
    assert!(comments[0].body.contains("-chdir"), "{}", comments[0].body);
    assert!(h.github.reactions().is_empty());
});

scenario!(edited_comment_never_executes, |h| {
    let mut v = webhook_fixture("issue_comment.edited.json");
    v["comment"]["body"] = "/apply".into();
    v["installation"] = serde_json::json!({"id": 1});
    let (status, reply) = h.deliver("issue_comment", &v).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(reply["outcome"], "ignored");
    assert_eq!(h.job_count().await, 0);
});

scenario!(redelivery_enqueues_nothing, |h| {
    let body = pr_comment("/plan", "alice");
    let queued = |n| format!("tfgate_jobs_total{{kind=\"comment\",status=\"queued\"}} {n}");
    assert!(h.metrics().await.contains(&queued(0)));
    let (s1, r1) = h.deliver_with_id("issue_comment", &body, "dup-1").await;
    let (s2, r2) = h.deliver_with_id("issue_comment", &body, "dup-1").await;
    assert_eq!(
        (s1, r1["outcome"].as_str()),
        (StatusCode::ACCEPTED, Some("enqueued"))
    );
    assert_eq!(
        (s2, r2["outcome"].as_str()),
        (StatusCode::OK, Some("duplicate"))
    );
    assert_eq!(h.job_count().await, 1);
    assert!(h.metrics().await.contains(&queued(1)));
});

// Issue 38 item 8: the metrics name repositories and projects; the public port does not
// serve them (they are on `--metrics-addr`, loopback by default).
scenario!(metrics_are_not_on_the_public_router, |h| {
    let (status, body) = h.get("/metrics").await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert!(!body.contains("tfgate_"), "{body}");
    assert!(h.metrics().await.contains("tfgate_job_queue_depth"));
});

scenario!(bad_signature_is_401_and_stores_nothing, |h| {
    let body = pr_comment("/apply", "mallory");
    let (status, _) = h
        .deliver_signed_by("wrong-secret", "issue_comment", &body, "sig-1")
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(h.job_count().await, 0);
    let metrics = h.metrics().await;
    assert!(metrics.contains("outcome=\"bad_signature\""));
    assert!(metrics.contains("tfgate_jobs_total{kind=\"comment\",status=\"queued\"} 0"));
});

scenario!(rotated_secret_still_accepted, |h| {
    let body = pr_comment("/plan", "alice");
    let (status, _) = h
        .deliver_signed_by("old-secret", "issue_comment", &body, "rot-1")
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(h.job_count().await, 1);
});

scenario!(bad_input_is_4xx_and_server_keeps_serving, |h| {
    let good = serde_json::to_vec(&pr_comment("/plan", "a")).unwrap();
    let sig = tfgate::webhook::signature::sign(SECRET, &good);
    let malformed = b"{not json".to_vec();
    let msig = tfgate::webhook::signature::sign(SECRET, &malformed);
    type Case<'a> = (Vec<(&'a str, &'a str)>, Vec<u8>, StatusCode);
    let cases: Vec<Case> = vec![
        (
            vec![
                ("x-github-delivery", "m1"),
                ("x-hub-signature-256", &sig),
                ("content-type", "application/json"),
            ],
            good.clone(),
            StatusCode::BAD_REQUEST,
        ),
        (
            vec![
                ("x-github-event", "issue_comment"),
                ("x-hub-signature-256", &sig),
                ("content-type", "application/json"),
            ],
            good.clone(),
            StatusCode::BAD_REQUEST,
        ),
        (
            vec![
                ("x-github-event", "issue_comment"),
                ("x-github-delivery", "m2"),
                ("x-hub-signature-256", &sig),
                ("content-type", "application/x-www-form-urlencoded"),
            ],
            good.clone(),
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
        ),
        (
            vec![
                ("x-github-event", "issue_comment"),
                ("x-github-delivery", "m3"),
                ("content-type", "application/json"),
            ],
            good.clone(),
            StatusCode::UNAUTHORIZED,
        ),
        (
            vec![
                ("x-github-event", "issue_comment"),
                ("x-github-delivery", "m4"),
                ("x-hub-signature-256", &msig),
                ("content-type", "application/json"),
            ],
            malformed,
            StatusCode::BAD_REQUEST,
        ),
        (
            vec![
                ("x-github-event", "Not An Event"),
                ("x-github-delivery", "m5"),
                ("x-hub-signature-256", &sig),
                ("content-type", "application/json"),
            ],
            good.clone(),
            StatusCode::BAD_REQUEST,
        ),
    ];
    for (headers, body, want) in cases {
        let (status, reply) = h.post_raw(&headers, body).await;
        assert_eq!(status, want, "{headers:?}");
        assert!(reply["detail"].as_str().is_some_and(|d| !d.is_empty()));
    }
    let huge = vec![b' '; tfgate::config::DEFAULT_MAX_BODY_BYTES + 1];
    let hsig = tfgate::webhook::signature::sign(SECRET, &huge);
    let (status, _) = h
        .post_raw(
            &[
                ("x-github-event", "issue_comment"),
                ("x-github-delivery", "m6"),
                ("x-hub-signature-256", &hsig),
                ("content-type", "application/json"),
            ],
            huge,
        )
        .await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(h.job_count().await, 0);
    let (status, _) = h.deliver("issue_comment", &pr_comment("/plan", "a")).await;
    assert_eq!(status, StatusCode::ACCEPTED);
});

scenario!(ping_and_unhandled_events, |h| {
    let (status, reply) = h.deliver("ping", &webhook_fixture("ping.json")).await;
    assert_eq!(
        (status, reply["outcome"].as_str()),
        (StatusCode::OK, Some("ignored"))
    );
    let (status, _) = h
        .deliver("star", &serde_json::json!({"action": "created"}))
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    // A push is only work for the policy repository (none is configured here).
    let (status, reply) = h
        .deliver("push", &webhook_fixture("push.default-branch.json"))
        .await;
    assert_eq!(
        (status, reply["outcome"].as_str()),
        (StatusCode::ACCEPTED, Some("ignored"))
    );
    assert_eq!(h.job_count().await, 0);
});

scenario!(pull_request_and_review_events_are_recorded, |h| {
    for (event, file) in [
        ("pull_request", "pull_request.opened.json"),
        ("pull_request", "pull_request.closed.json"),
        ("pull_request_review", "pull_request_review.submitted.json"),
        ("installation", "installation.created.json"),
    ] {
        let (status, _) = h.deliver(event, &webhook_fixture(file)).await;
        assert_eq!(status, StatusCode::ACCEPTED, "{file}");
    }
    assert_eq!(h.run_jobs().await, 4);
    let audit = tfgate::db::audit::recent(&h.state.db, 10).await.unwrap();
    let actions: Vec<&str> = audit.iter().map(|a| a.action.as_str()).collect();
    assert!(
        actions.contains(&"pull_request.opened") && actions.contains(&"installation.created"),
        "{actions:?}"
    );
});

scenario!(health_and_setup_pages, |h| {
    assert_eq!(
        h.get("/healthz").await,
        (StatusCode::OK, "ok\n".to_string())
    );
    let (status, page) = h.get("/").await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("tfgate"), "{page}");
});
