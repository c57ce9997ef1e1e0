//! `publish` of one root's result of a split `/plan`: the batch's one comment is created by the
//! first part to finish (one publish at a time may create it: `plan_batches`
//! `comment_claimed_until`) and updated in place by the others, each time with every root result
//! recorded so far (`run_planner::plan_split::merge_batch`); roots still planning are shown as
//! such. A publish re-reads the results after it wrote the comment and writes again while more
//! arrived meanwhile, so the last writer always shows them all. The root's check run is added;
//! once no root is left planning, the CloudTrail polls of plan-time denials are queued once.

use anyhow::anyhow;

use super::publish_checks::{create_check_runs, open_result, supersede_old_plans, Target};
use super::{cloudtrail_poll, github_error, installation_client};
use crate::db::plan_batches::{self, PlanBatch};
use crate::db::publications::{self, PublicationRow};
use crate::github::api;
use crate::jobs::{ClaimedJob, EnrichJob, EnrichedComment, JobError, PendingFailure, PublishJob};
use crate::model::view::{CommentMeta, PlanComment};
use crate::run_planner::outbox::{result_marker_root, RunResult};
use crate::run_planner::plan_split::{merge_batch, root_of_result_key};
use crate::state::AppState;

/// How long one publish may hold the right to create the batch's comment.
const CREATE_LEASE_MS: i64 = 60_000;
/// Rewrites of the comment one publish does while more results keep arriving.
const MAX_REWRITES: usize = 8;

pub(super) async fn publish_part(
    state: &AppState,
    job: &ClaimedJob,
    publish: &PublishJob,
    row: &PublicationRow,
    batch_id: i64,
) -> Result<(), JobError> {
    let batch = plan_batches::get(&state.db, batch_id)
        .await
        .map_err(JobError::Transient)?
        .ok_or_else(|| JobError::Permanent(anyhow!("plan batch {batch_id} no longer exists")))?;
    let (app, gh) = installation_client(state, &publish.repo)?;
    let target = Target::of(&gh, &app.slug, publish, job);
    let shown = write_batch_comment(state, &target, &batch).await?;
    publications::record_comment(&state.db, row.id, shown.comment_id, None)
        .await
        .map_err(JobError::Transient)?;
    let result = open_result(&state.seal_key, row)?;
    create_check_runs(&state.renderer, &target, row, &result).await?;
    super::apply_check::post(state, &gh, &publish.repo, publish.number).await?;
    if let RunResult::Plan { .. } = result {
        let head = &row.head_sha;
        super::plan_policy_check::post(state, &gh, &publish.repo, publish.number, head).await?;
    }
    if shown.comment.still_planning.is_empty() && !shown.pending.is_empty() {
        queue_enrichment(state, &target, &batch, shown).await?;
    }
    publications::mark_published(&state.db, row.id)
        .await
        .map_err(JobError::Transient)
}

/// What the batch's comment shows after a publish wrote it.
struct Shown {
    comment_id: i64,
    comment: PlanComment,
    pending: Vec<PendingFailure>,
}

/// Write the batch's comment with every result recorded so far, again while more arrive: done
/// when a read finds no more results than the comment last written shows.
async fn write_batch_comment(
    state: &AppState,
    target: &Target<'_>,
    batch: &PlanBatch,
) -> Result<Shown, JobError> {
    let mut comment_id = batch.comment_id;
    let mut written: Option<(usize, Shown)> = None;
    for writes in 0..=MAX_REWRITES {
        let rows = publications::of_batch(&state.db, batch.id)
            .await
            .map_err(JobError::Transient)?;
        if let Some((shown_rows, shown)) = written {
            if shown_rows == rows.len() {
                return Ok(shown);
            }
        }
        if writes == MAX_REWRITES {
            break;
        }
        let (comment, pending) = merged(state, batch, &rows)?;
        let id = match comment_id {
            Some(id) => {
                // Found by its id from now on: the post id only serves the first creation.
                let body = state.renderer.render_plan(&comment).map_err(render_err)?;
                api::update_comment(target.gh, target.repo, id, &body)
                    .await
                    .map_err(github_error)?;
                id
            }
            None => create_batch_comment(state, target, batch, &comment).await?,
        };
        comment_id = Some(id);
        let shown = Shown {
            comment_id: id,
            comment,
            pending,
        };
        written = Some((rows.len(), shown));
    }
    Err(JobError::Transient(anyhow!(
        "plan batch {}: results kept arriving while its comment was written",
        batch.id
    )))
}

