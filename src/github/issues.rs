//! Repository issues tfgate keeps (the drift report): find it by its hidden marker, create
//! it once, update or close it in place.

use anyhow::{Context, Result};
use serde::Deserialize;
use serde_json::json;

use super::http::{Call, Delivered, InstallationClient};
use crate::webhook::event::RepoRef;

#[derive(Debug, Clone, Deserialize)]
struct IssueItem {
    number: i64,
    #[serde(default)]
    title: String,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    pull_request: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Deserialize)]
struct CreatedIssue {
    number: i64,
}

/// The newest issue (open or closed, not a pull request) titled `title` whose body holds
/// `marker`, among the repository's 100 most recently updated.
pub async fn find_marked_issue(
    gh: &InstallationClient,
    repo: &RepoRef,
    title: &str,
    marker: &str,
) -> Result<Option<i64>> {
    let route = format!(
        "/repos/{}/{}/issues?state=all&sort=updated&direction=desc&per_page=100",
        repo.owner, repo.name
    );
    let items: Vec<IssueItem> = gh.get(&route).await.context("listing issues")?;
    Ok(items
        .into_iter()
        .find(|i| {
            i.pull_request.is_none()
                && i.title == title
                && i.body.as_deref().is_some_and(|b| b.contains(marker))
        })
        .map(|i| i.number))
}

/// Creates the issue; after an answer that may have come after the write, the issue is
/// looked for by its marker before it is created again.
pub async fn create_marked_issue(
    gh: &InstallationClient,
    repo: &RepoRef,
    title: &str,
    body: &str,
    marker: &str,
) -> Result<i64> {
    let route = format!("/repos/{}/{}/issues", repo.owner, repo.name);
    let payload = json!({ "title": title, "body": body });
    let call = Call {
        method: &http::Method::POST,
        route: &route,
        body: Some(&payload),
        idempotent: false,
    };
    let delivered = gh
        .deliver(call, || find_marked_issue(gh, repo, title, marker))
        .await
        .context("creating an issue")?;
    match delivered {
        Delivered::Answer(text) => serde_json::from_str::<CreatedIssue>(&text)
            .map(|c| c.number)
            .context("GitHub's answer to a new issue is not JSON"),
        Delivered::AlreadyDone(number) => Ok(number),
    }
}

/// Replaces the issue's body and, when given, sets its state (`open`, `closed`).
pub async fn update_issue(
    gh: &InstallationClient,
    repo: &RepoRef,
    number: i64,
    body: &str,
    state: Option<&str>,
) -> Result<()> {
    let route = format!("/repos/{}/{}/issues/{number}", repo.owner, repo.name);
    let mut payload = json!({ "body": body });
    if let Some(state) = state {
        payload["state"] = state.into();
    }
    let _: serde_json::Value = gh
        .patch(&route, &payload)
        .await
        .context("updating an issue")?;
    Ok(())
}
