//! `mark_stale` jobs (effects): after PR A's apply of a root changed its state, every other
//! open PR whose latest plan of that root was made before it gets a banner on that plan's
//! comment and a new `tfgate/apply` check; with `replan_on_apply` the root is planned again.
//! Which plans are stale is `run_planner::stale_plans` (pure). The apply queues the job right
//! after finishing its run ([`queue_after_apply`]); a retried job adds no second banner (the
//! banner's hidden marker) and queues no second plan.

use std::sync::Arc;

use anyhow::anyhow;

use super::stale_check::utc_minute;
use super::{github_error, installation_client, payload};
use crate::db::jobs as queue;
use crate::db::locks;
use crate::db::stale_plans::{self as db, RootKey};
use crate::github::api;
use crate::github::InstallationClient;
use crate::jobs::{ClaimedJob, JobError, JobKind, NewJob, RunCommand, RunJob};
use crate::model::stale_plan::{MarkStaleJob, StalePlanBanner};
use crate::model::RepoRef;
use crate::run_planner::enqueue::max_attempts;
use crate::run_planner::stale_plans::{
    replan, stale_plans, Replan, ReplanFacts, StalePlan, StateChange,
};
use crate::state::AppState;

/// The actor of a plan tfgate runs by itself.
pub const TFGATE_ACTOR: &str = "tfgate";

/// Queue the `mark_stale` job of an apply run that just finished, when it changed the state.
pub async fn queue_after_apply(
    state: &AppState,
    repo: &RepoRef,
    pr: i64,
    (project, workspace): (&str, &str),
    apply_run_id: i64,
) -> Result<(), JobError> {
    let changed = db::state_change(&state.db, apply_run_id)
        .await
        .map_err(JobError::Transient)?;
    if changed.is_none() {
        return Ok(());
    }
    let job = MarkStaleJob {
        repo: repo.clone(),
        pr,
        project: project.to_string(),
        workspace: workspace.to_string(),
        apply_run_id,
    };
    let new = NewJob {
        kind: JobKind::MarkStale,
        payload: serde_json::to_string(&job).expect("a mark_stale payload serialises"),
        repo: Some(repo.full_name()),
        pr: Some(pr),
        max_attempts: state.config.job_max_attempts,
    };
    queue::enqueue(&state.db, &new)
        .await
        .map_err(JobError::Transient)?;
    state.metrics.job_enqueued(JobKind::MarkStale.as_str());
    state.wake.notify_waiters();
    Ok(())
}

pub async fn handle(state: &Arc<AppState>, job: &ClaimedJob) -> Result<(), JobError> {
    let mark: MarkStaleJob = payload(job)?;
    let Some(change) = db::state_change(&state.db, mark.apply_run_id)
        .await
        .map_err(JobError::Transient)?
    else {
        return Ok(());
    };
    let repo = mark.repo.full_name();
    let root = RootKey {
        repo: &repo,
        project: &mark.project,
        workspace: &mark.workspace,
    };
    let runs = db::root_runs(&state.db, root)
        .await
        .map_err(JobError::Transient)?;
    let stale = stale_plans(&change, &runs);
    if stale.is_empty() {
        return Ok(());
    }
    let replan = state
        .policies
        .current()
        .for_repo(&repo)
        .is_some_and(|p| p.replan_on_apply);
    let (_, gh) = installation_client(state, &mark.repo)?;
    for plan in &stale {
        // `replan` (the policy's wish) is decided per plan in `mark_one`.
        mark_one(state, &gh, &mark, &change, plan, replan).await?;
    }
    Ok(())
}

/// Mark one stale plan of an open PR: the banner, a new plan when asked for, the check.
async fn mark_one(
    state: &AppState,
    gh: &InstallationClient,
    mark: &MarkStaleJob,
    change: &StateChange,
    plan: &StalePlan,
    replan: bool,
) -> Result<(), JobError> {
    let pr = api::get_pull_request(gh, &mark.repo, plan.pr)
        .await
        .map_err(github_error)?;
    if pr.state != "open" {
        return Ok(());
    }
    let replan = replan_step(state, mark, plan, replan, &pr.head.sha).await?;
    let banner = StalePlanBanner {
        project: mark.project.replace('`', "'"),
        workspace: mark.workspace.clone(),
        applied_by_pr: change.pr,
        applied_at: utc_minute(change.started_at),
        replanning: replan == Replan::Now,
        replan_after_release_by: match replan {
            Replan::AfterRelease(pr) => Some(pr),
            _ => None,
        },
    };
    // The plan is queued before the banner that announces it: a retry after a crash in
    // between finds it queued (`replan_step`) and only adds the banner.
    if replan == Replan::Now {
        let run = replan_job(mark, plan);
        let job = NewJob {
            kind: JobKind::Run,
            payload: serde_json::to_string(&run).expect("run payload serialises"),
            repo: Some(run.repo.full_name()),
            pr: Some(run.number),
            max_attempts: max_attempts(RunCommand::Plan, state.config.job_max_attempts),
        };
        queue::enqueue(&state.db, &job)
            .await
            .map_err(JobError::Transient)?;
        state.metrics.job_enqueued(JobKind::Run.as_str());
        state.wake.notify_waiters();
    }
    put_banner(state, gh, mark, plan, &banner).await?;
    super::apply_check::post(state, gh, &mark.repo, plan.pr).await
}

