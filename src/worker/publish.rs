//! `publish` jobs: a finished run's result, from the outbox, onto the PR. The comment is
//! posted once (a retry first looks for tfgate's marker of this result among the PR's comments,
//! so a create whose answer was lost is found, not repeated), older plan comments are folded
//! (only those tfgate itself wrote), and one check run per root is created (a retry skips those
//! it finds by `external_id`). Every GitHub failure is retried with the job's backoff; no
//! Terraform step runs again.

use std::sync::Arc;

use anyhow::anyhow;

use super::publish_checks::{
    create_check_runs, open_result, seen_comment, supersede_old_plans, Target,
};
use super::{cloudtrail_poll, github_error, installation_client, payload};
use crate::db::publications::{self, PublicationRow};
use crate::github::api;
use crate::jobs::{ClaimedJob, EnrichJob, EnrichedComment, JobError, NewJob, PublishJob};
use crate::render::Renderer;
use crate::run_planner::outbox::{
    comment_step, open_sealed_notice, publication_post_id, CommentStep, RunResult, SeenComment,
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
    let result = open_result(&state.seal_key, &row)?;
    let (app, gh) = installation_client(state, &publish.repo)?;
    let target = Target::of(&gh, &app.slug, &publish, job);
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
    if let RunResult::Plan { .. } = result {
        let head = &row.head_sha;
        super::plan_policy_check::post(state, &gh, &publish.repo, publish.number, head).await?;
    }
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
