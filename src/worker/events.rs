//! Pull-request, review and installation events: autoplan on a push, locks and queued runs
//! released when a PR closes, and an audit record of each.

use std::sync::Arc;

use super::apply_check::CHECK_READING;
use super::authorize::policy_teams_of;
use super::pr_snapshot::read_snapshot;
use super::{github_error, installation_client, payload};
use crate::db::audit::{self, AuditEvent};
use crate::db::jobs as queue;
use crate::db::locks;
use crate::github::{facts, InstallationClient};
use crate::jobs::{ClaimedJob, JobError, JobKind};
use crate::policy::{Actor, Decision, PrSnapshot, RepoPolicy};
use crate::project::ProjectId;
use crate::run_planner;
use crate::run_planner::autoplan::autoplan_wanted;
use crate::run_planner::pr_event::{pr_event_steps, ApplyCheckStep, PrEvent};
use crate::state::AppState;
use crate::webhook::event::{InstallationJob, PullRequestJob, PushJob, ReviewJob};

pub async fn pull_request(state: &Arc<AppState>, job: &ClaimedJob) -> Result<(), JobError> {
    let pr: PullRequestJob = payload(job)?;
    // First, so that a command decided after this delivery knows who pushed.
    super::pushers::record(state, &pr).await?;
    let admin = state
        .policies
        .current()
        .for_repo(&pr.repo.full_name())
        .cloned();
    let steps = pr_event_steps(PrEvent {
        action: &pr.action,
        merged: pr.merged,
        policy_repo: is_policy_repo(state, &pr.repo),
        has_policy: admin.is_some(),
        gitops: admin.as_ref().is_some_and(|p| !p.gitops.is_empty()),
        autoplan: admin.as_ref().is_some_and(|p| autoplan_wanted(&pr, p))
            && state.github().is_some(),
        apply_check: admin.as_ref().is_some_and(|p| p.require_apply_before_merge),
    });
    if steps.policy_check {
        // The admin repository: its PRs get the policy check, never a plan.
        super::policy_repo::check_commit(state, &pr.repo, &pr.head_sha, false)
            .await
            .map_err(github_error)?;
    }
    let snapshot = match (steps.read_pr, &admin) {
        (true, Some(admin)) => Some(pr_snapshot(state, &pr, admin).await?),
        _ => None,
    };
    if steps.deploy_preview {
        let base_sha = snapshot.as_ref().map(|s| s.facts.base_sha.as_str());
        super::gitops_check::preview(state, &pr, base_sha).await?;
    }
    if let (true, Some(snapshot)) = (steps.autoplan, &snapshot) {
        autoplan(state, &pr, snapshot).await?;
    }
    match steps.apply_check {
        Some(ApplyCheckStep::OnPush) => {
            super::apply_check::on_push(state, &pr, snapshot.as_ref()).await?
        }
        Some(ApplyCheckStep::OnMerge) => {
            super::apply_check::on_merge(state, job, &pr, snapshot.as_ref()).await?
        }
        None => {}
    }
    if steps.release {
        // Merged or closed: the PR's locks go; queued runs are dropped.
        let repo = pr.repo.full_name();
        locks::release(&state.db, &repo, pr.number, None)
            .await
            .map_err(JobError::Transient)?;
        queue::cancel_queued_for_pr(&state.db, &repo, pr.number, JobKind::Run.as_str())
            .await
            .map_err(JobError::Transient)?;
        super::stale_plans::after_release(state, &pr.repo, pr.number).await?;
    }
    if !steps.audit {
        return Ok(());
    }
    audit::record(
        &state.db,
        &AuditEvent {
            actor: pr.sender.clone(),
            repo: Some(pr.repo.full_name()),
            pr: Some(pr.number),
            action: format!("pull_request.{}", pr.action),
            rule: None,
            result: "recorded".into(),
            detail: Some(format!("head {}", audit_sha(&pr.head_sha))),
        },
    )
    .await
    .map_err(JobError::Transient)
}

/// The PR as autoplan and the `tfgate/apply` check see it, read once for both; layout
/// problems are logged (a push has no reply; the next command tells the PR).
async fn pr_snapshot(
    state: &AppState,
    pr: &PullRequestJob,
    admin: &RepoPolicy,
) -> Result<PrSnapshot, JobError> {
    let (_app, gh) = installation_client(state, &pr.repo)?;
    let snapshot = read_snapshot(state, &gh, (&pr.repo, pr.number), admin, CHECK_READING).await?;
    if !snapshot.layout_problems.is_empty() {
        // Told on the PR when a command is authorized; a push only plans admin projects.
        tracing::warn!(repo = %pr.repo.full_name(), problems = snapshot.layout_problems.len(),
            "tfgate.yaml on the base branch has problems");
    }
    Ok(snapshot)
}

