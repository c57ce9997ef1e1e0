//! Whose plan an `/apply` applies. A plan made with flags that change what its apply does
//! (`-target`, `-replace`, `-refresh=false`: [`TerraformArg::changes_the_apply`]) is applied
//! only when its author may apply the root too; otherwise someone allowed only to plan would
//! choose what a maintainer's `/apply` does. Pure: the worker reads the plan run, asks the
//! policy about its author (`policy::decide` with the author as the actor, on the PR's facts)
//! and carries the answer out.

use super::record::RunStatus;
use crate::command::TerraformArg;
use crate::model::view::{AppliedPlan, PlanRefusal};
use crate::policy::{Decision, Outcome};

/// The plan an apply would apply: its run, who asked for it, its flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanAuthor {
    pub run_id: i64,
    pub login: String,
    /// As Terraform got them; `None` when not recorded (plans made before flags were).
    pub flags: Option<Vec<String>>,
}

/// Whether a plan's flags change what its apply does. Flags not recorded, or not read back
/// as allowlisted ones, do: unknown is treated as the risky case.
pub fn flags_change_the_apply(flags: Option<&[String]>) -> bool {
    let Some(flags) = flags else {
        return true;
    };
    flags
        .iter()
        .any(|flag| TerraformArg::from_cli_arg(flag).map_or(true, |arg| arg.changes_the_apply()))
}

/// Whether a plan run in `status` may be applied at all: planned, or still running. A failed
/// or interrupted plan is never applied (`apply_step`), so its author need not be asked about.
pub fn plan_may_apply(status: Option<RunStatus>) -> bool {
    matches!(status, Some(RunStatus::Planned | RunStatus::Running))
}

/// Whether applying `plan` for `applier` needs the policy's decision about the plan's author:
/// its flags change the apply and someone else made it. (The applier was allowed to apply.)
pub fn needs_author_decision(plan: &PlanAuthor, applier: &str) -> bool {
    flags_change_the_apply(plan.flags.as_deref()) && !same_login(&plan.login, applier)
}

/// What is known about the plan author applying the root.
#[derive(Debug, Clone, Copy)]
pub enum AuthorStanding<'a> {
    /// The policy's decision with the plan's author as the actor, on the PR's facts.
    Decided(&'a Decision),
    /// Nobody asked: the plan was chosen after the `/apply` was authorised.
    Unchecked,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanAuthorCheck {
    Proceed,
    Refuse(PlanRefusal),
}

/// Whether `decide` denied by a rule it checks only after the actor's permission passed:
/// the root is not changed by the PR, or an apply requirement (approval, …) is unmet. Those
/// are about the PR, which the applier's own decision covers.
fn denied_after_permission(rule: &str) -> bool {
    rule == "apply.target_not_in_pr" || rule.starts_with("apply.requires_")
}

/// Whether `applier` may apply `plan`, given the author's standing.
pub fn plan_author_check(
    plan: &PlanAuthor,
    applier: &str,
    standing: AuthorStanding<'_>,
) -> PlanAuthorCheck {
    if !needs_author_decision(plan, applier) {
        return PlanAuthorCheck::Proceed;
    }
    let decision = match standing {
        AuthorStanding::Unchecked => return PlanAuthorCheck::Refuse(PlanRefusal::Unchecked),
        AuthorStanding::Decided(decision) => decision,
    };
    match &decision.outcome {
        Outcome::Allow => PlanAuthorCheck::Proceed,
        Outcome::Deny { .. } if denied_after_permission(decision.rule) => PlanAuthorCheck::Proceed,
        // The author's own refusals, and (failing closed) any other.
        Outcome::Deny { denial, .. } => PlanAuthorCheck::Refuse(PlanRefusal::AuthorMayNotApply {
            denial: (**denial).clone(),
        }),
    }
}

/// The plan as a PR comment names it: the addresses in its flags pass through `redact` like
/// every other address shown.
pub fn applied_plan(plan: &PlanAuthor, mut redact: impl FnMut(&str) -> String) -> AppliedPlan {
    let shown = |flag: &String| match TerraformArg::from_cli_arg(flag) {
        Some(TerraformArg::Target(address)) => format!("-target={}", redact(&address)),
        Some(TerraformArg::Replace(address)) => format!("-replace={}", redact(&address)),
        Some(other) => other.to_cli_arg(),
        None => "(an unreadable flag)".to_string(),
    };
    AppliedPlan {
        run_id: plan.run_id,
        author: plan.login.clone(),
        flags: plan.flags.as_ref().map(|f| f.iter().map(shown).collect()),
    }
}

fn same_login(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

#[cfg(test)]
#[path = "plan_author_tests.rs"]
mod tests;
