use super::*;

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/webhooks/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn only_job(r: &Routed) -> &RoutedJob {
    assert_eq!(r.jobs.len(), 1, "{r:?}");
    &r.jobs[0]
}

#[test]
fn comment_on_pr_becomes_a_comment_job() {
    let r = route(
        "issue_comment",
        &fixture("issue_comment.created.on-pr.json"),
    )
    .unwrap();
    let job = only_job(&r);
    assert_eq!(job.kind, JobKind::Comment);
    assert_eq!(job.pr, Some(1));
    let c: CommentJob = serde_json::from_str(&job.payload).unwrap();
    assert!(c.is_pull_request);
    assert_eq!(c.repo.full_name(), "Codertocat/Hello-World");
    assert_eq!(c.repo.installation_id, 1);
    assert_eq!(c.comment_id, 492700400);
    assert_eq!(c.author, "Codertocat");
    assert!(!c.author_is_bot);
    assert_eq!(r.repo.as_deref(), Some("Codertocat/Hello-World"));
}

#[test]
fn comment_on_issue_is_still_enqueued_but_marked() {
    let r = route("issue_comment", &fixture("issue_comment.created.json")).unwrap();
    let c: CommentJob = serde_json::from_str(&only_job(&r).payload).unwrap();
    assert!(!c.is_pull_request);
}

#[test]
fn edited_comments_never_enqueue() {
    let r = route("issue_comment", &fixture("issue_comment.edited.json")).unwrap();
    assert!(r.jobs.is_empty());
    assert!(r.ignored.unwrap().contains("edited"));
}

#[test]
fn pull_request_actions() {
    for (file, action) in [
        ("pull_request.opened.json", "opened"),
        ("pull_request.synchronize.json", "synchronize"),
        ("pull_request.closed.json", "closed"),
        ("pull_request.reopened.json", "reopened"),
    ] {
        let r = route("pull_request", &fixture(file)).unwrap();
        let job = only_job(&r);
        assert_eq!(job.kind, JobKind::PullRequest, "{file}");
        let p: PullRequestJob = serde_json::from_str(&job.payload).unwrap();
        assert_eq!(p.action, action);
        assert_eq!(p.head_sha.len(), 40);
        assert!(!p.is_fork, "{file}: head and base are the same repo");
        assert_eq!(p.sender, "Codertocat", "{file}: who moved the head");
        let before =
            (action == "synchronize").then_some("f95f852bd8fca8fcc58a9a2d6c842781e32a215e");
        assert_eq!(p.before.as_deref(), before, "{file}");
    }
}

#[test]
fn fork_is_detected_from_head_repo() {
    let mut v: serde_json::Value =
        serde_json::from_slice(&fixture("pull_request.opened.json")).unwrap();
    v["pull_request"]["head"]["repo"]["full_name"] = "mallory/Hello-World".into();
    let r = route("pull_request", &serde_json::to_vec(&v).unwrap()).unwrap();
    let p: PullRequestJob = serde_json::from_str(&only_job(&r).payload).unwrap();
    assert!(p.is_fork);
}

#[test]
fn review_and_installation() {
    let r = route(
        "pull_request_review",
        &fixture("pull_request_review.submitted.json"),
    )
    .unwrap();
    let rv: ReviewJob = serde_json::from_str(&only_job(&r).payload).unwrap();
    assert_eq!(rv.state, "commented");
    let r = route("installation", &fixture("installation.created.json")).unwrap();
    let i: InstallationJob = serde_json::from_str(&only_job(&r).payload).unwrap();
    assert_eq!(i.installation_id, 957387);
    assert_eq!(r.installation_id, Some(957387));
}

#[test]
fn ping_and_unknown_events_are_ignored() {
    assert_eq!(
        route("ping", &fixture("ping.json")).unwrap().ignored,
        Some("ping")
    );
    let r = route("star", b"{\"action\":\"created\"}").unwrap();
    assert!(r.jobs.is_empty());
    assert_eq!(r.ignored, Some("event not handled"));
}

#[test]
fn bad_input_is_a_clear_error() {
    assert_eq!(route("Bad Event", b"{}"), Err(IntakeError::BadEventName));
    assert!(matches!(
        route("issue_comment", b"{not json"),
        Err(IntakeError::MalformedJson(_))
    ));
    assert!(matches!(
        route("issue_comment", b"{\"action\":\"created\"}"),
        Err(IntakeError::MissingFields { .. })
    ));
}

