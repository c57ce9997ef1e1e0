//! The `tfgate/apply` check run (effects): after every plan and apply is published, and on every
//! push, the PR's affected roots (as a bare `/apply` sees them) and their stored runs give the
//! check of the head (`run_planner::apply_status`, pure). A PR merged while roots were left
//! gets one comment naming them, and an audit record; its locks are released as on any close.

use super::notice_outbox::{record_notice, NoticeTarget};
use super::pr_snapshot::{read_snapshot, Reading};
use super::{github_error, installation_client};
use crate::db::audit::{self, AuditEvent};
use crate::db::runs;
use crate::github::api::{create_check_run, CheckRunRequest};
use crate::github::InstallationClient;
use crate::jobs::{ClaimedJob, JobError, RunCommand};
use crate::model::short_sha;
use crate::model::view::CommentMeta;
use crate::model::view::Notice;
use crate::model::view::NoticeBody;
use crate::model::view::UnappliedRoot;
use crate::model::RepoRef;
use crate::policy::{PrSnapshot, RepoPolicy};
use crate::project::affected_projects;
use crate::run_planner::apply_status::{apply_check, ApplyCheck, RootRuns, CHECK_NAME};
use crate::run_planner::latest_runs::{latest_runs, AffectedRoot, RunKind, StoredRun};
use crate::state::AppState;
use crate::webhook::event::PullRequestJob;

/// Posts the `tfgate/apply` check of the PR's current head (when the policy asks for it),
/// read here (the `publish` job: the head as it is now, not as the command saw it).
pub async fn post(
    state: &AppState,
    gh: &InstallationClient,
    repo: &RepoRef,
    number: i64,
) -> Result<(), JobError> {
    let Some(admin) = wanted(state, repo) else {
        return Ok(());
    };
    let snapshot = read_snapshot(state, gh, (repo, number), &admin, CHECK_READING).await?;
    post_check(state, gh, repo, &snapshot).await
}

/// What the check needs of the PR: the affected roots; who pushed does not matter.
pub(super) const CHECK_READING: Reading = Reading {
    mergeable_wait: &[],
    pushes: false,
    changes: true,
};

/// Posts the check of the snapshot's head.
async fn post_check(
    state: &AppState,
    gh: &InstallationClient,
    repo: &RepoRef,
    snapshot: &PrSnapshot,
) -> Result<(), JobError> {
    let (head, check) = current_check(state, repo, snapshot).await?;
    let text = state
        .renderer
        .render_apply_check(&check.text)
        .map_err(|e| JobError::Permanent(anyhow::anyhow!("rendering the apply check: {e}")))?;
    let request = CheckRunRequest {
        name: CHECK_NAME,
        head_sha: &head,
        external_id: None,
        conclusion: check.conclusion,
        title: &text.title,
        summary: &text.summary,
        text: "",
        annotations: &[],
    };
    create_check_run(gh, repo, &request)
        .await
        .map_err(github_error)
}

/// A push: the new head's check (its roots are not planned yet, unless unchanged), on the
/// snapshot the `pull_request` job read (`None` when the policy does not ask for the check).
pub async fn on_push(
    state: &AppState,
    pr: &PullRequestJob,
    snapshot: Option<&PrSnapshot>,
) -> Result<(), JobError> {
    let Some(snapshot) = snapshot.filter(|_| wanted(state, &pr.repo).is_some()) else {
        return Ok(());
    };
    let (_app, gh) = installation_client(state, &pr.repo)?;
    post_check(state, &gh, &pr.repo, snapshot).await
}

/// The repository's admin policy, when it asks for the check.
pub(super) fn wanted(state: &AppState, repo: &RepoRef) -> Option<RepoPolicy> {
    let set = state.policies.current();
    set.for_repo(&repo.full_name())
        .filter(|p| p.require_apply_before_merge)
        .cloned()
}