/// Whether tfgate plans the stale root again (`run_planner::stale_plans::replan`): only at
/// the commit planned (and authorised) before, when the root's lock is free.
async fn replan_step(
    state: &AppState,
    mark: &MarkStaleJob,
    plan: &StalePlan,
    wanted: bool,
    head: &str,
) -> Result<Replan, JobError> {
    if !wanted {
        return Ok(Replan::No);
    }
    let repo = mark.repo.full_name();
    let holder = locks::holder(&state.db, &repo, &mark.project, &mark.workspace)
        .await
        .map_err(JobError::Transient)?;
    let queued = queue::queued_for_pr(&state.db, &repo, plan.pr, JobKind::Run.as_str())
        .await
        .map_err(JobError::Transient)?
        .iter()
        .filter_map(|(_, payload)| serde_json::from_str::<RunJob>(payload).ok())
        .any(|r| r.command == RunCommand::Plan && r.projects.contains(&mark.project));
    let facts = ReplanFacts {
        wanted,
        same_head: head == plan.head_sha,
        lock_holder: holder,
        queued,
    };
    Ok(replan(plan.pr, facts))
}

/// A PR released its locks (merged, closed, `/unlock`): with `replan_on_apply`, the roots it
/// applied are looked at again (a `mark_stale` job each), so that stale plans that waited for
/// the lock are planned now.
pub(super) async fn after_release(
    state: &AppState,
    repo: &RepoRef,
    pr: i64,
) -> Result<(), JobError> {
    let name = repo.full_name();
    let wanted = state
        .policies
        .current()
        .for_repo(&name)
        .is_some_and(|p| p.replan_on_apply);
    if !wanted {
        return Ok(());
    }
    let applies = db::state_changing_applies(&state.db, &name, pr)
        .await
        .map_err(JobError::Transient)?;
    for (run_id, project, workspace) in applies {
        queue_after_apply(state, repo, pr, (&project, &workspace), run_id).await?;
    }
    Ok(())
}

/// A plan of the stale root alone, at the commit planned before, by tfgate.
fn replan_job(mark: &MarkStaleJob, plan: &StalePlan) -> RunJob {
    RunJob {
        repo: mark.repo.clone(),
        number: plan.pr,
        command: RunCommand::Plan,
        projects: vec![mark.project.clone()],
        actor: TFGATE_ACTOR.to_string(),
        head_sha: plan.head_sha.clone(),
        plan_runs: Default::default(),
        plan_authors_checked: false,
        terraform_args: Vec::new(),
        accept_inputs: Vec::new(),
        comment_id: None,
        batch: None,
    }
}

/// Put the banner on top of the plan's result comment, unless it is there already, the
/// comment was folded under a newer plan, or is not posted.
async fn put_banner(
    state: &AppState,
    gh: &InstallationClient,
    mark: &MarkStaleJob,
    plan: &StalePlan,
    banner: &StalePlanBanner,
) -> Result<(), JobError> {
    let Some(job_id) = plan.job_id else {
        return Ok(());
    };
    let Some(comment_id) = db::result_comment(&state.db, job_id)
        .await
        .map_err(JobError::Transient)?
    else {
        return Ok(());
    };
    let comments = api::list_comments(gh, &mark.repo, plan.pr)
        .await
        .map_err(github_error)?;
    let Some(body) = comments
        .iter()
        .find(|c| c.id == comment_id)
        .and_then(|c| c.body.as_deref())
    else {
        return Ok(());
    };
    let marked = state
        .renderer
        .render_stale_plan_comment(banner, body)
        .map_err(|e| JobError::Permanent(anyhow!("rendering the stale plan banner: {e}")))?;
    if let Some(marked) = marked {
        api::update_comment(gh, &mark.repo, comment_id, &marked)
            .await
            .map_err(github_error)?;
    }
    Ok(())
}
