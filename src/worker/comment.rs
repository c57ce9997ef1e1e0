use std::sync::Arc;

use anyhow::anyhow;

use super::authorize::{authorize, Authorized};
use super::{github_error, payload};
use crate::command::{parse_comment, CommandKind};
use crate::db::locks;
use crate::github::api;
use crate::inputs;
use crate::jobs::RunJob;
use crate::jobs::{queue, JobKind, NewJob};
use crate::jobs::{ClaimedJob, JobError};
use crate::project::{order_by_dependencies, ProjectId};
use crate::run_planner::cancel::{cancel_reply, cancel_steps};
use crate::run_planner::comment::{comment_effects, CommentEffect};
use crate::state::AppState;
use crate::webhook::event::CommentJob;

pub async fn handle(state: &Arc<AppState>, job: &ClaimedJob) -> Result<(), JobError> {
    let comment: CommentJob = payload(job)?;
    let slug = state.app_slug();
    let effects = comment_effects(&comment, parse_comment(&comment.body, &slug), &slug);
    if effects.is_empty() {
        return Ok(());
    }
    let app = state
        .github()
        .ok_or_else(|| JobError::Transient(anyhow!("no GitHub App configured yet")))?;
    let gh = app
        .installation(comment.repo.installation_id)
        .map_err(JobError::Permanent)?;
    let mut accepted = Vec::new();
    for effect in effects {
        match effect {
            CommentEffect::React(content) => {
                api::react_to_comment(&gh, &comment.repo, comment.comment_id, content)
                    .await
                    .map_err(github_error)?;
            }
            CommentEffect::Reply(body) => {
                api::create_comment(&gh, &comment.repo, comment.number, &body)
                    .await
                    .map_err(github_error)?;
            }
            CommentEffect::Accept(cmd) => accepted.push(cmd),
        }
    }
    if accepted.is_empty() {
        return Ok(());
    }
    match authorize(state, &gh, &comment, accepted).await? {
        Some(authorized) => execute_allowed(state, &gh, &comment, authorized).await,
        None => Ok(()),
    }
}

/// Carry out allowed commands: plan/apply become one `run` job each (roots in dependency
/// order); unlock and cancel act at once.
async fn execute_allowed(
    state: &Arc<AppState>,
    gh: &octocrab::Octocrab,
    comment: &CommentJob,
    Authorized { policy, allowed }: Authorized,
) -> Result<(), JobError> {
    let repo = comment.repo.full_name();
    let policy = &policy;
    // (command, projects, terraform args, accepted inputs): one run job each.
    type PendingRun = (CommandKind, Vec<ProjectId>, Vec<String>, Vec<String>);
    let mut runs: Vec<PendingRun> = Vec::new();
    let mut inputs_sent = false;
    // Projects `/cancel` is allowed on: one pass over the queue and one reply after the loop.
    let mut cancel: Vec<String> = Vec::new();
    // `/unlock` acts per allowed project and answers once.
    let (mut unlocked, mut released) = (false, 0);
    for a in &allowed {
        tracing::info!(
            command = a.command.kind.name(),
            project = a.project.as_deref().unwrap_or("-"),
            dir = a.target.dir.as_deref().unwrap_or("-"),
            head = &a.head_sha[..a.head_sha.len().min(12)],
            "command allowed by policy"
        );
        match a.command.kind {
            CommandKind::Plan | CommandKind::Apply => {
                let Some(project) = &a.project else { continue };
                let args: Vec<String> = a
                    .command
                    .terraform_args
                    .iter()
                    .map(|t| t.to_cli_arg())
                    .collect();
                match runs
                    .iter_mut()
                    .find(|r| r.0 == a.command.kind && r.2 == args)
                {
                    Some(r) => {
                        if !r.1.iter().any(|p| &p.0 == project) {
                            r.1.push(ProjectId::new(project.clone()));
                        }
                    }
                    None => runs.push((
                        a.command.kind,
                        vec![ProjectId::new(project.clone())],
                        args,
                        a.command.accept_inputs.clone(),
                    )),
                }
            }
            CommandKind::Unlock => {
                released += locks::release(&state.db, &repo, comment.number, a.project.as_deref())
                    .await
                    .map_err(JobError::Transient)?;
                unlocked = true;
            }
            CommandKind::Cancel => {
                if let Some(project) = &a.project {
                    if !cancel.contains(project) {
                        cancel.push(project.clone());
                    }
                }
            }
            CommandKind::Inputs if !inputs_sent => {
                inputs_sent = true;
                let body = inputs::inputs_reply(&inputs::fingerprint_key(state), policy);
                api::create_comment(gh, &comment.repo, comment.number, &body)
                    .await
                    .map_err(github_error)?;
            }
            CommandKind::Inputs | CommandKind::Help => {}
        }
    }
    if unlocked {
        let body = format!("Released {released} lock(s) held by this pull request.");
        api::create_comment(gh, &comment.repo, comment.number, &body)
            .await
            .map_err(github_error)?;
    }
    if !cancel.is_empty() {
        let body = cancel_queued_runs(state, &repo, comment.number, &cancel).await?;
        api::create_comment(gh, &comment.repo, comment.number, &body)
            .await
            .map_err(github_error)?;
    }
    for (kind, projects, terraform_args, accept_inputs) in runs {
        let ordered = order_by_dependencies(&projects, &policy.specs())
            .map_err(|e| JobError::Permanent(anyhow!("ordering projects: {e}")))?;
        let payload = RunJob {
            repo: comment.repo.clone(),
            number: comment.number,
            command: kind.name().to_string(),
            projects: ordered.into_iter().map(|p| p.0).collect(),
            actor: comment.author.clone(),
            terraform_args,
            accept_inputs,
        };
        let job = NewJob {
            kind: JobKind::Run,
            payload: serde_json::to_string(&payload).expect("run payload serialises"),
            repo: Some(repo.clone()),
            pr: Some(comment.number),
            // An apply is never retried on its own: a failure is reported, a human decides.
            max_attempts: if kind == CommandKind::Apply {
                1
            } else {
                state.config.job_max_attempts
            },
        };
        queue::enqueue(&state.db, &job)
            .await
            .map_err(JobError::Transient)?;
        state.metrics.job_enqueued(JobKind::Run.as_str());
    }
    state.wake.notify_waiters();
    Ok(())
}

/// Drop or shrink the PR's queued runs of `projects`; returns the reply. A job a worker claims
/// meanwhile is left alone (and not reported as cancelled).
async fn cancel_queued_runs(
    state: &AppState,
    repo: &str,
    pr: i64,
    projects: &[String],
) -> Result<String, JobError> {
    let rows = queue::queued_for_pr(&state.db, repo, pr, JobKind::Run.as_str())
        .await
        .map_err(JobError::Transient)?;
    // A payload that does not parse is not ours to rewrite; it is left queued.
    let queued: Vec<(i64, RunJob)> = rows
        .into_iter()
        .filter_map(|(id, payload)| Some((id, serde_json::from_str(&payload).ok()?)))
        .collect();
    let mut cancelled = Vec::new();
    for step in cancel_steps(&queued, projects) {
        let done = match &step.keep {
            None => queue::update_if_queued(&state.db, step.job_id, "cancelled", None).await,
            Some(keep) => {
                let payload = serde_json::to_string(keep).expect("run payload serialises");
                queue::update_if_queued(&state.db, step.job_id, "queued", Some(&payload)).await
            }
        }
        .map_err(JobError::Transient)?;
        if done {
            cancelled.push(step.cancelled);
        }
    }
    Ok(cancel_reply(projects, &cancelled))
}
