//! Plan policies at `/apply` and `/approve-policies` (issue 42). Pure.
//!
//! A root whose plan record holds a failed `deny` set is not applied until an owner of that set
//! approved that very plan run. An approval names the plan run, so a new push (a new head needs
//! a new plan) or a new plan voids it. Owners come from the policy in force, never the record;
//! the PR author never approves their own PR's failures.

use crate::model::view::{
    owner_handles, ApprovalLine, BlockedSet, PlanPolicyCheckRoot, PlanPolicyCheckText,
    PolicyApprovalReport, PolicyBlocked, PolicyCheckView,
};
pub use crate::model::PolicyApproval;
use crate::model::{PlanPolicySet, SetOutcome};

/// What the plan policies say about applying one root's plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PolicyGate {
    /// No blocking failure is left; `approved` are the approvals that lifted one.
    Pass { approved: Vec<PolicyApproval> },
    /// These sets failed with `deny` and no owner approved this plan.
    Blocked { sets: Vec<String> },
}

/// The gate for a plan whose record holds `outcomes`, given the approvals of that plan run.
pub fn policy_gate(outcomes: &[SetOutcome], approvals: &[PolicyApproval]) -> PolicyGate {
    let mut approved = Vec::new();
    let mut blocked = Vec::new();
    for o in outcomes.iter().filter(|o| o.blocks_apply()) {
        match approvals.iter().find(|a| a.set == o.set) {
            Some(a) => approved.push(a.clone()),
            None => blocked.push(o.set.clone()),
        }
    }
    if blocked.is_empty() {
        PolicyGate::Pass { approved }
    } else {
        PolicyGate::Blocked { sets: blocked }
    }
}

/// Who comments `/approve-policies`: their login and the `org/team` slugs they belong to
/// (among the teams the set's owners name).
#[derive(Debug, Clone, Copy)]
pub struct Approver<'a> {
    pub login: &'a str,
    pub teams: &'a [String],
    pub pr_author: &'a str,
}

/// Why an approval of one set is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalRefusal {
    /// The PR author cannot approve their own PR's failures.
    OwnPullRequest,
    /// Not a user or team member the set's `owners` names.
    NotOwner,
    /// The policy in force has no set of that name any more.
    SetGone,
}

/// Whether `approver` may approve the failures of the set named `set_name`.
pub fn may_approve(
    sets: &[PlanPolicySet],
    set_name: &str,
    approver: Approver<'_>,
) -> Result<(), ApprovalRefusal> {
    let Some(set) = sets.iter().find(|s| s.name == set_name) else {
        return Err(ApprovalRefusal::SetGone);
    };
    if approver.login.eq_ignore_ascii_case(approver.pr_author) {
        return Err(ApprovalRefusal::OwnPullRequest);
    }
    let user = set.owners.users.iter().any(|u| {
        u.trim_start_matches('@')
            .eq_ignore_ascii_case(approver.login)
    });
    let team = set.owners.teams.iter().any(|t| {
        approver
            .teams
            .iter()
            .any(|m| m.eq_ignore_ascii_case(t.trim_start_matches('@')))
    });
    if user || team {
        Ok(())
    } else {
        Err(ApprovalRefusal::NotOwner)
    }
}

/// One root's blocking sets an `/approve-policies` addresses: the plan's sets that block and
/// are not approved yet, named by `--set` when given.
pub fn sets_to_approve(
    outcomes: &[SetOutcome],
    approvals: &[PolicyApproval],
    only_set: Option<&str>,
) -> Vec<String> {
    match policy_gate(outcomes, approvals) {
        PolicyGate::Pass { .. } => Vec::new(),
        PolicyGate::Blocked { sets } => sets
            .into_iter()
            .filter(|s| only_set.map_or(true, |o| o == s))
            .collect(),
    }
}

/// How many failed rules' messages the blocked-apply notice repeats per set (the plan
/// comment lists them all).
pub const BLOCKED_MESSAGES: usize = 5;

/// The notice of an apply blocked by `outcomes` (the blocking sets), with each set's owners
/// from the policy in force.
pub fn blocked_notice(
    sets: &[PlanPolicySet],
    project: &str,
    outcomes: &[SetOutcome],
) -> PolicyBlocked {
    PolicyBlocked {
        project: project.to_string(),
        sets: outcomes
            .iter()
            .map(|o| BlockedSet {
                set: o.set.clone(),
                failures: o.failures.len(),
                messages: o.failures.iter().take(BLOCKED_MESSAGES).cloned().collect(),
                error: o.error.clone(),
                failed_closed: o.error.is_some(),
                owners: owners_of(sets, &o.set),
            })
            .collect(),
    }
}

/// `@login`/`@org/team` owners of the set named `set` in the policy in force.
pub fn owners_of(sets: &[PlanPolicySet], set: &str) -> Vec<String> {
    sets.iter()
        .find(|s| s.name == set)
        .map(|s| owner_handles(&s.owners))
        .unwrap_or_default()
}

