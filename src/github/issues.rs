//! Repository issues tfgate keeps (the drift report): find it by its hidden marker, create
//! it once, update or close it in place.

use anyhow::{Context, Result};
use serde::Deserialize;
use serde_json::json;

use super::http::{Call, Delivered, InstallationClient};
use crate::model::RepoRef;

#[derive(Debug, Clone, Deserialize)]
struct IssueItem {
    number: i64,
    #[serde(default)]
    title: String,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    pull_request: Option<serde_json::Value>,
    #[serde(default)]
    user: Option<IssueUser>,
}

#[derive(Debug, Clone, Deserialize)]
struct IssueUser {
    login: String,
}

#[derive(Debug, Clone, Deserialize)]
struct CreatedIssue {
    number: i64,
}

/// The issue tfgate looks for: its title, its hidden marker, and who opened it (tfgate's own
/// bot user, `<slug>[bot]`). Title and marker are public: anyone can open an issue carrying
/// them, so only the author tells tfgate's issue from a forged one.
#[derive(Debug, Clone, Copy)]
pub struct MarkedIssue<'a> {
    pub title: &'a str,
    pub marker: &'a str,
    pub own_login: &'a str,
}

/// The first of `items` (newest first) that is an issue (not a pull request) opened by
/// `own_login` with the title and the marker.
fn pick_marked(items: &[IssueItem], wanted: MarkedIssue<'_>) -> Option<i64> {
    items
        .iter()
        .find(|i| {
            i.pull_request.is_none()
                && i.user.as_ref().is_some_and(|u| u.login == wanted.own_login)
                && i.title == wanted.title
                && i.body.as_deref().is_some_and(|b| b.contains(wanted.marker))
        })
        .map(|i| i.number)
}

/// The newest issue (open or closed, not a pull request) opened by tfgate itself, titled and
/// marked as `wanted` says, among the repository's 100 most recently updated.
pub async fn find_marked_issue(
    gh: &InstallationClient,
    repo: &RepoRef,
    wanted: MarkedIssue<'_>,
) -> Result<Option<i64>> {
    let route = format!(
        "/repos/{}/{}/issues?state=all&sort=updated&direction=desc&per_page=100",
        repo.owner, repo.name
    );
    let items: Vec<IssueItem> = gh.get(&route).await.context("listing issues")?;
    Ok(pick_marked(&items, wanted))
}

/// Creates the issue; after an answer that may have come after the write, the issue is
/// looked for by its marker before it is created again.
pub async fn create_marked_issue(
    gh: &InstallationClient,
    repo: &RepoRef,
    wanted: MarkedIssue<'_>,
    body: &str,
) -> Result<i64> {
    let route = format!("/repos/{}/{}/issues", repo.owner, repo.name);
    let payload = json!({ "title": wanted.title, "body": body });
    let call = Call {
        method: &http::Method::POST,
        route: &route,
        body: Some(&payload),
        idempotent: false,
    };
    let delivered = gh
        .deliver(call, || find_marked_issue(gh, repo, wanted))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn item(number: i64, login: &str, title: &str, body: &str) -> IssueItem {
        IssueItem {
            number,
            title: title.into(),
            body: Some(body.into()),
            pull_request: None,
            user: Some(IssueUser {
                login: login.into(),
            }),
        }
    }

    #[test]
    fn only_an_issue_opened_by_tfgate_itself_counts() {
        let wanted = MarkedIssue {
            title: "report",
            marker: "<!-- m -->",
            own_login: "tfgate[bot]",
        };
        let forged = item(9, "mallory", "report", "x <!-- m -->");
        let other_app = item(8, "other[bot]", "report", "<!-- m -->");
        let ours = item(3, "tfgate[bot]", "report", "<!-- m --> body");
        let unmarked = item(2, "tfgate[bot]", "report", "no marker");
        let cases: Vec<(Vec<IssueItem>, Option<i64>)> = vec![
            (
                vec![forged.clone(), other_app.clone(), ours.clone()],
                Some(3),
            ),
            (vec![forged.clone(), other_app], None),
            (vec![unmarked, forged], None),
            (
                vec![IssueItem {
                    user: None,
                    ..ours.clone()
                }],
                None,
            ),
            (
                vec![IssueItem {
                    pull_request: Some(serde_json::json!({})),
                    ..ours
                }],
                None,
            ),
        ];
        for (items, expected) in cases {
            assert_eq!(pick_marked(&items, wanted), expected, "{items:?}");
        }
    }
}
