//! `/apply` of a PR's roots, in order, stopping at the first failure: each root applies the
//! plan run the job names (or the latest plan of the authorised commit), as
//! `run_planner::apply_step` decides.

use std::collections::BTreeMap;

use super::failure_facts::explain_failed_apply;
use super::prepare::Prepared;
use super::{meta, public_line, render_err, root_ident, RunCtx};
use crate::crypto::{open, run_aad, seal, BlobPurpose};
use crate::db::audit::{self, AuditEvent};
use crate::db::inputs as db_inputs;
use crate::db::policy_approvals;
use crate::db::runs::{self, RunRow};
use crate::input_drift::{input_drift_gate, InputDriftGate};
use crate::jobs::{JobError, PendingFailure, RunCommand};
use crate::model::short_sha;
use crate::model::view::{
    AppliedPlan, ApplyComment, ApplyCounts, ApplyStatus, Notice, NoticeBody, PlanStale, RootApply,
    RunNote,
};
use crate::policy::ResolvedProject;
use crate::redact::{Placeholders, Redactor};
use crate::render::from_outcome::{apply_model, limit_notes, mark_resource_limit};
use crate::run_planner::apply_ready::{
    digest_matches, not_ready, plan_file_verdict, PlanFileVerdict, Readiness, StoredPlanFile,
};
use crate::run_planner::apply_step::{PlanRun, RootFacts, SkipReason};
use crate::run_planner::outbox::RunResult;
use crate::run_planner::record::{ApplyRecord, PlanRecord};
use crate::run_planner::run_end::{end_status, RunEnd};
use crate::tfrun::TerraformSetup;

mod failures;
mod levels;

/// What the roots of one `/apply` add up to.
#[derive(Default)]
struct ApplyResults {
    roots: Vec<RootApply>,
    notes: Vec<RunNote>,
    pending: Vec<PendingFailure>,
    last_run: i64,
    /// Why the run stopped; every later root is skipped with it.
    stopped: Option<SkipReason>,
}

impl ApplyResults {
    /// Stop the run at this root; later roots are skipped with `reason`.
    fn stop<T>(&mut self, reason: SkipReason, note: Option<RunNote>) -> Option<T> {
        self.notes.extend(note);
        self.stopped = Some(reason);
        None
    }
}

/// The plan run a root applies, as stored and as the comment names it.
struct ChosenPlan {
    run_id: i64,
    record: PlanRecord,
    shown: AppliedPlan,
}

/// The tools every root of the run shares.
struct ApplyTools<'a> {
    setup: &'a TerraformSetup,
    redactor: &'a Redactor,
}

