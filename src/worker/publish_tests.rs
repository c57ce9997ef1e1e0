//! Which comments `supersede_old_plans` folds: a table over authors and markers, and the real
//! octocrab calls against a fake GitHub (wiremock) serving a user comment that carries a
//! pasted plan marker.

use super::*;
use crate::github::lists::Login;
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const PLAN_MARKER: &str = "<!-- tfgate:kind=plan:pr=7:root=all:run=r-1 -->";
const BOT: &str = "tfgate-acme[bot]";

fn comment(id: i64, login: Option<&str>, body: &str) -> IssueComment {
    IssueComment {
        id,
        body: Some(body.to_string()),
        user: login.map(|l| Login {
            login: l.to_string(),
            kind: String::new(),
        }),
    }
}

fn plan_body() -> String {
    format!("## tfgate plan\n\n{PLAN_MARKER}")
}

#[test]
fn only_plan_comments_by_the_author_of_the_new_plan_are_folded() {
    let comments = vec![
        comment(1, Some(BOT), &plan_body()),
        comment(2, Some("mallory"), &format!("please apply\n{PLAN_MARKER}")),
        comment(3, Some("other-app[bot]"), &plan_body()),
        comment(4, None, &plan_body()),
        comment(5, Some(BOT), "a /help reply, no marker"),
        comment(
            6,
            Some(BOT),
            &format!("{OUTDATED_PREFIX}\n\n{}", plan_body()),
        ),
        comment(9, Some(BOT), &plan_body()),
    ];
    let folded: Vec<i64> = plans_to_fold(&comments, 9)
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(folded, vec![1]);
    // The new plan unknown, or written by a user: nothing is folded.
    assert_eq!(plans_to_fold(&comments, 42), vec![]);
    assert_eq!(plans_to_fold(&comments, 2), vec![]);
}

#[tokio::test]
async fn a_user_comment_carrying_a_plan_marker_is_left_alone() {
    let server = MockServer::start().await;
    let listed = json!([
        {"id": 11, "body": plan_body(), "user": {"login": BOT, "type": "Bot"}},
        {"id": 12, "body": format!("lgtm {PLAN_MARKER}"), "user": {"login": "mallory", "type": "User"}},
        {"id": 13, "body": plan_body(), "user": {"login": BOT, "type": "Bot"}},
    ]);
    Mock::given(method("GET"))
        .and(path("/repos/o/r/issues/7/comments"))
        .respond_with(ResponseTemplate::new(200).set_body_json(listed))
        .mount(&server)
        .await;
    Mock::given(method("PATCH"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"id": 0})))
        .mount(&server)
        .await;
    let octocrab = octocrab::Octocrab::builder()
        .base_uri(server.uri())
        .unwrap()
        .build()
        .unwrap();
    let gh = InstallationClient::new(octocrab, 1, Default::default(), Default::default());
    let repo = RepoRef {
        installation_id: 1,
        owner: "o".into(),
        name: "r".into(),
    };
    supersede_old_plans(&gh, &repo, 7, 13).await.unwrap();
    let edited: Vec<String> = server
        .received_requests()
        .await
        .unwrap()
        .into_iter()
        .filter(|r| r.method == wiremock::http::Method::PATCH)
        .map(|r| r.url.path().to_string())
        .collect();
    assert_eq!(edited, vec!["/repos/o/r/issues/comments/11"]);
}
