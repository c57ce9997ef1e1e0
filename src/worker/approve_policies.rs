//! `/approve-policies [-p NAME] [--set SET_NAME]` (effects; issue 42): the PR's head and author
//! and each root's latest plan run are read, `run_planner::policy_gate` decides which blocking
//! sets the commenter approves or is refused, the approvals are stored against their plan
//! runs, every decision is audited, and the reply says what happened and who else may approve.

use super::authorize::audit;
use super::github_error;
use super::plan_policy_check::latest_plans_of_pr;
use super::replies::Replies;
use crate::command::Command;
use crate::db::policy_approvals;
use crate::github::{api, InstallationClient};
use crate::jobs::JobError;
use crate::model::short_sha;
use crate::model::view::NoticeBody;
use crate::policy::RepoPolicy;
use crate::run_planner::policy_gate::{
    approval_decisions, approval_report, ApprovalDecision, Approver, LatestPlan,
};
use crate::state::AppState;
use crate::webhook::event::CommentJob;

const RULE: &str = "plan_policies.approve";

/// Answers one `/approve-policies`.
pub(super) async fn approve(
    state: &AppState,
    gh: &InstallationClient,
    comment: &CommentJob,
    policy: &RepoPolicy,
    command: &Command,
    replies: &mut Replies,
) -> Result<(), JobError> {
    let info = api::get_pull_request(gh, &comment.repo, comment.number)
        .await
        .map_err(github_error)?;
    let head = info.head.sha.clone();
    let plans = latest_plans_of_pr(state, &comment.repo, comment.number).await?;
    let teams = owner_teams_of(gh, policy, &comment.author).await?;
    let approver = Approver {
        login: &comment.author,
        teams: &teams,
        pr_author: &info.user.login,
    };
    let project = command.project.as_deref();
    let set = command.policy_set.as_deref();
    let sets = &policy.plan_policies;
    let decisions = approval_decisions(&plans, &head, project, set, sets, approver);
    for d in &decisions {
        record(state, comment, &plans, &head, d).await?;
    }
    let filter = filter_text(project, set);
    let report = approval_report(&decisions, sets, &comment.author, short_sha(&head), filter);
    if decisions.is_empty() {
        let detail = format!("{}: nothing to approve", short_sha(&head));
        audit(
            state,
            comment,
            "approve-policies",
            RULE,
            "ignored",
            Some(detail),
        )
        .await?;
    }
    replies.push(NoticeBody::PolicyApproval(report));
    if decisions.iter().any(|d| d.verdict.is_ok()) {
        super::plan_policy_check::post(state, gh, &comment.repo, comment.number, &head).await?;
    }
    Ok(())
}

/// Store an allowed approval against its plan run; audit every decision.
async fn record(
    state: &AppState,
    comment: &CommentJob,
    plans: &[LatestPlan],
    head: &str,
    d: &ApprovalDecision,
) -> Result<(), JobError> {
    let detail = format!(
        "{} plan run {} set {} at {}",
        d.project,
        d.plan_run_id,
        d.set,
        short_sha(head)
    );
    let Err(refusal) = d.verdict else {
        let workspace = plans
            .iter()
            .find(|p| p.run_id == d.plan_run_id)
            .map(|p| p.workspace.as_str())
            .unwrap_or_default();
        let approval = policy_approvals::NewApproval {
            plan_run_id: d.plan_run_id,
            set: &d.set,
            approver: &comment.author,
            repo: &comment.repo.full_name(),
            pr: comment.number,
            project: &format!("{}/{workspace}", d.project),
            head_sha: head,
        };
        policy_approvals::record(&state.db, &approval)
            .await
            .map_err(JobError::Transient)?;
        return audit(
            state,
            comment,
            "approve-policies",
            RULE,
            "allow",
            Some(detail),
        )
        .await;
    };
    let detail = format!("{detail}: {refusal:?}");
    audit(
        state,
        comment,
        "approve-policies",
        RULE,
        "deny",
        Some(detail),
    )
    .await
}

/// The `org/team` owner teams of the policy's plan policy sets that `login` is an active
/// member of.
async fn owner_teams_of(
    gh: &InstallationClient,
    policy: &RepoPolicy,
    login: &str,
) -> Result<Vec<String>, JobError> {
    let mut named: Vec<&String> = policy
        .plan_policies
        .iter()
        .flat_map(|s| &s.owners.teams)
        .collect();
    named.sort();
    named.dedup();
    let mut member_of = Vec::new();
    for team in named {
        let Some((org, slug)) = team.trim_start_matches('@').split_once('/') else {
            continue;
        };
        if api::team_member(gh, org, slug, login)
            .await
            .map_err(github_error)?
        {
            member_of.push(team.trim_start_matches('@').to_string());
        }
    }
    Ok(member_of)
}

fn filter_text(project: Option<&str>, set: Option<&str>) -> Option<String> {
    match (project, set) {
        (None, None) => None,
        (Some(p), None) => Some(format!("-p {p}")),
        (None, Some(s)) => Some(format!("--set {s}")),
        (Some(p), Some(s)) => Some(format!("-p {p} --set {s}")),
    }
}
