//! One root of an `/apply`, before anything runs: skip it (an earlier root stopped the run),
//! refuse it (no current plan of the authorised commit, or its plan's apply was interrupted or
//! failed part-way: Terraform rejects a saved plan once the state changed; or its plan was
//! made with flags that change the apply by someone else, not checked when the `/apply` was
//! authorised: see `plan_author`),
//! pass over it (already applied), or go on with the plan run it applies. Pure; locks, the drift gate's audit and Terraform follow
//! in the worker.

pub use crate::model::view::SkipReason;

use super::plan_author::{plan_author_check, AuthorStanding, PlanAuthor, PlanAuthorCheck};
use super::policy_gate::{policy_gate, PolicyApproval, PolicyGate};
use super::record::{PlanRecord, RunStatus};
use crate::model::view::PlanRefusal;

/// The plan run an apply would apply, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanRun {
    pub id: i64,
    /// `None` for a status this version does not know.
    pub status: Option<RunStatus>,
    pub head_sha: String,
    /// `None` when the stored record does not decode.
    pub record: Option<PlanRecord>,
    /// Who asked for the plan.
    pub author: String,
    /// Its Terraform flags; `None` when not recorded.
    pub flags: Option<Vec<String>>,
}

impl PlanRun {
    pub fn plan_author(&self) -> PlanAuthor {
        PlanAuthor {
            run_id: self.id,
            login: self.author.clone(),
            flags: self.flags.clone(),
        }
    }
}

/// The facts about one root that decide its step.
#[derive(Debug, Clone)]
pub struct RootFacts<'a> {
    /// The commit the `/apply` was authorised on.
    pub authorised_head: &'a str,
    /// The plan run the job names, or else the root's latest plan run.
    pub plan: Option<PlanRun>,
    /// The root's latest apply run (id, status).
    pub last_apply: Option<(i64, RunStatus)>,
    /// Terraform's apply step ran in that latest apply (not only `init`).
    pub last_apply_ran: bool,
    /// Who asked for the `/apply` (the policy allowed them to apply the root).
    pub applier: &'a str,
    /// The plan run the job names whose author and flags were checked when the `/apply` was
    /// authorised (`plan_author`), if any.
    pub checked_plan: Option<i64>,
    /// Owners' approvals of the plan run's failed policy sets (`/approve-policies`).
    pub policy_approvals: Vec<PolicyApproval>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApplyStep {
    /// An earlier root stopped the run.
    Skip(SkipReason),
    /// No successful plan of the authorised commit: the PR is told to plan again, and the
    /// run stops here.
    NoCurrentPlan,
    /// Applied since that plan; nothing to do.
    AlreadyApplied,
    /// An apply of that plan was interrupted (its worker died): what it changed is unknown, so
    /// the plan is spent. The PR is told to plan again, and the run stops here.
    Interrupted,
    /// An apply of that plan ran and failed: the state may have changed, and Terraform refuses a
    /// saved plan whose state moved on. The PR is told to plan the root again; the run stops.
    PlanSpent,
    /// The plan was made with flags that change the apply by someone else, and chosen after
    /// the `/apply` was authorised, so its author's permission was never checked. The PR is
    /// told who may plan it again; the run stops here.
    PlanAuthorRefused { plan: PlanAuthor, why: PlanRefusal },
    /// A plan policy set with `deny` failed on the plan and no owner approved this plan run
    /// (`policy_gate`). The PR is told who may approve; the run stops here.
    PolicyBlocked { sets: Vec<crate::model::SetOutcome> },
    /// Go on (lock, drift gate, Terraform) with this plan.
    Proceed {
        plan_run_id: i64,
        record: PlanRecord,
        plan: PlanAuthor,
        /// The approvals that lifted policy failures of this plan (shown and audited).
        approved: Vec<PolicyApproval>,
    },
}