/// Found by `scripts/fuzz.sh webhook_route`: bytes that are not UTF-8 inside a string tfgate
/// skips (`starred_url` of a ping) were accepted, since serde_json checks only the strings it
/// reads. Such a body is not JSON and is refused whatever the event.
#[test]
fn a_body_that_is_not_utf8_is_malformed_json() {
    let not_utf8 = |body: Vec<u8>, field: &[u8]| {
        let at = body.windows(field.len()).position(|w| w == field).unwrap();
        let mut broken = body;
        // Inside the field's string value: `"field": "<here>…`.
        broken[at + field.len() + 4] = 0x93;
        broken
    };
    let ping = fixture("ping.json");
    assert_eq!(route("ping", &ping).unwrap().ignored, Some("ping"));
    let ping = not_utf8(ping, b"\"starred_url\"");
    for event in ["ping", "push", "issue_comment"] {
        let routed = route(event, &ping);
        assert!(
            matches!(&routed, Err(IntakeError::MalformedJson(m)) if m.contains("UTF-8")),
            "{event}: {routed:?}"
        );
    }
    let comment = not_utf8(fixture("issue_comment.created.on-pr.json"), b"\"node_id\"");
    assert!(matches!(
        route("issue_comment", &comment),
        Err(IntakeError::MalformedJson(_))
    ));
}

#[test]
fn bot_comments_are_marked() {
    let mut v: serde_json::Value =
        serde_json::from_slice(&fixture("issue_comment.created.on-pr.json")).unwrap();
    v["comment"]["user"]["type"] = "Bot".into();
    let r = route("issue_comment", &serde_json::to_vec(&v).unwrap()).unwrap();
    let c: CommentJob = serde_json::from_str(&only_job(&r).payload).unwrap();
    assert!(c.author_is_bot);
}

#[test]
fn a_missing_part_is_named_and_wrong_types_are_shape_errors() {
    let missing = |event: &str, body: &str| match route(event, body.as_bytes()) {
        Err(IntakeError::MissingFields { detail, .. }) => detail,
        other => panic!("{event} {body}: {other:?}"),
    };
    assert!(missing(
        "issue_comment",
        r#"{"action":"created","comment":{"id":1,"user":{"login":"a"}}}"#
    )
    .contains("`issue`"));
    assert!(missing(
        "installation",
        r#"{"action":"created","installation":{"id":1},"sender":{"login":"a"}}"#
    )
    .contains("installation.account"));
    assert!(
        missing("pull_request", r#"{"action":"opened","pull_request":7}"#).contains("invalid type")
    );
    // Unhandled events are not parsed beyond their envelope.
    let r = route(
        "check_run",
        br#"{"action":"completed","check_run":{"anything":[1,2]},"installation":{"id":9}}"#,
    )
    .unwrap();
    assert_eq!(
        (r.ignored, r.installation_id),
        (Some("event not handled"), Some(9))
    );
}

#[test]
fn metric_labels_stay_few_for_unsigned_requests() {
    let cases = [
        ("issue_comment", false, "issue_comment"),
        ("pull_request", true, "pull_request"),
        ("check_run", true, "check_run"),
        ("check_run", false, "unsigned"),
        ("made_up_by_anyone_7", false, "invalid"),
        ("made_up_by_anyone", false, "unsigned"),
        ("", false, "invalid"),
        ("Issue-Comment", true, "invalid"),
    ];
    for (event, signed, label) in cases {
        assert_eq!(
            metric_label(event, signed),
            label,
            "{event} signed={signed}"
        );
    }
}

#[test]
fn a_push_to_the_default_branch_becomes_a_push_job() {
    let r = route("push", &fixture("push.default-branch.json")).unwrap();
    assert_eq!(r.jobs.len(), 1);
    assert_eq!(r.jobs[0].kind, JobKind::Push);
    let job: PushJob = serde_json::from_str(&r.jobs[0].payload).unwrap();
    assert_eq!(job.repo.full_name(), "Codertocat/Hello-World");
    assert_eq!(job.repo.installation_id, 1);
    assert_eq!(job.sha, "6113728f27ae82c7b1a177c8d03f9e96e0adf246");
    assert_eq!(job.default_branch, "master");
}

#[test]
fn other_pushes_are_ignored() {
    let base: serde_json::Value =
        serde_json::from_slice(&fixture("push.default-branch.json")).unwrap();
    // (change, why it is ignored)
    type Change = fn(&mut serde_json::Value);
    let table: Vec<(Change, &str)> = vec![
        (
            |v| v["ref"] = "refs/heads/feature".into(),
            "push to a branch other than the default branch",
        ),
        (
            |v| v["ref"] = "refs/tags/v1".into(),
            "push to a branch other than the default branch",
        ),
        (
            |v| v["after"] = "0".repeat(40).into(),
            "the default branch was deleted",
        ),
        (
            |v| {
                v.as_object_mut().unwrap().remove("installation");
            },
            "no installation",
        ),
    ];
    for (change, why) in table {
        let mut v = base.clone();
        change(&mut v);
        let r = route("push", &serde_json::to_vec(&v).unwrap()).unwrap();
        assert!(r.jobs.is_empty(), "{why}");
        assert_eq!(r.ignored, Some(why));
    }
    let mut v = base.clone();
    v["repository"]
        .as_object_mut()
        .unwrap()
        .remove("default_branch");
    assert!(matches!(
        route("push", &serde_json::to_vec(&v).unwrap()),
        Err(IntakeError::MissingFields { .. })
    ));
}
