//! `publish` jobs: a finished run's result, from the outbox, onto the PR. The comment is
//! posted once (a retry first looks for tfgate's marker of this result among the PR's comments,
//! so a create whose answer was lost is found, not repeated), older plan comments are folded
//! (only those tfgate itself wrote), and one check run per root is created (a retry skips those
//! it finds by `external_id`). Every GitHub failure is retried with the job's backoff; no
//! Terraform step runs again.

use std::sync::Arc;

use crate::github::InstallationClient;
use anyhow::anyhow;

use super::{cloudtrail_poll, github_error, installation_client, payload};
use crate::db::publications::{self, PublicationRow};
use crate::github::api::{self, CheckRunRequest, IssueComment};
use crate::github::{check_runs, lists};
use crate::jobs::{ClaimedJob, EnrichJob, EnrichedComment, JobError, NewJob, PublishJob};
use crate::model::view::AnnotationView;
use crate::model::view::ApplyComment;
use crate::model::view::CheckRunText;
use crate::model::view::PlanComment;
use crate::model::RepoRef;
use crate::render::{annotations_for_apply, annotations_for_plan, Renderer};
use crate::run_planner::fold::plans_to_fold;
use crate::run_planner::outbox::{
    check_run_external_id, comment_step, existing_check_run, open_sealed_notice,
    publication_post_id, CommentStep, ExistingCheckRun, RunResult, SeenCheckRun, SeenComment,
    NOTICE_COMMAND,
};
use crate::state::AppState;

pub async fn handle(state: &Arc<AppState>, job: &ClaimedJob) -> Result<(), JobError> {
    let publish: PublishJob = payload(job)?;
    let row = publications::get(&state.db, publish.publication_id)
        .await
        .map_err(JobError::Transient)?
        .ok_or_else(|| {
            let id = publish.publication_id;
            JobError::Permanent(anyhow!("publication {id} no longer exists"))
        })?;
    if row.published_at.is_some() {
        return Ok(());
    }
    if row.command == NOTICE_COMMAND {
        return publish_notice(state, job, &publish, &row).await;
    }
    if let Some(batch_id) = row.batch_id {
        return super::publish_batch::publish_part(state, job, &publish, &row, batch_id).await;
    }
    let result = RunResult::open_sealed(&state.seal_key, &row.result)
        .map_err(|e| JobError::Permanent(e.context(format!("publication {}", row.id))))?;
    let (app, gh) = installation_client(state, &publish.repo)?;
    let target = Target {
        gh: &gh,
        repo: &publish.repo,
        number: publish.number,
        // Nothing can have been posted before the first attempt: no lookups then.
        retry: job.attempts > 1,
        own_slug: &app.slug,
    };
    let comment_id = match row.comment_id {
        Some(id) => id,
        None => post_result(state, &target, &row, &result).await?,
    };
    if let RunResult::Plan { .. } = result {
        supersede_old_plans(
            &state.renderer,
            &gh,
            &publish.repo,
            publish.number,
            comment_id,
        )
        .await
        .map_err(JobError::Transient)?;
    }
    create_check_runs(&state.renderer, &target, &row, &result).await?;
    super::apply_check::post(state, &gh, &publish.repo, publish.number).await?;
    publications::mark_published(&state.db, row.id)
        .await
        .map_err(JobError::Transient)
}

/// Post a notice from the outbox once: a retry first looks for the comment by the post id
/// derived from the row (a create whose answer was lost is found, not repeated).
async fn publish_notice(
    state: &AppState,
    job: &ClaimedJob,
    publish: &PublishJob,
    row: &PublicationRow,
) -> Result<(), JobError> {
    if row.comment_id.is_none() {
        let notice = open_sealed_notice(&state.seal_key, &row.result)
            .map_err(|e| JobError::Permanent(e.context(format!("publication {}", row.id))))?;
        let (_, gh) = installation_client(state, &publish.repo)?;
        let (repo, number) = (&publish.repo, publish.number);
        let post_id = publication_post_id(&row.result);
        let found = match job.attempts > 1 {
            true => api::comment_with_post_id(&gh, repo, number, &post_id)
                .await
                .map_err(github_error)?,
            false => None,
        };
        let id = match found {
            Some(id) => id,
            None => {
                let body = state
                    .renderer
                    .render_notice(&notice)
                    .map_err(|e| JobError::Permanent(anyhow!("rendering a notice: {e}")))?;
                api::create_comment_with_post_id(&gh, repo, number, &body, &post_id)
                    .await
                    .map_err(github_error)?
                    .id
            }
        };
        publications::record_comment(&state.db, row.id, id, None)
            .await
            .map_err(JobError::Transient)?;
    }
    publications::mark_published(&state.db, row.id)
        .await
        .map_err(JobError::Transient)
}

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

/// Post the result comment unless an earlier attempt did, and record it (with the CloudTrail
/// polls an apply's unclear permission failures need, in the same transaction).
async fn post_result(
    state: &AppState,
    target: &Target<'_>,
    row: &PublicationRow,
    result: &RunResult,
) -> Result<i64, JobError> {
    let listed = match target.retry {
        true => api::list_comments(target.gh, target.repo, target.number)
            .await
            .map_err(JobError::Transient)?,
        false => Vec::new(),
    };
    let seen: Vec<SeenComment<'_>> = listed.iter().map(seen_comment).collect();
    let own_login = format!("{}[bot]", target.own_slug);
    let id = match comment_step(result, &own_login, &seen) {
        CommentStep::Found(id) => id,
        CommentStep::Create => {
            let body = render_result(&state.renderer, result)?;
            api::create_comment(target.gh, target.repo, target.number, &body)
                .await
                .map_err(JobError::Transient)?
                .id
        }
    };
    let follow_up = enrich_job(state, target, result, id);
    publications::record_comment(&state.db, row.id, id, follow_up)
        .await
        .map_err(JobError::Transient)?;
    Ok(id)
}

fn seen_comment(c: &IssueComment) -> SeenComment<'_> {
    SeenComment {
        id: c.id,
        author: c.user.as_ref().map(|u| u.login.as_str()),
        body: c.body.as_deref(),
    }
}

fn render_result(renderer: &Renderer, result: &RunResult) -> Result<String, JobError> {
    match result {
        RunResult::Plan { comment, .. } => renderer.render_plan(comment),
        RunResult::Apply { comment, .. } => renderer.render_apply(comment),
    }
    .map_err(|e| JobError::Permanent(anyhow!("rendering a result comment: {e}")))
}

/// The first CloudTrail poll of a result's unclear permission failures (an apply's or a
/// plan's), and its delay.
fn enrich_job(
    state: &AppState,
    target: &Target<'_>,
    result: &RunResult,
    comment_id: i64,
) -> Option<(NewJob, i64)> {
    let (comment, pending) = match result {
        RunResult::Apply { comment, pending } => (EnrichedComment::Apply(comment.clone()), pending),
        RunResult::Plan { comment, pending } => (EnrichedComment::Plan(comment.clone()), pending),
    };
    if pending.is_empty() {
        return None;
    }
    let job = EnrichJob {
        repo: target.repo.clone(),
        number: target.number,
        comment_id,
        comment,
        pending: pending.clone(),
        attempt: 0,
    };
    let delay = state.config.enrich_schedule.first().copied();
    let delay_ms = delay.unwrap_or_default().as_millis() as i64;
    Some((cloudtrail_poll::new_job(state, &job), delay_ms))
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