pub fn apply_step(stopped: Option<&SkipReason>, facts: RootFacts<'_>) -> ApplyStep {
    if let Some(reason) = stopped {
        return ApplyStep::Skip(reason.clone());
    }
    let current = facts.plan.filter(|p| {
        p.status == Some(RunStatus::Planned)
            && p.head_sha == facts.authorised_head
            && p.record.is_some()
    });
    let Some((plan, Some(record))) = current.map(|p| (p.plan_author(), p.record)) else {
        return ApplyStep::NoCurrentPlan;
    };
    let id = plan.run_id;
    match facts.last_apply {
        Some((apply_id, RunStatus::Applied)) if apply_id > id => return ApplyStep::AlreadyApplied,
        Some((apply_id, RunStatus::Interrupted)) if apply_id > id => return ApplyStep::Interrupted,
        Some((apply_id, RunStatus::ApplyFailed)) if apply_id > id && facts.last_apply_ran => {
            return ApplyStep::PlanSpent
        }
        _ => {}
    }
    if facts.checked_plan != Some(id) {
        if let PlanAuthorCheck::Refuse(why) =
            plan_author_check(&plan, facts.applier, AuthorStanding::Unchecked)
        {
            return ApplyStep::PlanAuthorRefused { plan, why };
        }
    }
    let approved = match policy_gate(&record.policy, &facts.policy_approvals) {
        PolicyGate::Blocked { sets } => {
            let sets = record
                .policy
                .into_iter()
                .filter(|o| sets.contains(&o.set))
                .collect();
            return ApplyStep::PolicyBlocked { sets };
        }
        PolicyGate::Pass { approved } => approved,
    };
    ApplyStep::Proceed {
        plan_run_id: id,
        record,
        plan,
        approved,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(id: i64, status: RunStatus, head: &str) -> Option<PlanRun> {
        Some(PlanRun {
            id,
            status: Some(status),
            head_sha: head.into(),
            record: Some(PlanRecord::default()),
            author: "alice".into(),
            flags: Some(vec![]),
        })
    }

    fn author(id: i64) -> PlanAuthor {
        PlanAuthor {
            run_id: id,
            login: "alice".into(),
            flags: Some(vec![]),
        }
    }

    fn step(plan: Option<PlanRun>, last_apply: Option<(i64, RunStatus)>) -> ApplyStep {
        apply_step(
            None,
            RootFacts {
                authorised_head: "h1",
                plan,
                last_apply,
                last_apply_ran: true,
                applier: "alice",
                checked_plan: None,
                policy_approvals: Vec::new(),
            },
        )
    }

    #[test]
    fn step_table() {
        let proceed = ApplyStep::Proceed {
            plan_run_id: 5,
            record: PlanRecord::default(),
            plan: author(5),
            approved: vec![],
        };
        type Case = (
            &'static str,
            Option<PlanRun>,
            Option<(i64, RunStatus)>,
            ApplyStep,
        );
        let cases: Vec<Case> = vec![
            (
                "planned at the head",
                plan(5, RunStatus::Planned, "h1"),
                None,
                proceed.clone(),
            ),
            ("no plan", None, None, ApplyStep::NoCurrentPlan),
            (
                "plan failed",
                plan(5, RunStatus::PlanFailed, "h1"),
                None,
                ApplyStep::NoCurrentPlan,
            ),
            (
                "planned another commit",
                plan(5, RunStatus::Planned, "h0"),
                None,
                ApplyStep::NoCurrentPlan,
            ),
            (
                "still running",
                plan(5, RunStatus::Running, "h1"),
                None,
                ApplyStep::NoCurrentPlan,
            ),
            (
                "applied after the plan",
                plan(5, RunStatus::Planned, "h1"),
                Some((6, RunStatus::Applied)),
                ApplyStep::AlreadyApplied,
            ),
            (
                "applied before the plan",
                plan(5, RunStatus::Planned, "h1"),
                Some((4, RunStatus::Applied)),
                proceed.clone(),
            ),
            (
                "apply failed after the plan",
                plan(5, RunStatus::Planned, "h1"),
                Some((6, RunStatus::ApplyFailed)),
                ApplyStep::PlanSpent,
            ),
            (
                "an earlier plan's apply failed, then planned again",
                plan(5, RunStatus::Planned, "h1"),
                Some((4, RunStatus::ApplyFailed)),
                proceed.clone(),
            ),
            (
                "apply of the plan interrupted",
                plan(5, RunStatus::Planned, "h1"),
                Some((6, RunStatus::Interrupted)),
                ApplyStep::Interrupted,
            ),
            (
                "an earlier plan's apply interrupted, then planned again",
                plan(5, RunStatus::Planned, "h1"),
                Some((4, RunStatus::Interrupted)),
                proceed,
            ),
            (
                "interrupted, and the plan is stale too",
                plan(5, RunStatus::Planned, "h0"),
                Some((6, RunStatus::Interrupted)),
                ApplyStep::NoCurrentPlan,
            ),
        ];
        for (name, p, a, want) in cases {
            assert_eq!(step(p, a), want, "{name}");
        }
    }

    #[test]
    fn a_failed_apply_that_never_reached_terraform_leaves_the_plan_usable() {
        let got = apply_step(
            None,
            RootFacts {
                authorised_head: "h1",
                plan: plan(5, RunStatus::Planned, "h1"),
                last_apply: Some((6, RunStatus::ApplyFailed)),
                last_apply_ran: false,
                applier: "alice",
                checked_plan: None,
                policy_approvals: Vec::new(),
            },
        );
        assert!(
            matches!(got, ApplyStep::Proceed { plan_run_id: 5, .. }),
            "{got:?}"
        );
    }

    #[test]
    fn a_plan_failing_a_deny_policy_applies_only_once_approved() {
        use crate::model::{Enforcement, PolicyMessage, SetOutcome};
        let mut p = plan(5, RunStatus::Planned, "h1");
        if let Some(record) = p.as_mut().and_then(|p| p.record.as_mut()) {
            record.policy = vec![SetOutcome {
                set: "ssh".into(),
                enforcement: Enforcement::Deny,
                failures: vec![PolicyMessage {
                    rule: "deny".into(),
                    message: "open to the world".into(),
                    address: None,
                }],
                warnings: vec![],
                error: None,
            }];
        }
        let with = |approvals: Vec<PolicyApproval>| {
            apply_step(
                None,
                RootFacts {
                    authorised_head: "h1",
                    plan: p.clone(),
                    last_apply: None,
                    last_apply_ran: false,
                    applier: "alice",
                    checked_plan: None,
                    policy_approvals: approvals,
                },
            )
        };
        let outcomes = p
            .as_ref()
            .and_then(|p| p.record.as_ref())
            .map(|r| r.policy.clone());
        assert_eq!(
            with(vec![]),
            ApplyStep::PolicyBlocked {
                sets: outcomes.unwrap_or_default()
            }
        );
        let approval = PolicyApproval {
            set: "ssh".into(),
            approver: "sec-lead".into(),
        };
        assert!(
            matches!(with(vec![approval.clone()]), ApplyStep::Proceed { approved, .. } if approved == vec![approval])
        );
    }

    #[test]
    fn an_unreadable_record_is_no_current_plan() {
        let mut p = plan(5, RunStatus::Planned, "h1");
        p.as_mut().unwrap().record = None;
        assert_eq!(step(p, None), ApplyStep::NoCurrentPlan);
    }

    #[test]
    fn a_stopped_run_skips_every_later_root() {
        let reason = SkipReason::Failed {
            project: "network".into(),
        };
        let got = apply_step(
            Some(&reason),
            RootFacts {
                authorised_head: "h1",
                plan: plan(5, RunStatus::Planned, "h1"),
                last_apply: None,
                last_apply_ran: false,
                applier: "alice",
                checked_plan: None,
                policy_approvals: Vec::new(),
            },
        );
        assert_eq!(got, ApplyStep::Skip(reason));
    }

    /// bob (who may only plan) planned with `-replace`; maya applies.
    fn flagged(by: &str, checked_plan: Option<i64>, status: RunStatus) -> ApplyStep {
        let mut p = plan(5, status, "h1");
        if let Some(p) = p.as_mut() {
            p.author = by.into();
            p.flags = Some(vec!["-replace=aws_db_instance.main".into()]);
        }
        apply_step(
            None,
            RootFacts {
                authorised_head: "h1",
                plan: p,
                last_apply: None,
                last_apply_ran: false,
                applier: "maya",
                checked_plan,
                policy_approvals: Vec::new(),
            },
        )
    }

    #[test]
    fn a_flagged_plan_of_someone_else_applies_only_when_checked_at_authorisation() {
        let refused = |step: &ApplyStep| {
            matches!(step, ApplyStep::PlanAuthorRefused { plan, why: PlanRefusal::Unchecked }
                if plan.login == "bob" && plan.run_id == 5)
        };
        let proceeds = |step: &ApplyStep| matches!(step, ApplyStep::Proceed { plan_run_id: 5, .. });
        let cases = [
            (
                "chosen at run time",
                "bob",
                None,
                RunStatus::Planned,
                refused as fn(&ApplyStep) -> bool,
            ),
            (
                "the job checked another plan",
                "bob",
                Some(4),
                RunStatus::Planned,
                refused,
            ),
            (
                "the job checked this plan",
                "bob",
                Some(5),
                RunStatus::Planned,
                proceeds,
            ),
            (
                "the applier's own plan",
                "Maya",
                None,
                RunStatus::Planned,
                proceeds,
            ),
        ];
        for (name, by, checked, status, want) in cases {
            let got = flagged(by, checked, status);
            assert!(want(&got), "{name}: {got:?}");
        }
    }

    #[test]
    fn a_failed_plan_is_never_applied_whoever_made_it() {
        for by in ["bob", "maya"] {
            for checked in [None, Some(5)] {
                assert_eq!(
                    flagged(by, checked, RunStatus::PlanFailed),
                    ApplyStep::NoCurrentPlan
                );
            }
        }
    }
}
