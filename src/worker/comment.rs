//! `comment` jobs: parse the comment, react and reply as `run_planner::comment` decides,
//! authorize the accepted commands, then carry out what `run_planner::enqueue` groups them
//! into: release locks, cancel queued runs, answer `/inputs`, queue run jobs.

use std::sync::Arc;

use crate::github::InstallationClient;
use anyhow::anyhow;

use super::authorize::{authorize, repo_policy, Authorized};
use super::plan_authors::{check_plan_authors, current_plans, AuthorCheckCtx};
use super::replies::Replies;
use super::{github_error, installation_client, payload};
use crate::command::{parse_comment, Command, CommandKind};
use crate::db::jobs as queue;
use crate::db::{comments, locks};
use crate::github::{api, GitHubApp};
use crate::jobs::{ClaimedJob, JobError, JobKind, NewJob, RunJob};
use crate::model::view::CancelReport;
use crate::model::view::NoticeBody;
use crate::policy::{GitHubPermission, RepoPolicy};
use crate::run_planner::cancel::{cancel_report, cancel_steps};
use crate::run_planner::comment::{comment_effects, CommentEffect};
use crate::run_planner::commenter_gate::{comment_gate, CommenterGate, GateFacts};
use crate::run_planner::enqueue::{
    apply_projects, command_actions, max_attempts, CommandActions, CommandRequest,
};
use crate::state::AppState;
use crate::webhook::event::CommentJob;
use crate::worker::input_drift::values as inputs;

pub async fn handle(state: &Arc<AppState>, job: &ClaimedJob) -> Result<(), JobError> {
    let comment: CommentJob = payload(job)?;
    let slug = state.app_slug();
    let effects = comment_effects(&comment, parse_comment(&comment.body, &slug), &slug);
    if effects.is_empty() {
        return Ok(());
    }
    let (app, gh) = installation_client(state, &comment.repo)?;
    let repo = comment.repo.full_name();
    let first = comments::claim(
        &state.db,
        &repo,
        comment.comment_id,
        &comment.author,
        job.id,
    )
    .await
    .map_err(JobError::Transient)?;
    if !first {
        tracing::info!(repo = %repo, comment = comment.comment_id, "comment already handled; nothing done");
        return Ok(());
    }
    let mut replies = Replies::default();
    let outcome = respond(state, &app, &gh, &comment, effects, &mut replies).await;
    replies.post(state, &gh, &comment, job.id).await?;
    outcome
}

/// Gate the commenter, then react, reply, authorize and act.
async fn respond(
    state: &Arc<AppState>,
    app: &GitHubApp,
    gh: &InstallationClient,
    comment: &CommentJob,
    effects: Vec<CommentEffect>,
    replies: &mut Replies,
) -> Result<(), JobError> {
    let Some(policy) = repo_policy(state, comment, replies).await? else {
        return Ok(());
    };
    let permission = app
        .user_permission(gh, &comment.repo, &comment.author)
        .await
        .map_err(github_error)?;
    let accepted = effects
        .iter()
        .filter(|e| matches!(e, CommentEffect::Accept(_)))
        .count();
    if !passes_commenter_gate(state, comment, &policy, permission, accepted, replies).await? {
        return Ok(());
    }
    let accepted = carry_out_effects(gh, comment, effects, replies).await?;
    let (acks, accepted): (Vec<Command>, Vec<Command>) = accepted
        .into_iter()
        .partition(|c| c.kind == CommandKind::AckDeploy);
    if !acks.is_empty() {
        super::deploy_ack::acknowledge(state, app, gh, comment, &policy, permission, replies)
            .await?;
    }
    let (approvals, accepted): (Vec<Command>, Vec<Command>) = accepted
        .into_iter()
        .partition(|c| c.kind == CommandKind::ApprovePolicies);
    for command in &approvals {
        super::approve_policies::approve(state, gh, comment, &policy, command, replies).await?;
    }
    if accepted.is_empty() {
        return Ok(());
    }
    let authorized = authorize(state, gh, comment, &policy, permission, &accepted, replies).await?;
    act(state, (app, gh), comment, authorized, replies).await
}

/// Whether the commenter may have tfgate work for this comment (`run_planner::commenter_gate`); counts
/// the comment's commands against their hourly limit when they may.
async fn passes_commenter_gate(
    state: &AppState,
    comment: &CommentJob,
    policy: &RepoPolicy,
    permission: GitHubPermission,
    commands_now: usize,
    replies: &mut Replies,
) -> Result<bool, JobError> {
    let repo = comment.repo.full_name();
    let commands_last_hour = comments::commands_last_hour(&state.db, &repo, &comment.author)
        .await
        .map_err(JobError::Transient)?;
    let facts = GateFacts {
        permission,
        repo_is_public: comment.repo_is_public,
        commands_last_hour,
        commands_now,
    };
    match comment_gate(policy, facts) {
        CommenterGate::Proceed => {
            comments::set_commands(&state.db, &repo, comment.comment_id, commands_now as i64)
                .await
                .map_err(JobError::Transient)?;
            Ok(true)
        }
        CommenterGate::Outsider { reply, needed } => {
            if reply {
                replies.push(NoticeBody::Outsider {
                    user: comment.author.clone(),
                    needed: needed.to_string(),
                });
            }
            Ok(false)
        }
        CommenterGate::RateLimited { limit } => {
            replies.push(NoticeBody::RateLimited {
                user: comment.author.clone(),
                limit,
            });
            Ok(false)
        }
    }
}