/// Create the batch's comment, one publish at a time; another publish creating it makes this
/// one retry (and then update what the other created).
async fn create_batch_comment(
    state: &AppState,
    target: &Target<'_>,
    batch: &PlanBatch,
    comment: &PlanComment,
) -> Result<i64, JobError> {
    let claimed = plan_batches::claim_comment_creation(&state.db, batch.id, CREATE_LEASE_MS)
        .await
        .map_err(JobError::Transient)?;
    if !claimed {
        return Err(JobError::Transient(anyhow!(
            "plan batch {}: another publish is posting its comment",
            batch.id
        )));
    }
    let post_id = batch_post_id(batch);
    // A publish that died after posting left the comment with this post id.
    let found = api::comment_with_post_id(target.gh, target.repo, target.number, &post_id)
        .await
        .map_err(github_error)?;
    let id = match found {
        Some(id) => id,
        None => {
            let body = state.renderer.render_plan(comment).map_err(render_err)?;
            api::create_comment_with_post_id(target.gh, target.repo, target.number, &body, &post_id)
                .await
                .map_err(github_error)?
                .id
        }
    };
    plan_batches::record_comment(&state.db, batch.id, id)
        .await
        .map_err(JobError::Transient)?;
    supersede_old_plans(&state.renderer, target.gh, target.repo, target.number, id)
        .await
        .map_err(JobError::Transient)?;
    Ok(id)
}

/// The hidden post id of a batch's comment.
fn batch_post_id(batch: &PlanBatch) -> String {
    format!(
        "batch-{}-{}",
        batch.id,
        &batch.head_sha.get(..12).unwrap_or(&batch.head_sha)
    )
}

/// The batch's comment model from the results recorded so far, and their plan-time denials.
fn merged(
    state: &AppState,
    batch: &PlanBatch,
    rows: &[PublicationRow],
) -> Result<(PlanComment, Vec<PendingFailure>), JobError> {
    let mut done: Vec<(String, PlanComment)> = Vec::new();
    let mut pending = Vec::new();
    let mut last: Option<CommentMeta> = None;
    for row in rows {
        let Some(project) = root_of_result_key(&row.key) else {
            continue;
        };
        let result = open_result(&state.seal_key, row)?;
        if let RunResult::Plan {
            comment,
            pending: p,
        } = result
        {
            pending.extend(p);
            if comment.meta.run_id != "0" {
                last = Some(comment.meta.clone());
            }
            done.push((project.to_string(), comment));
        }
    }
    let meta = last
        .or_else(|| done.first().map(|(_, c)| c.meta.clone()))
        .unwrap_or_else(|| CommentMeta {
            pr: batch.pr as u64,
            marker_root: result_marker_root(batch.id),
            run_id: "0".into(),
            head_sha_short: None,
            command_by: None,
            check_run_url: None,
        });
    Ok((merge_batch(&batch.roots, &done, meta), pending))
}

/// The first CloudTrail poll of the batch's plan-time denials, queued once for the whole
/// comment (the poll re-renders the comment it names: only once no root is left planning).
async fn queue_enrichment(
    state: &AppState,
    target: &Target<'_>,
    batch: &PlanBatch,
    shown: Shown,
) -> Result<(), JobError> {
    let poll = EnrichJob {
        repo: target.repo.clone(),
        number: target.number,
        comment_id: shown.comment_id,
        comment: EnrichedComment::Plan(shown.comment),
        pending: shown.pending,
        attempt: 0,
    };
    let delay = state.config.enrich_schedule.first().copied();
    let delay_ms = delay.unwrap_or_default().as_millis() as i64;
    let job = cloudtrail_poll::new_job(state, &poll);
    plan_batches::queue_follow_up_once(&state.db, batch.id, &job, delay_ms)
        .await
        .map_err(JobError::Transient)?;
    Ok(())
}

fn render_err(e: crate::render::RenderError) -> JobError {
    JobError::Permanent(anyhow!("rendering a plan comment: {e}"))
}
