//! The `tfgate/apply` check run (effects): after every plan and apply is published, and on every
//! push, the PR's affected roots (as a bare `/apply` sees them) and their stored runs give the
//! check of the head (`run_planner::apply_status`, pure). A PR merged while roots were left
//! gets one comment naming them, and an audit record; its locks are released as on any close.

use anyhow::anyhow;

use super::layout::policy_for_pr;
use super::pr_changes::complete_pr_changes;
use super::{github_error, installation_client};
use crate::db::audit::{self, AuditEvent};
use crate::db::runs;
use crate::github::api::{self, create_check_run, CheckRunRequest};
use crate::github::facts;
use crate::github::InstallationClient;
use crate::jobs::{JobError, RunCommand};
use crate::model::short_sha;
use crate::model::view::{CommentMeta, Notice, NoticeBody, UnappliedRoot};
use crate::model::RepoRef;
use crate::policy::RepoPolicy;
use crate::project::affected_projects;
use crate::run_planner::apply_status::{apply_check, ApplyCheck, LatestPlan, RootRuns, CHECK_NAME};
use crate::run_planner::record::PlanRecord;
use crate::state::AppState;
use crate::webhook::event::PullRequestJob;

/// Posts the `tfgate/apply` check of the PR's current head (when the policy asks for it).
pub async fn post(
    state: &AppState,
    gh: &InstallationClient,
    repo: &RepoRef,
    number: i64,
) -> Result<(), JobError> {
    let Some((head, check)) = current_check(state, gh, repo, number).await? else {
        return Ok(());
    };
    let request = CheckRunRequest {
        name: CHECK_NAME,
        head_sha: &head,
        external_id: None,
        conclusion: check.conclusion,
        title: &check.title,
        summary: &check.summary,
        text: "",
        annotations: &[],
    };
    create_check_run(gh, repo, &request)
        .await
        .map_err(github_error)
}

/// A push: the new head's check (its roots are not planned yet, unless unchanged).
pub async fn on_push(state: &AppState, pr: &PullRequestJob) -> Result<(), JobError> {
    if !wanted(state, &pr.repo) {
        return Ok(());
    }
    let (_app, gh) = installation_client(state, &pr.repo)?;
    post(state, &gh, &pr.repo, pr.number).await
}

/// Whether the repository's policy asks for the check.
fn wanted(state: &AppState, repo: &RepoRef) -> bool {
    let set = state.policies.current();
    set.for_repo(&repo.full_name())
        .is_some_and(|p| p.require_apply_before_merge)
}

/// A merged PR that left roots unapplied: one comment naming them, and the audit log.
pub async fn on_merge(state: &AppState, pr: &PullRequestJob) -> Result<(), JobError> {
    if !wanted(state, &pr.repo) {
        return Ok(());
    }
    let (_app, gh) = installation_client(state, &pr.repo)?;
    let Some((head, check)) = current_check(state, &gh, &pr.repo, pr.number).await? else {
        return Ok(());
    };
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
    let body = state
        .renderer
        .render_notice(&notice)
        .map_err(|e| JobError::Permanent(anyhow!("rendering the merge notice: {e}")))?;
    api::create_comment(&gh, &pr.repo, pr.number, &body)
        .await
        .map_err(github_error)?;
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

/// The head and its check, or `None` when the repository has no policy asking for it.
async fn current_check(
    state: &AppState,
    gh: &InstallationClient,
    repo: &RepoRef,
    number: i64,
) -> Result<Option<(String, ApplyCheck)>, JobError> {
    let Some(policy) = state
        .policies
        .current()
        .for_repo(&repo.full_name())
        .cloned()
    else {
        return Ok(None);
    };
    if !policy.require_apply_before_merge {
        return Ok(None);
    }
    let mut pr_facts = facts::pr_facts(gh, repo, number)
        .await
        .map_err(github_error)?;
    let (policy, _problems) = policy_for_pr(gh, repo, &policy).await?;
    // A notice about unreadable module graphs reaches the PR with its next command; the check
    // does not pass meanwhile.
    let incomplete = complete_pr_changes(state, gh, repo, &policy, &mut pr_facts)
        .await
        .is_some();
    let affected = affected_projects(&pr_facts.changes(), &policy.specs());
    let roots = stored_runs(state, repo, number, &policy, &affected).await?;
    Ok(Some((
        pr_facts.head_sha.clone(),
        apply_check(&pr_facts.head_sha, &roots, !incomplete),
    )))
}

/// Each affected root's latest plan and apply in this PR (one query for all roots).
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
    let mut out = Vec::new();
    for id in affected {
        let Some(p) = policy.project(&id.0) else {
            continue;
        };
        let latest = |command: RunCommand| {
            all.iter().rev().find(|r| {
                r.project == id.0 && r.workspace == p.spec.workspace && r.command == command.name()
            })
        };
        out.push(RootRuns {
            project: id.0.clone(),
            plan: latest(RunCommand::Plan).map(|r| LatestPlan {
                id: r.id,
                head_sha: r.head_sha.clone(),
                status: r.status,
                changes: r
                    .outcome
                    .as_deref()
                    .and_then(PlanRecord::decode)
                    .map(|rec| {
                        rec.counts.add + rec.counts.change + rec.counts.destroy + rec.counts.replace
                    }),
            }),
            apply: latest(RunCommand::Apply).map(|r| (r.id, r.status)),
        });
    }
    Ok(out)
}
