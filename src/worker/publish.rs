//! After a result comment: older plan comments are marked outdated (found by their hidden
//! marker, and only those tfgate itself wrote), and one check run per root carries the same summary with annotations. Failures
//! here are logged and never fail the run (the comment is what matters).

use crate::github::InstallationClient;

use crate::github::api::{self, CheckRunRequest, IssueComment};
use crate::render::{
    annotations_for_apply, annotations_for_plan, parse_marker, ApplyComment, ApplyStatus,
    CommentKind, PlanComment, PlanStatus, Renderer,
};
use crate::webhook::event::RepoRef;

const OUTDATED_PREFIX: &str =
    "<details><summary>🕘 Outdated plan: a newer plan was posted below</summary>";

/// Fold every earlier plan comment of the PR (not `keep`) under an "outdated" summary.
pub async fn supersede_old_plans(gh: &InstallationClient, repo: &RepoRef, number: i64, keep: i64) {
    let comments = match api::list_comments(gh, repo, number).await {
        Ok(c) => c,
        Err(e) => {
            tracing::warn!(error = %format!("{e:#}"), "could not list comments to mark old plans");
            return;
        }
    };
    for (id, folded) in plans_to_fold(&comments, keep) {
        if let Err(e) = api::update_comment(gh, repo, id, &folded).await {
            tracing::warn!(error = %format!("{e:#}"), comment = id, "could not mark an old plan outdated");
        }
    }
}

/// The earlier plan comments to fold, with their folded bodies: those carrying a plan marker
/// and written by the account that wrote `keep` (tfgate's App, `<slug>[bot]`). A marker pasted
/// into anyone else's comment is ignored, so no one can make tfgate edit their comment. Nothing
/// is folded when `keep` is not in the list (its author is unknown).
pub fn plans_to_fold(comments: &[IssueComment], keep: i64) -> Vec<(i64, String)> {
    let author = |c: &IssueComment| c.user.as_ref().map(|u| u.login.clone());
    let Some(own) = comments
        .iter()
        .find(|c| c.id == keep)
        .and_then(author)
        .filter(|login| login.ends_with("[bot]"))
    else {
        return Vec::new();
    };
    comments
        .iter()
        .filter(|c| c.id != keep && author(c).as_deref() == Some(own.as_str()))
        .filter_map(|c| {
            let body = c.body.as_deref()?;
            let is_plan = parse_marker(body).is_some_and(|m| m.kind == CommentKind::Plan);
            (is_plan && !body.starts_with(OUTDATED_PREFIX))
                .then(|| (c.id, format!("{OUTDATED_PREFIX}\n\n{body}\n\n</details>")))
        })
        .collect()
}

pub async fn plan_check_runs(
    gh: &InstallationClient,
    renderer: &Renderer,
    repo: &RepoRef,
    head: &str,
    comment: &PlanComment,
) {
    for root in &comment.repo_root_summaries {
        let one = PlanComment {
            repo_root_summaries: vec![root.clone()],
            ..comment.clone()
        };
        let conclusion = if root.status == PlanStatus::Failed {
            "failure"
        } else {
            "success"
        };
        let Ok(text) = renderer.check_run_plan(&one) else {
            continue;
        };
        let annotations = annotations_for_plan(&one);
        let name = format!("tfgate plan: {}", root.project);
        post_check(gh, repo, head, &name, conclusion, &text, &annotations).await;
    }
}

pub async fn apply_check_runs(
    gh: &InstallationClient,
    renderer: &Renderer,
    repo: &RepoRef,
    head: &str,
    comment: &ApplyComment,
) {
    for root in &comment.roots {
        let one = ApplyComment {
            roots: vec![root.clone()],
            ..comment.clone()
        };
        let conclusion = match root.status {
            ApplyStatus::Succeeded => "success",
            ApplyStatus::Skipped { .. } => "skipped",
            ApplyStatus::Interrupted => "cancelled",
            ApplyStatus::PartiallyFailed | ApplyStatus::Failed => "failure",
        };
        let Ok(text) = renderer.check_run_apply(&one) else {
            continue;
        };
        let annotations = annotations_for_apply(&one);
        let name = format!("tfgate apply: {}", root.project);
        post_check(gh, repo, head, &name, conclusion, &text, &annotations).await;
    }
}

async fn post_check(
    gh: &InstallationClient,
    repo: &RepoRef,
    head: &str,
    name: &str,
    conclusion: &str,
    text: &crate::render::CheckRunText,
    annotations: &[crate::render::AnnotationView],
) {
    let req = CheckRunRequest {
        name,
        head_sha: head,
        conclusion,
        title: &text.title,
        summary: &text.summary,
        text: &text.text,
        annotations,
    };
    if let Err(e) = api::create_check_run(gh, repo, &req).await {
        tracing::warn!(error = %format!("{e:#}"), check = name, "could not create a check run");
    }
}

#[cfg(test)]
#[path = "publish_tests.rs"]
mod tests;
