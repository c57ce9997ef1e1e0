//! The `tfgate/plan-policy` check run of a PR's head (effects; issue 42): posted after every
//! plan is published and after every `/approve-policies`, from each root's latest plan run of
//! that head (`run_planner::policy_gate::plan_policy_check` decides its conclusion and text).
//! A head whose plans no policy set checked gets none.

use super::github_error;
use crate::db::{policy_approvals, runs};
use crate::github::api::{create_check_run, CheckRunRequest};
use crate::github::InstallationClient;
use crate::jobs::{JobError, RunCommand};
use crate::model::{short_sha, RepoRef};
use crate::run_planner::policy_gate::{
    latest_plans, plan_policy_check, LatestPlan, PLAN_POLICY_CHECK_NAME,
};
use crate::run_planner::record::{PlanRecord, RunStatus};
use crate::state::AppState;

/// Post the check of `head` (a new check run; GitHub shows the newest of a name).
pub(super) async fn post(
    state: &AppState,
    gh: &InstallationClient,
    repo: &RepoRef,
    number: i64,
    head: &str,
) -> Result<(), JobError> {
    let policy = state.policies.current();
    let sets = match policy.for_repo(&repo.full_name()) {
        Some(p) => p.plan_policies.clone(),
        None => return Ok(()),
    };
    let plans = latest_plans_of_pr(state, repo, number).await?;
    let Some((conclusion, check)) = plan_policy_check(&plans, head, short_sha(head), &sets) else {
        return Ok(());
    };
    let text = state
        .renderer
        .render_plan_policy_check(&check)
        .map_err(|e| {
            JobError::Permanent(anyhow::anyhow!("rendering the plan policy check: {e}"))
        })?;
    let request = CheckRunRequest {
        name: PLAN_POLICY_CHECK_NAME,
        head_sha: head,
        external_id: None,
        conclusion,
        title: &text.title,
        summary: &text.summary,
        text: "",
        annotations: &[],
    };
    create_check_run(gh, repo, &request)
        .await
        .map_err(github_error)
}

/// Each root's latest plan run of the PR, with its policy outcomes, and the approvals of those
/// whose outcomes block an apply.
pub(super) async fn latest_plans_of_pr(
    state: &AppState,
    repo: &RepoRef,
    number: i64,
) -> Result<Vec<LatestPlan>, JobError> {
    let all = runs::of_pr(&state.db, &repo.full_name(), number)
        .await
        .map_err(JobError::Transient)?;
    let plans = all
        .into_iter()
        .filter(|r| r.command == RunCommand::Plan.name())
        .map(|r| LatestPlan {
            run_id: r.id,
            planned: r.status == Some(RunStatus::Planned),
            outcomes: r
                .outcome
                .as_deref()
                .and_then(PlanRecord::decode)
                .map(|rec| rec.policy)
                .unwrap_or_default(),
            project: r.project,
            workspace: r.workspace,
            head_sha: r.head_sha,
            approvals: Vec::new(),
        })
        .collect();
    let mut latest = latest_plans(plans);
    for p in &mut latest {
        if p.outcomes.iter().any(|o| o.blocks_apply()) {
            p.approvals = policy_approvals::of_plan_run(&state.db, p.run_id)
                .await
                .map_err(JobError::Transient)?;
        }
    }
    Ok(latest)
}