impl RunCtx<'_> {
    /// The plan run to apply (the one the job names, else the latest) and the latest apply.
    async fn root_facts(&self, p: &ResolvedProject) -> Result<StoredRuns, JobError> {
        let db = &self.state.db;
        let repo = self.run.repo.full_name();
        let (name, ws, pr) = (&p.spec.id.0, &p.spec.workspace, self.run.number);
        let plan = match self.run.plan_runs.get(name) {
            Some(id) => runs::plan_of_root(db, *id, &repo, pr, name, ws).await,
            None => runs::latest(db, &repo, pr, name, ws, RunCommand::Plan.name()).await,
        }
        .map_err(JobError::Transient)?;
        let apply = runs::latest(db, &repo, pr, name, ws, RunCommand::Apply.name())
            .await
            .map_err(JobError::Transient)?;
        let checked_plan = self
            .run
            .plan_authors_checked
            .then(|| self.run.plan_runs.get(name).copied())
            .flatten();
        let policy_approvals = match &plan {
            Some(p) => policy_approvals::of_plan_run(db, p.id)
                .await
                .map_err(JobError::Transient)?,
            None => Vec::new(),
        };
        Ok(StoredRuns {
            plan,
            apply,
            checked_plan,
            policy_approvals,
        })
    }

    async fn post_plan_stale(&self, project: &str) -> Result<(), JobError> {
        let body = NoticeBody::PlanStale(PlanStale {
            planned_sha_short: None,
            head_sha_short: Some(short_sha(self.head).to_string()),
        });
        self.post_notice(project, body).await
    }

    /// Post a notice about one root.
    async fn post_notice(&self, project: &str, body: NoticeBody) -> Result<(), JobError> {
        let notice = Notice {
            meta: meta(self.run, project, 0, self.head),
            body,
        };
        self.notify(notice).await
    }

    /// Apply one root's plan and record the result. Sets `results.stopped` when the root did
    /// not apply.
    async fn apply_root(
        &self,
        p: &ResolvedProject,
        plan: ChosenPlan,
        tools: &ApplyTools<'_>,
        ph: &std::sync::Mutex<Placeholders>,
        results: &mut ApplyResults,
    ) -> Result<(), JobError> {
        let ChosenPlan {
            run_id: plan_run_id,
            record,
            shown,
        } = plan;
        let record = &record;
        let Some(ready) = self
            .ready_to_apply(p, plan_run_id, record, tools, results)
            .await?
        else {
            return Ok(());
        };
        let (setup, plan_file, prepared) = ready;
        results.last_run = prepared.run_id;
        let out = self
            .apply_recording_progress(p, &setup, &plan_file, &prepared)
            .await?;
        RunNote::add_all(&mut results.notes, &prepared.notes);
        results.notes.extend(out.egress_note(&p.spec.id.0));
        let stream = out.apply.as_ref().map(|s| s.stdout.as_str());
        let limit = out.limit_hit();
        // The placeholders are shared with roots applying beside this one: held only here.
        let (mut model, to_confirm) = {
            let mut ph = ph.lock().expect("placeholders lock");
            let mut model = apply_model(
                &root_ident(p),
                out.init.ok,
                &out.init.stderr_tail,
                stream,
                &record.planned_refs(),
                &record.references,
                tools.redactor,
                &mut ph,
            );
            model.plan = Some(shown);
            if limit.is_some() {
                mark_resource_limit(&mut model);
            } else if model.status != ApplyStatus::Succeeded {
                let run = (&setup, &prepared.settings, &out);
                explain_failed_apply(p, run, tools.redactor, &mut ph, &mut model);
            }
            let to_confirm =
                self.failures_to_confirm(p, prepared.run_id, stream, tools.redactor, &mut ph);
            (model, to_confirm)
        };
        results
            .notes
            .extend(limit_notes(&p.spec.id.0, limit, out.overlong_lines()));
        model.pending_enrichment = !to_confirm.is_empty();
        results.pending.extend(to_confirm);
        let ok = model.status == ApplyStatus::Succeeded;
        let log = stream.unwrap_or(&out.init.stderr_tail);
        let outcome = ApplyRecord {
            counts: model.counts,
            completed: Vec::new(),
            apply_ran: out.apply.is_some(),
        };
        self.store_apply(p, prepared.run_id, ok, &outcome, log, record)
            .await?;
        if !ok {
            let project = p.spec.id.0.clone();
            results.stop::<()>(
                SkipReason::Failed { project },
                out.workspace_note(&p.spec.id.0),
            );
        }
        results.roots.push(model);
        Ok(())
    }

    /// Lock, drift gate, plan file, Terraform, a run, checkout and credentials, in that order;
    /// the first that is missing stops the run (`run_planner::apply_ready` says why; a note
    /// where the PR needs one).
    async fn ready_to_apply(
        &self,
        p: &ResolvedProject,
        plan_run_id: i64,
        record: &PlanRecord,
        tools: &ApplyTools<'_>,
        results: &mut ApplyResults,
    ) -> Result<Option<(TerraformSetup, Vec<u8>, Prepared)>, JobError> {
        let project = p.spec.id.0.as_str();
        let stop = |results: &mut ApplyResults, missing, note| {
            results.stop(not_ready(missing, project), note)
        };
        if !self.lock(p).await? {
            return Ok(stop(results, Readiness::Lock, None));
        }
        if !self.pass_drift_gate(project, record).await? {
            return Ok(stop(results, Readiness::InputDriftGate, None));
        }
        let Some(plan_file) = self
            .plan_file(project, plan_run_id, record, results)
            .await?
        else {
            return Ok(stop(results, Readiness::PlanFile, None));
        };
        let setup = match self.setup_for(tools.setup, p).await {
            Ok(s) => s,
            Err(note) => return Ok(stop(results, Readiness::Terraform, Some(note))),
        };
        let Some(run_id) = self.begin(p, RunCommand::Apply).await? else {
            return Ok(stop(results, Readiness::Run, None));
        };
        match self
            .prepare(p, RunCommand::Apply, run_id, &BTreeMap::new())
            .await
        {
            Ok(prepared) => Ok(Some((setup, plan_file, prepared))),
            Err(e) => {
                self.abandon(run_id, RunCommand::Apply).await?;
                tracing::error!(project = %project, error = %format!("{e:#}"), "could not prepare the apply");
                let note = RunNote::CouldNotStart {
                    project: project.to_string(),
                    command: RunCommand::Apply.name().into(),
                    reason: public_line(&e),
                };
                Ok(stop(results, Readiness::Prepare, Some(note)))
            }
        }
    }

    /// The drift gate of the plan's drifted inputs: allowed (audited when inputs drifted), or
    /// refused with the gate's reply.
    async fn pass_drift_gate(&self, project: &str, record: &PlanRecord) -> Result<bool, JobError> {
        match input_drift_gate(
            self.policy.on_input_drift,
            &record.drifted_inputs,
            &self.run.accept_inputs,
        ) {
            InputDriftGate::Allow => Ok(true),
            InputDriftGate::AllowWithAudit { inputs } => {
                let event = AuditEvent {
                    actor: self.run.actor.clone(),
                    repo: Some(self.run.repo.full_name()),
                    pr: Some(self.run.number),
                    action: "apply".into(),
                    rule: Some("inputs.drift_accepted".into()),
                    result: "allow".into(),
                    detail: Some(format!("{project}: {}", inputs.join(", "))),
                };
                audit::record(&self.state.db, &event)
                    .await
                    .map_err(JobError::Transient)?;
                Ok(true)
            }
            InputDriftGate::Refuse { refusal } => {
                let notice = Notice {
                    meta: meta(self.run, project, 0, self.head),
                    body: NoticeBody::InputDriftRefused {
                        project: project.to_string(),
                        refusal,
                    },
                };
                self.notify(notice).await?;
                Ok(false)
            }
        }
    }

    /// The stored plan file, opened and checked against the record's digest; `None` (with a
    /// note saying why) when it cannot be had.
    async fn plan_file(
        &self,
        project: &str,
        plan_run_id: i64,
        record: &PlanRecord,
        results: &mut ApplyResults,
    ) -> Result<Option<Vec<u8>>, JobError> {
        let sealed = runs::plan_blob(&self.state.db, plan_run_id)
            .await
            .map_err(JobError::Transient)?;
        let aad = run_aad(plan_run_id, BlobPurpose::Plan);
        let opened = sealed.map(|s| open(&self.state.seal_key, &s, &aad));
        let stored = match &opened {
            None => StoredPlanFile::Missing,
            Some(Err(_)) => StoredPlanFile::Unopenable,
            Some(Ok(f)) => StoredPlanFile::Opened {
                digest_matches: digest_matches(f, record.plan_file_sha256.as_deref()),
            },
        };
        let project = project.to_string();
        let note = match plan_file_verdict(stored, self.state.config.retention_days) {
            PlanFileVerdict::Apply => return Ok(opened.and_then(Result::ok)),
            PlanFileVerdict::Expired { retention_days } => RunNote::PlanExpired {
                project,
                retention_days,
            },
            PlanFileVerdict::Unreadable => RunNote::PlanUnreadable { project },
        };
        results.notes.push(note);
        Ok(None)
    }

    /// Seal the raw log, finish the run with its record, and on success remember the input
    /// fingerprints it applied with.
    async fn store_apply(
        &self,
        p: &ResolvedProject,
        run_id: i64,
        ok: bool,
        outcome: &ApplyRecord,
        log: &str,
        record: &PlanRecord,
    ) -> Result<(), JobError> {
        let db = &self.state.db;
        let sealed_log = seal(
            &self.state.seal_key,
            log.as_bytes(),
            &run_aad(run_id, BlobPurpose::RawLog),
        );
        let end = if ok {
            RunEnd::Succeeded
        } else {
            RunEnd::Failed
        };
        let status = end_status(RunCommand::Apply, end);
        let outcome = outcome.encode();
        runs::finish(db, run_id, status, None, Some(&sealed_log), Some(&outcome))
            .await
            .map_err(JobError::Transient)?;
        let root = (p.spec.id.0.as_str(), p.spec.workspace.as_str());
        crate::worker::stale_plans::queue_after_apply(
            self.state,
            &self.run.repo,
            self.run.number,
            root,
            run_id,
        )
        .await?;
        if ok {
            let repo = self.run.repo.full_name();
            db_inputs::record_applied(
                db,
                &repo,
                &p.spec.id.0,
                &p.spec.workspace,
                run_id,
                &record.input_fingerprints,
            )
            .await
            .map_err(JobError::Transient)?;
        }
        Ok(())
    }

    /// Record the apply comment's model (and the failures CloudTrail is asked about once it is
    /// posted) in the outbox; the `publish` job posts it with its check runs.
    async fn publish_apply(&self, results: ApplyResults) -> Result<(), JobError> {
        let comment = ApplyComment {
            meta: self.result_meta(results.last_run),
            roots: results.roots,
            notes: results.notes,
        };
        // Rendered once here so that a model that cannot be shown fails the run, not the publish.
        self.renderer.render_apply(&comment).map_err(render_err)?;
        let pending = results.pending;
        self.record_result(&RunResult::Apply { comment, pending })
            .await
    }
}

