//! `/apply` level by level (`run_planner::plan_split::apply_levels`): the roots of one level
//! apply concurrently, up to the same limit as a split `/plan`; a failure stops the levels
//! after it (their roots are listed as not reached, and why). Each root's step is decided by
//! `run_planner::apply_step` as before; the results are put together in the command's order.

use std::sync::Mutex;

use futures_util::StreamExt;

use super::{skipped, ApplyResults, ApplyTools, ChosenPlan, RunCtx};
use crate::jobs::JobError;
use crate::model::view::{NoticeBody, PlanAuthorRefused, RunNote};
use crate::policy::ResolvedProject;
use crate::redact::Placeholders;
use crate::run_planner::apply_step::{apply_step, ApplyStep, SkipReason};
use crate::run_planner::plan_author::applied_plan;
use crate::run_planner::plan_split::{apply_levels, parallel_limit};
use crate::run_planner::policy_gate::blocked_notice;
use crate::tfrun::setup_from_config;

impl RunCtx<'_> {
    pub(in crate::worker::run) async fn apply_roots(
        &self,
        projects: &[&ResolvedProject],
    ) -> Result<(), JobError> {
        let setup = setup_from_config(&self.state.config).map_err(JobError::Permanent)?;
        let redactor = self.redactor()?;
        let tools = ApplyTools {
            setup: &setup,
            redactor: &redactor,
        };
        // One numbering of placeholders for the whole comment, shared by concurrent roots.
        let ph = Mutex::new(Placeholders::new());
        let names: Vec<String> = projects.iter().map(|p| p.spec.id.0.clone()).collect();
        let depends_on = super::super::split::depends_on(self.policy);
        let limit = parallel_limit(
            self.state.config.max_parallel_roots,
            self.policy.parallel_plans,
        );
        let mut by_root: Vec<Option<ApplyResults>> = (0..projects.len()).map(|_| None).collect();
        let mut stopped: Option<SkipReason> = None;
        for level in apply_levels(&names, &depends_on) {
            let before = stopped.clone();
            let steps: Vec<_> = level
                .clone()
                .into_iter()
                .map(|i| self.apply_one(projects[i], before.as_ref(), &tools, &ph))
                .collect();
            let outs: Vec<Result<ApplyResults, JobError>> = futures_util::stream::iter(steps)
                .buffered(limit)
                .collect()
                .await;
            for (&i, out) in level.iter().zip(outs) {
                let out = out?;
                if stopped.is_none() {
                    stopped.clone_from(&out.stopped);
                }
                by_root[i] = Some(out);
            }
        }
        let mut results = ApplyResults::default();
        for out in by_root.into_iter().flatten() {
            results.absorb(out);
        }
        if results.roots.is_empty() && results.notes.is_empty() {
            return Ok(());
        }
        self.publish_apply(results).await
    }

    /// One root's step: skipped (a root before it stopped the run), refused with a notice, or
    /// applied.
    async fn apply_one(
        &self,
        p: &ResolvedProject,
        stopped: Option<&SkipReason>,
        tools: &ApplyTools<'_>,
        ph: &Mutex<Placeholders>,
    ) -> Result<ApplyResults, JobError> {
        let mut results = ApplyResults::default();
        let facts = self.root_facts(p).await?;
        let root_facts = facts.as_root_facts(self.head, &self.run.actor);
        let project = p.spec.id.0.clone();
        let redact = |a: &str| {
            let mut ph = ph.lock().expect("placeholders lock");
            tools.redactor.redact_address(a, &mut ph)
        };
        match apply_step(stopped, root_facts) {
            ApplyStep::Skip(reason) => results.roots.push(skipped(p, &reason)),
            ApplyStep::NoCurrentPlan => {
                self.post_plan_stale(&project).await?;
                results.stopped = Some(SkipReason::NoCurrentPlan { project });
            }
            ApplyStep::AlreadyApplied => results.notes.push(RunNote::AlreadyApplied { project }),
            ApplyStep::PlanSpent => {
                let body = NoticeBody::PlanSpent {
                    project: project.clone(),
                };
                self.post_notice(&project, body).await?;
                results.stopped = Some(SkipReason::PlanSpent { project });
            }
            ApplyStep::Interrupted => {
                let body = NoticeBody::ApplyInterrupted {
                    project: project.clone(),
                };
                self.post_notice(&project, body).await?;
                results.stopped = Some(SkipReason::ApplyInterrupted { project });
            }
            ApplyStep::PlanAuthorRefused { plan, why } => {
                let body = NoticeBody::PlanAuthorRefused(PlanAuthorRefused {
                    project: project.clone(),
                    plan: applied_plan(&plan, redact),
                    why,
                });
                self.post_notice(&project, body).await?;
                results.stopped = Some(SkipReason::PlanAuthorRefused { project });
            }
            ApplyStep::PolicyBlocked { sets } => {
                let notice = blocked_notice(&self.policy.plan_policies, &project, &sets);
                let body = NoticeBody::PolicyBlocked(notice);
                self.post_notice(&project, body).await?;
                results.stopped = Some(SkipReason::PolicyBlocked { project });
            }
            ApplyStep::Proceed {
                plan_run_id,
                record,
                plan,
                approved,
            } => {
                if !approved.is_empty() {
                    self.audit_policy_approvals(&project, plan_run_id, &approved)
                        .await?;
                    results.notes.push(RunNote::PoliciesApproved {
                        project: project.clone(),
                        approvals: approved,
                    });
                }
                let chosen = ChosenPlan {
                    run_id: plan_run_id,
                    record,
                    shown: applied_plan(&plan, redact),
                };
                self.apply_root(p, chosen, tools, ph, &mut results).await?
            }
        }
        Ok(results)
    }
}

impl RunCtx<'_> {
    /// Audit that an apply goes on because owners approved its plan's policy failures.
    async fn audit_policy_approvals(
        &self,
        project: &str,
        plan_run_id: i64,
        approved: &[crate::model::PolicyApproval],
    ) -> Result<(), JobError> {
        let who: Vec<String> = approved
            .iter()
            .map(|a| format!("{} by {}", a.set, a.approver))
            .collect();
        let event = crate::db::audit::AuditEvent {
            actor: self.run.actor.clone(),
            repo: Some(self.run.repo.full_name()),
            pr: Some(self.run.number),
            action: "apply".into(),
            rule: Some("plan_policies.approved".into()),
            result: "allow".into(),
            detail: Some(format!(
                "{project} plan run {plan_run_id}: {}",
                who.join(", ")
            )),
        };
        crate::db::audit::record(&self.state.db, &event)
            .await
            .map_err(JobError::Transient)
    }
}

impl ApplyResults {
    /// Add one root's results (roots are absorbed in the command's order).
    fn absorb(&mut self, other: ApplyResults) {
        self.roots.extend(other.roots);
        for n in other.notes {
            if !self.notes.contains(&n) {
                self.notes.push(n);
            }
        }
        self.pending.extend(other.pending);
        self.last_run = self.last_run.max(other.last_run);
        if self.stopped.is_none() {
            self.stopped = other.stopped;
        }
    }
}