/// A push to the policy repository's default branch: check its policies and, when valid, put
/// them in force on every process. Pushes to other repositories are not enqueued.
pub async fn push(state: &Arc<AppState>, job: &ClaimedJob) -> Result<(), JobError> {
    let push: PushJob = payload(job)?;
    if !is_policy_repo(state, &push.repo) {
        return Ok(());
    }
    let head = super::policy_repo::branch_head(state, &push.repo, &push.default_branch)
        .await
        .map_err(github_error)?;
    let result = if !crate::policy_repo::push_is_current(&push.sha, &head) {
        tracing::info!(repo = %push.repo.full_name(), sha = %push.sha, head = %head,
            "a push to the admin repository is no longer the default branch's head; its policies are not put in force");
        "stale"
    } else if super::policy_repo::check_commit(state, &push.repo, &push.sha, true)
        .await
        .map_err(github_error)?
    {
        "applied"
    } else {
        "refused"
    };
    audit::record(
        &state.db,
        &AuditEvent {
            actor: "tfgate".into(),
            repo: Some(push.repo.full_name()),
            pr: None,
            action: "policy.push".into(),
            rule: None,
            result: result.into(),
            detail: Some(format!(
                "commit {} (branch head {})",
                audit_sha(&push.sha),
                audit_sha(&head)
            )),
        },
    )
    .await
    .map_err(JobError::Transient)
}

/// Whether `repo` is `TFGATE_POLICY_REPO` (GitHub names are case-insensitive).
pub fn is_policy_repo(state: &AppState, repo: &crate::model::RepoRef) -> bool {
    state
        .config
        .policy_repo
        .as_ref()
        .is_some_and(|(owner, name)| {
            owner.eq_ignore_ascii_case(&repo.owner) && name.eq_ignore_ascii_case(&repo.name)
        })
}

pub async fn review(state: &Arc<AppState>, job: &ClaimedJob) -> Result<(), JobError> {
    let review: ReviewJob = payload(job)?;
    audit::record(
        &state.db,
        &AuditEvent {
            actor: review.reviewer.clone(),
            repo: Some(review.repo.full_name()),
            pr: Some(review.number),
            action: format!("review.{}", review.action),
            rule: None,
            result: review.state.to_lowercase(),
            detail: review
                .commit_id
                .as_deref()
                .map(|c| format!("on {}", audit_sha(c))),
        },
    )
    .await
    .map_err(JobError::Transient)
}

pub async fn installation(state: &Arc<AppState>, job: &ClaimedJob) -> Result<(), JobError> {
    let inst: InstallationJob = payload(job)?;
    if matches!(inst.action.as_str(), "deleted" | "suspend") {
        if let Some(app) = state.github() {
            app.forget_installation(inst.installation_id);
        }
    }
    audit::record(
        &state.db,
        &AuditEvent {
            actor: inst.sender.clone(),
            repo: None,
            pr: None,
            action: format!("installation.{}", inst.action),
            rule: None,
            result: "recorded".into(),
            detail: Some(format!(
                "installation {} on {}",
                inst.installation_id, inst.account
            )),
        },
    )
    .await
    .map_err(JobError::Transient)
}

/// A commit as these audit events record it: its first 12 characters (texts on a PR use the
/// 7 of [`crate::model::short_sha`]).
fn audit_sha(sha: &str) -> &str {
    &sha[..sha.len().min(12)]
}

/// Plan the roots a push affects whose policy asks for autoplan, as `run_planner::autoplan`
/// decides on the delivery's snapshot; every decision is audited.
async fn autoplan(
    state: &Arc<AppState>,
    pr: &PullRequestJob,
    snapshot: &PrSnapshot,
) -> Result<(), JobError> {
    let (_app, gh) = installation_client(state, &pr.repo)?;
    let PrSnapshot { facts, policy, .. } = snapshot;
    // Whoever pushed decides, as if they had commented `/plan`: the PR's author may not be
    // the one whose code runs.
    let pusher = pusher_actor(&gh, pr, policy).await?;
    let plan = run_planner::autoplan::autoplan(pr, policy, facts, &pusher)
        .map_err(|e| JobError::Permanent(anyhow::anyhow!(e)))?;
    audit_autoplan(state, pr, &plan.decisions).await?;
    let Some(run) = plan.job else {
        return Ok(());
    };
    super::comment::enqueue_run(state, &run).await?;
    state.wake.notify_waiters();
    Ok(())
}

/// The delivery's sender as policy sees a commenter: permission, and membership of the teams
/// the policy names.
async fn pusher_actor(
    gh: &InstallationClient,
    pr: &PullRequestJob,
    policy: &RepoPolicy,
) -> Result<Actor, JobError> {
    let login = &pr.sender;
    let teams = policy_teams_of(gh, &pr.repo.owner, policy, login).await?;
    Ok(Actor {
        login: login.clone(),
        permission: facts::user_permission(gh, &pr.repo, login)
            .await
            .map_err(github_error)?,
        teams,
        is_bot: login.ends_with("[bot]"),
    })
}

async fn audit_autoplan(
    state: &AppState,
    pr: &PullRequestJob,
    decisions: &[(ProjectId, Decision)],
) -> Result<(), JobError> {
    for (project, decision) in decisions {
        let event = AuditEvent {
            actor: pr.sender.clone(),
            repo: Some(pr.repo.full_name()),
            pr: Some(pr.number),
            action: "autoplan".into(),
            rule: Some(decision.rule.to_string()),
            result: if decision.is_allowed() {
                "allow"
            } else {
                "deny"
            }
            .into(),
            detail: Some(project.0.clone()),
        };
        audit::record(&state.db, &event)
            .await
            .map_err(JobError::Transient)?;
    }
    Ok(())
}
