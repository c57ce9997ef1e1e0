//! Which comments `supersede_old_plans` folds (the table over authors and markers is
//! `run_planner::fold`'s): the real octocrab calls against a fake GitHub (wiremock) serving a
//! user comment that carries a pasted plan marker.

use super::*;
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const PLAN_MARKER: &str = "<!-- tfgate:kind=plan:pr=7:root=all:run=r-1 -->";
const BOT: &str = "tfgate-acme[bot]";

fn plan_body() -> String {
    format!("## tfgate plan\n\n{PLAN_MARKER}")
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
    let renderer = Renderer::new().unwrap();
    supersede_old_plans(&renderer, &gh, &repo, 7, 13)
        .await
        .unwrap();
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