/// React and collect the replies; returns the accepted commands.
async fn carry_out_effects(
    gh: &InstallationClient,
    comment: &CommentJob,
    effects: Vec<CommentEffect>,
    replies: &mut Replies,
) -> Result<Vec<Command>, JobError> {
    let mut accepted = Vec::new();
    for effect in effects {
        match effect {
            CommentEffect::React(content) => {
                api::react_to_comment(gh, &comment.repo, comment.comment_id, content)
                    .await
                    .map_err(github_error)?;
            }
            CommentEffect::Reply(body) => replies.push(body),
            CommentEffect::Accept(cmd) => accepted.push(cmd),
        }
    }
    Ok(accepted)
}

/// Carry out what the allowed commands ask for; an `/apply` of a plan whose flags its author
/// may not apply is refused first (`plan_authors`).
async fn act(
    state: &Arc<AppState>,
    (app, gh): (&GitHubApp, &InstallationClient),
    comment: &CommentJob,
    authorized: Authorized,
    replies: &mut Replies,
) -> Result<(), JobError> {
    let Authorized {
        mut allowed,
        snapshot,
    } = authorized;
    let (policy, facts) = (&snapshot.policy, &snapshot.facts);
    let head_sha = facts.head_sha.clone();
    for a in &allowed {
        tracing::info!(
            command = a.command.kind.name(),
            project = a.project.as_deref().unwrap_or("-"),
            head = %crate::model::short_sha(&head_sha),
            "command allowed by policy"
        );
    }
    let ctx = AuthorCheckCtx {
        state,
        app,
        gh,
        comment,
        policy,
        facts,
    };
    let plans = current_plans(&ctx, &apply_projects(&allowed)).await?;
    let plan_runs = check_plan_authors(&ctx, &mut allowed, plans, replies).await?;
    let request = CommandRequest {
        repo: &comment.repo,
        number: comment.number,
        actor: &comment.author,
        head_sha: &head_sha,
        comment_id: comment.comment_id,
    };
    let actions = command_actions(&request, &allowed, &policy.specs(), &plan_runs)
        .map_err(|e| JobError::Permanent(anyhow!(e)))?;
    answer(state, comment, policy, &actions, replies).await?;
    queue_runs(state, comment, &actions.runs).await?;
    state.wake.notify_waiters();
    Ok(())
}

/// Queue the comment's runs, unless an earlier attempt of this comment job queued them.
async fn queue_runs(
    state: &AppState,
    comment: &CommentJob,
    runs: &[RunJob],
) -> Result<(), JobError> {
    if runs.is_empty() {
        return Ok(());
    }
    let jobs: Vec<NewJob> = runs.iter().map(|run| run_job(state, run)).collect();
    let repo = comment.repo.full_name();
    let queued = comments::queue_runs_once(&state.db, &repo, comment.comment_id, &jobs)
        .await
        .map_err(JobError::Transient)?;
    if queued {
        for _ in &jobs {
            state.metrics.job_enqueued(JobKind::Run.as_str());
        }
    } else {
        tracing::info!(repo = %repo, comment = comment.comment_id, "the comment's runs were queued by an earlier attempt; not again");
    }
    Ok(())
}

/// The replies of `/unlock`, `/cancel` and `/inputs` (one each).
async fn answer(
    state: &AppState,
    comment: &CommentJob,
    policy: &RepoPolicy,
    actions: &CommandActions,
    replies: &mut Replies,
) -> Result<(), JobError> {
    let repo = comment.repo.full_name();
    if actions.inputs {
        let report = inputs::inputs_report(&inputs::fingerprint_key(state), policy);
        replies.push(NoticeBody::InputsReport(report));
    }
    if !actions.unlock.is_empty() {
        let mut total = locks::Released::default();
        for project in &actions.unlock {
            let r = locks::release(&state.db, &repo, comment.number, project.as_deref())
                .await
                .map_err(JobError::Transient)?;
            total.released += r.released;
            total.kept_until_run_ends += r.kept_until_run_ends;
        }
        super::stale_plans::after_release(state, &comment.repo, comment.number).await?;
        replies.push(NoticeBody::LocksReleased {
            released: total.released,
            kept_until_run_ends: total.kept_until_run_ends,
        });
    }
    if !actions.cancel.is_empty() {
        let report = cancel_queued_runs(state, &repo, comment.number, &actions.cancel).await?;
        replies.push(NoticeBody::CancelReport(report));
    }
    Ok(())
}

/// The job of a run (an apply is tried once).
fn run_job(state: &AppState, run: &RunJob) -> NewJob {
    NewJob {
        kind: JobKind::Run,
        payload: serde_json::to_string(run).expect("run payload serialises"),
        repo: Some(run.repo.full_name()),
        pr: Some(run.number),
        max_attempts: max_attempts(run.command, state.config.job_max_attempts),
    }
}

/// Queue a run job.
pub(super) async fn enqueue_run(state: &AppState, run: &RunJob) -> Result<(), JobError> {
    let job = run_job(state, run);
    queue::enqueue(&state.db, &job)
        .await
        .map_err(JobError::Transient)?;
    state.metrics.job_enqueued(JobKind::Run.as_str());
    Ok(())
}

/// Drop or shrink the PR's queued runs of `projects`; returns what was cancelled. A job a worker claims
/// meanwhile is left alone (and not reported as cancelled).
async fn cancel_queued_runs(
    state: &AppState,
    repo: &str,
    pr: i64,
    projects: &[String],
) -> Result<CancelReport, JobError> {
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
    Ok(cancel_report(projects, &cancelled))
}