/// A merged PR that left roots unapplied: one comment naming them, and the audit log.
/// The notice goes through the outbox (keyed by the merge commit's slot, so a retried job
/// records it once).
pub async fn on_merge(
    state: &AppState,
    job: &ClaimedJob,
    pr: &PullRequestJob,
    snapshot: Option<&PrSnapshot>,
) -> Result<(), JobError> {
    let Some(snapshot) = snapshot.filter(|_| wanted(state, &pr.repo).is_some()) else {
        return Ok(());
    };
    let (head, check) = current_check(state, &pr.repo, snapshot).await?;
    if check.left.is_empty() {
        return Ok(());
    }
    let roots: Vec<UnappliedRoot> = check
        .left
        .iter()
        .map(|(project, left)| UnappliedRoot {
            project: project.clone(),
            left: left.label().to_string(),
        })
        .collect();
    let detail = roots
        .iter()
        .map(|r| format!("{} ({})", r.project, r.left))
        .collect::<Vec<_>>()
        .join(", ");
    let notice = Notice {
        meta: CommentMeta {
            pr: pr.number as u64,
            marker_root: "all".into(),
            run_id: format!("merge-{}", short_sha(&head)),
            head_sha_short: Some(short_sha(&head).to_string()),
            command_by: None,
            check_run_url: None,
        },
        body: NoticeBody::MergedUnapplied { roots },
    };
    let target = NoticeTarget {
        job,
        repo: &pr.repo,
        number: pr.number,
        head_sha: &head,
    };
    record_notice(state, &target, &notice).await?;
    let event = AuditEvent {
        actor: pr.sender.clone(),
        repo: Some(pr.repo.full_name()),
        pr: Some(pr.number),
        action: "merge".into(),
        rule: Some("require_apply_before_merge".into()),
        result: "unapplied".into(),
        detail: Some(detail),
    };
    audit::record(&state.db, &event)
        .await
        .map_err(JobError::Transient)
}

/// The snapshot's head and its check.
async fn current_check(
    state: &AppState,
    repo: &RepoRef,
    snapshot: &PrSnapshot,
) -> Result<(String, ApplyCheck), JobError> {
    let PrSnapshot { facts, policy, .. } = snapshot;
    let affected = affected_projects(&facts.changes(), &policy.specs());
    let roots = stored_runs(state, repo, facts.number as i64, policy, &affected).await?;
    // A notice about unreadable module graphs reaches the PR with its next command; the check
    // does not pass meanwhile.
    let check = apply_check(&facts.head_sha, &roots, snapshot.changes.complete());
    Ok((facts.head_sha.clone(), check))
}

/// Each affected root's latest plan and apply in this PR (one query for all roots), as
/// `run_planner::latest_runs` picks them.
async fn stored_runs(
    state: &AppState,
    repo: &RepoRef,
    number: i64,
    policy: &RepoPolicy,
    affected: &[crate::project::ProjectId],
) -> Result<Vec<RootRuns>, JobError> {
    let all = runs::of_pr(&state.db, &repo.full_name(), number)
        .await
        .map_err(JobError::Transient)?;
    let kind = |command: &str| match command {
        c if c == RunCommand::Plan.name() => Some(RunKind::Plan),
        c if c == RunCommand::Apply.name() => Some(RunKind::Apply),
        _ => None,
    };
    let stored: Vec<StoredRun<'_>> = all
        .iter()
        .map(|r| StoredRun {
            id: r.id,
            project: &r.project,
            workspace: &r.workspace,
            kind: kind(&r.command),
            head_sha: &r.head_sha,
            status: r.status,
            outcome: r.outcome.as_deref(),
        })
        .collect();
    let roots: Vec<AffectedRoot<'_>> = affected
        .iter()
        .filter_map(|id| policy.project(&id.0))
        .map(|p| AffectedRoot {
            project: &p.spec.id.0,
            workspace: &p.spec.workspace,
        })
        .collect();
    let mut latest = latest_runs(&stored, &roots);
    super::stale_check::mark_stale_roots(state, repo, number, &roots, &mut latest).await?;
    Ok(latest)
}
