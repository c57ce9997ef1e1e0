//! What every publish of a run's result shares: where it goes ([`Target`]), the check run of
//! each root (created once; a retry skips those it finds by `external_id`) and the folding of
//! older plan comments. Used by `publish` (one job's result) and `publish_batch` (one root of a
//! split `/plan`).

use crate::crypto::SealKey;
use crate::db::publications::PublicationRow;
use crate::github::api::{self, CheckRunRequest, IssueComment};
use crate::github::{check_runs, lists, InstallationClient};
use crate::jobs::{ClaimedJob, JobError, PublishJob};
use crate::model::view::{AnnotationView, ApplyComment, CheckRunText, PlanComment};
use crate::model::RepoRef;
use crate::render::{annotations_for_apply, annotations_for_plan, Renderer};
use crate::run_planner::fold::plans_to_fold;
use crate::run_planner::outbox::{
    check_run_external_id, existing_check_run, ExistingCheckRun, RunResult, SeenCheckRun,
    SeenComment,
};

/// Where a result goes.
pub(super) struct Target<'a> {
    pub gh: &'a InstallationClient,
    pub repo: &'a RepoRef,
    pub number: i64,
    /// An earlier attempt may have posted part of the result.
    pub retry: bool,
    /// tfgate's App slug: its comments are `<slug>[bot]`'s, its check runs the App's.
    pub own_slug: &'a str,
}

impl<'a> Target<'a> {
    /// The PR of `publish`, posted to as the App `own_slug`; nothing can have been posted
    /// before the job's first attempt, so no lookups then.
    pub fn of(
        gh: &'a InstallationClient,
        own_slug: &'a str,
        publish: &'a PublishJob,
        job: &ClaimedJob,
    ) -> Target<'a> {
        Target {
            gh,
            repo: &publish.repo,
            number: publish.number,
            retry: job.attempts > 1,
            own_slug,
        }
    }
}

/// The run result a publication row holds.
pub(super) fn open_result(key: &SealKey, row: &PublicationRow) -> Result<RunResult, JobError> {
    RunResult::open_sealed(key, &row.result)
        .map_err(|e| JobError::Permanent(e.context(format!("publication {}", row.id))))
}

pub(super) fn seen_comment(c: &IssueComment) -> SeenComment<'_> {
    SeenComment {
        id: c.id,
        author: c.user.as_ref().map(|u| u.login.as_str()),
        body: c.body.as_deref(),
    }
}

/// One check run per root, each created once: a retry skips those it finds by `external_id`.
pub(super) async fn create_check_runs(
    renderer: &Renderer,
    target: &Target<'_>,
    row: &PublicationRow,
    result: &RunResult,
) -> Result<(), JobError> {
    let listed = match target.retry {
        true => lists::check_runs(target.gh, target.repo, &row.head_sha)
            .await
            .map_err(JobError::Transient)?,
        false => Vec::new(),
    };
    let seen: Vec<SeenCheckRun<'_>> = listed
        .iter()
        .map(|c| SeenCheckRun {
            id: c.id,
            completed: c.conclusion.is_some(),
            name: &c.name,
            external_id: c.external_id.as_deref(),
            app_slug: c.app.as_ref().and_then(|a| a.slug.as_deref()),
        })
        .collect();
    for check in check_run_texts(renderer, result) {
        let external_id = check_run_external_id(row.job_id, &check.project);
        let existing = existing_check_run(&seen, target.own_slug, &check.name, &external_id);
        let req = CheckRunRequest {
            name: &check.name,
            head_sha: &row.head_sha,
            external_id: Some(&external_id),
            conclusion: check.conclusion,
            title: &check.text.title,
            summary: &check.text.summary,
            text: &check.text.text,
            annotations: &check.annotations,
        };
        let sent = match existing {
            ExistingCheckRun::Completed => continue,
            ExistingCheckRun::Missing => api::create_check_run(target.gh, target.repo, &req).await,
            ExistingCheckRun::Unfinished(id) => {
                check_runs::finish_check_run(target.gh, target.repo, id, &req).await
            }
        };
        sent.map_err(JobError::Transient)?;
    }
    Ok(())
}

/// One root's check run, rendered.
struct CheckRunSpec {
    project: String,
    name: String,
    conclusion: &'static str,
    text: CheckRunText,
    annotations: Vec<AnnotationView>,
}

/// The check run of each root (a root whose text does not render gets none).
fn check_run_texts(renderer: &Renderer, result: &RunResult) -> Vec<CheckRunSpec> {
    let rendered = result.check_runs().into_iter().enumerate();
    rendered
        .filter_map(|(i, (project, name, conclusion))| {
            let (text, annotations) = match result {
                RunResult::Plan { comment, .. } => {
                    let one = PlanComment {
                        repo_root_summaries: vec![comment.repo_root_summaries[i].clone()],
                        ..comment.clone()
                    };
                    (
                        renderer.check_run_plan(&one).ok()?,
                        annotations_for_plan(&one),
                    )
                }
                RunResult::Apply { comment, .. } => {
                    let one = ApplyComment {
                        roots: vec![comment.roots[i].clone()],
                        ..comment.clone()
                    };
                    (
                        renderer.check_run_apply(&one).ok()?,
                        annotations_for_apply(&one),
                    )
                }
            };
            Some(CheckRunSpec {
                project,
                name,
                conclusion,
                text,
                annotations,
            })
        })
        .collect()
}

/// Fold every earlier plan comment of the PR (not `keep`) under an "outdated" summary
/// (`run_planner::fold` picks them, `plan_outdated.md.j2` words the fold). Folding is
/// idempotent: a folded comment is never folded again.
pub async fn supersede_old_plans(
    renderer: &Renderer,
    gh: &InstallationClient,
    repo: &RepoRef,
    number: i64,
    keep: i64,
) -> anyhow::Result<()> {
    let comments = api::list_comments(gh, repo, number).await?;
    let seen: Vec<SeenComment<'_>> = comments.iter().map(seen_comment).collect();
    let prefix = renderer.plan_outdated_prefix()?;
    for id in plans_to_fold(&seen, keep, &prefix) {
        let Some(body) = comments
            .iter()
            .find(|c| c.id == id)
            .and_then(|c| c.body.as_deref())
        else {
            continue;
        };
        let folded = renderer.render_plan_outdated(body)?;
        api::update_comment(gh, repo, id, &folded).await?;
    }
    Ok(())
}

#[cfg(test)]
#[path = "publish_tests.rs"]
mod tests;