/// The stored runs one root's apply step is decided on.
struct StoredRuns {
    plan: Option<RunRow>,
    apply: Option<RunRow>,
    /// The job's plan run of the root, if its author was checked at authorisation.
    checked_plan: Option<i64>,
    /// Owners' approvals of that plan run's failed policy sets.
    policy_approvals: Vec<crate::model::PolicyApproval>,
}

impl StoredRuns {
    fn as_root_facts<'a>(&self, head: &'a str, applier: &'a str) -> RootFacts<'a> {
        RootFacts {
            authorised_head: head,
            plan: self.plan.as_ref().map(|r| PlanRun {
                id: r.id,
                status: r.status,
                head_sha: r.head_sha.clone(),
                record: r.outcome.as_deref().and_then(PlanRecord::decode),
                author: r.actor.clone(),
                flags: r.terraform_args.clone(),
            }),
            last_apply: self
                .apply
                .as_ref()
                .and_then(|r| r.status.map(|s| (r.id, s))),
            last_apply_ran: self
                .apply
                .as_ref()
                .and_then(|r| r.outcome.as_deref())
                .is_some_and(|o| ApplyRecord::decode(o).apply_ran),
            applier,
            checked_plan: self.checked_plan,
            policy_approvals: self.policy_approvals.clone(),
        }
    }
}

fn skipped(p: &ResolvedProject, reason: &SkipReason) -> RootApply {
    RootApply {
        project: p.spec.id.0.clone(),
        dir: p.spec.dir.clone(),
        workspace: p.spec.workspace.clone(),
        status: ApplyStatus::Skipped {
            reason: reason.clone(),
        },
        counts: ApplyCounts::default(),
        rows: Vec::new(),
        advice: Vec::new(),
        config_errors: Vec::new(),
        pending_enrichment: false,
        denials: Vec::new(),
        plan: None,
    }
}