/// A root's latest plan run, as `/approve-policies` sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatestPlan {
    pub run_id: i64,
    pub project: String,
    pub workspace: String,
    pub head_sha: String,
    /// Planned successfully (only such a plan is ever applied).
    pub planned: bool,
    pub outcomes: Vec<SetOutcome>,
    pub approvals: Vec<PolicyApproval>,
}

/// One decision of an `/approve-policies`: a root's plan run, a set, and the verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalDecision {
    pub plan_run_id: i64,
    pub project: String,
    pub set: String,
    pub verdict: Result<(), ApprovalRefusal>,
}

/// What `/approve-policies [-p project] [--set name]` by `approver` decides on `plans` (each
/// root's latest plan run): every blocking, unapproved set of a plan of `head` that the
/// filters name, each approved or refused. Older plans are never approved: the next
/// `/apply` would not apply them.
pub fn approval_decisions(
    plans: &[LatestPlan],
    head: &str,
    project: Option<&str>,
    set: Option<&str>,
    sets: &[PlanPolicySet],
    approver: Approver<'_>,
) -> Vec<ApprovalDecision> {
    plans
        .iter()
        .filter(|p| p.planned && p.head_sha == head)
        .filter(|p| project.map_or(true, |want| want == p.project))
        .flat_map(|p| {
            sets_to_approve(&p.outcomes, &p.approvals, set)
                .into_iter()
                .map(move |name| ApprovalDecision {
                    plan_run_id: p.run_id,
                    project: p.project.clone(),
                    verdict: may_approve(sets, &name, approver),
                    set: name,
                })
        })
        .collect()
}

/// The reply to an `/approve-policies` whose decisions are `decisions`.
pub fn approval_report(
    decisions: &[ApprovalDecision],
    sets: &[PlanPolicySet],
    user: &str,
    head_sha_short: &str,
    filter: Option<String>,
) -> PolicyApprovalReport {
    let line = |d: &ApprovalDecision| ApprovalLine {
        project: d.project.clone(),
        set: d.set.clone(),
        refusal: d.verdict.err().map(|r| {
            match r {
                ApprovalRefusal::OwnPullRequest => "own_pull_request",
                ApprovalRefusal::NotOwner => "not_owner",
                ApprovalRefusal::SetGone => "set_gone",
            }
            .to_string()
        }),
        owners: owners_of(sets, &d.set),
    };
    let (approved, refused): (Vec<_>, Vec<_>) = decisions.iter().partition(|d| d.verdict.is_ok());
    PolicyApprovalReport {
        user: user.to_string(),
        head_sha_short: head_sha_short.to_string(),
        approved: approved.into_iter().map(line).collect(),
        refused: refused.into_iter().map(line).collect(),
        filter,
    }
}

/// The latest plan run of each root among a PR's runs (oldest first), by `(project, workspace)`.
pub fn latest_plans(plans: Vec<LatestPlan>) -> Vec<LatestPlan> {
    let mut latest: Vec<LatestPlan> = Vec::new();
    for p in plans {
        match latest
            .iter_mut()
            .find(|l| l.project == p.project && l.workspace == p.workspace)
        {
            Some(l) if l.run_id < p.run_id => *l = p,
            Some(_) => {}
            None => latest.push(p),
        }
    }
    latest
}

/// The name of the check run that shows the plan policies of a PR's head.
pub const PLAN_POLICY_CHECK_NAME: &str = "tfgate/plan-policy";

/// The `tfgate/plan-policy` check of `head`: its conclusion (`failure` while a root's apply is
/// blocked, else `success`) and text; `None` when no plan of `head` was checked by a policy
/// set (no check run is posted).
pub fn plan_policy_check(
    plans: &[LatestPlan],
    head: &str,
    head_sha_short: &str,
    sets: &[PlanPolicySet],
) -> Option<(&'static str, PlanPolicyCheckText)> {
    let roots: Vec<PlanPolicyCheckRoot> = plans
        .iter()
        .filter(|p| p.planned && p.head_sha == head && !p.outcomes.is_empty())
        .map(|p| PlanPolicyCheckRoot {
            project: p.project.clone(),
            workspace: p.workspace.clone(),
            checks: p
                .outcomes
                .iter()
                .map(|o| {
                    let owners = sets.iter().find(|s| s.name == o.set).map(|s| &s.owners);
                    let mut view = PolicyCheckView::of(o, owners);
                    view.approved_by = p
                        .approvals
                        .iter()
                        .filter(|a| a.set == o.set)
                        .map(|a| format!("@{}", a.approver))
                        .collect();
                    view
                })
                .collect(),
        })
        .collect();
    if roots.is_empty() {
        return None;
    }
    let blocked = plans
        .iter()
        .filter(|p| p.planned && p.head_sha == head)
        .filter(|p| {
            matches!(
                policy_gate(&p.outcomes, &p.approvals),
                PolicyGate::Blocked { .. }
            )
        })
        .count();
    let conclusion = if blocked > 0 { "failure" } else { "success" };
    let text = PlanPolicyCheckText {
        head_sha_short: head_sha_short.to_string(),
        roots,
        blocked,
    };
    Some((conclusion, text))
}

#[cfg(test)]
#[path = "policy_gate_tests.rs"]
mod tests;
