//! `/plan` of a PR's roots: each root is locked, checked out at the authorised commit and
//! planned; its sealed plan file and `PlanRecord` are stored for the apply; the result goes
//! to the outbox, and a `publish` job posts one comment and one check run per root.

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

use super::plan_policy;
use super::prepare::Prepared;
use super::{public_line, render_err, root_ident, RunCtx};
use crate::crypto::{run_aad, seal, BlobPurpose};
use crate::db::{publications, runs};
use crate::github::facts;
use crate::input_drift::redact_drift_warnings;
use crate::jobs::{JobError, NewJob, PendingFailure, RunCommand};
use crate::model::view::{CommentMeta, DriftWarning, PlanComment, PlanStatus, RootPlan, RunNote};
use crate::policy::ResolvedProject;
use crate::redact::{Placeholders, Redactor};
use crate::render::from_outcome::{limit_notes, plan_model, resource_limit_plan};
use crate::run_planner::outbox::{result_marker_root, RunResult};
use crate::run_planner::plan_split::root_result_key;
use crate::run_planner::record::{PlanRecord, PlannedChange, RunStatus};
use crate::run_planner::run_end::{end_status, RunEnd};
use crate::terraform::{parse_plan_json, plan_references, plan_summary, PlanReferences};
use crate::tfrun::{self, setup_from_config, PlanOutput};
use crate::worker::github_error;
use crate::worker::input_drift::check as drift_check;
use crate::worker::input_drift::values::{self as inputs, LiveInputs};

/// What the roots of one `/plan` add up to.
#[derive(Default)]
struct PlanResults {
    roots: Vec<RootPlan>,
    /// Plan-time permission failures CloudTrail is asked about once the comment is posted.
    pending: Vec<PendingFailure>,
    notes: Vec<RunNote>,
    drift_warnings: Vec<DriftWarning>,
    last_run: i64,
    /// The PR's changed files, read once when drift attribution first needs them.
    pr_files: Option<Vec<String>>,
}

/// Drift findings of one root.
#[derive(Default)]
struct RootDrift {
    drifted_inputs: Vec<String>,
    /// Unredacted; redacted with the plan table's placeholders before they are shown.
    warnings: Vec<DriftWarning>,
}

impl RunCtx<'_> {
    pub(super) async fn plan_roots(&self, projects: &[&ResolvedProject]) -> Result<(), JobError> {
        let setup = setup_from_config(&self.state.config).map_err(JobError::Permanent)?;
        let redactor = self.redactor()?;
        if let Some(batch) = self.run.batch {
            return self.plan_part(batch, projects, &setup, &redactor).await;
        }
        let mut ph = Placeholders::new();
        let mut results = PlanResults::default();
        for p in projects {
            self.lock_and_plan(p, &setup, &redactor, &mut ph, &mut results)
                .await?;
        }
        if results.roots.is_empty() && results.notes.is_empty() {
            return Ok(());
        }
        self.publish_plan(results).await
    }

    /// One part of a split `/plan` plans its first root and records its result; the rest of
    /// the part (the roots that depend on it, or share its slot) is queued as a new part in
    /// the same transaction. So a worker publishes the result before it plans on, and the
    /// comment appears as soon as the first root finishes. A retried part whose first root is
    /// recorded has handed the rest on: it does nothing.
    async fn plan_part(
        &self,
        batch: i64,
        projects: &[&ResolvedProject],
        setup: &tfrun::TerraformSetup,
        redactor: &Redactor,
    ) -> Result<(), JobError> {
        let Some((first, rest)) = projects.split_first() else {
            return Ok(());
        };
        let key = root_result_key(&first.spec.id.0);
        let done = publications::has_key(&self.state.db, self.job.id, &key).await;
        if done.map_err(JobError::Transient)? {
            return Ok(());
        }
        let mut results = PlanResults::default();
        self.lock_and_plan(
            first,
            setup,
            redactor,
            &mut Placeholders::new(),
            &mut results,
        )
        .await?;
        let rest: Vec<String> = rest.iter().map(|p| p.spec.id.0.clone()).collect();
        let then = (!rest.is_empty()).then(|| self.part_job(batch, rest));
        self.record_root_result(batch, &key, results, then.as_ref())
            .await
    }

    /// A root of a part that did not start (the head moved, the project is gone): its result
    /// is a note, so the batch's comment stops showing it as planning.
    pub(super) async fn part_root_not_started(
        &self,
        batch: i64,
        project: &str,
        reason: String,
    ) -> Result<(), JobError> {
        let results = PlanResults {
            notes: vec![RunNote::CouldNotStart {
                project: project.to_string(),
                command: RunCommand::Plan.name().into(),
                reason,
            }],
            ..Default::default()
        };
        self.record_root_result(batch, &root_result_key(project), results, None)
            .await
    }

    /// Lock the root, find its Terraform and plan it; a root that is busy or has no Terraform
    /// is left out (with a notice or a note).
    async fn lock_and_plan(
        &self,
        p: &ResolvedProject,
        setup: &tfrun::TerraformSetup,
        redactor: &Redactor,
        ph: &mut Placeholders,
        results: &mut PlanResults,
    ) -> Result<(), JobError> {
        if !self.lock(p).await? {
            return Ok(());
        }
        match self.setup_for(setup, p).await {
            Ok(project_setup) => {
                self.plan_root(p, &project_setup, redactor, ph, results)
                    .await
            }
            Err(note) => {
                results.notes.push(note);
                Ok(())
            }
        }
    }

    /// Plan one root and store what its apply needs.
    async fn plan_root(
        &self,
        p: &ResolvedProject,
        setup: &tfrun::TerraformSetup,
        redactor: &Redactor,
        ph: &mut Placeholders,
        results: &mut PlanResults,
    ) -> Result<(), JobError> {
        let live = inputs::live_inputs(&inputs::fingerprint_key(self.state), self.policy, p);
        let Some(prepared) = self.start_plan(p, &live, results).await? else {
            return Ok(());
        };
        results.last_run = prepared.run_id;
        let out = tfrun::plan(
            setup,
            &prepared.checkout(),
            &p.spec.dir,
            &prepared.settings,
            &mut |_| {},
        )
        .await
        .map_err(JobError::Transient)?;
        let project = &p.spec.id.0;
        results.add_run_notes(project, &prepared.notes, &out);
        let limit = out.limit_hit();
        let stdout = out.plan.as_ref().map(|s| s.stdout.as_str());
        let mut model = match limit {
            Some(_) => resource_limit_plan(&root_ident(p)),
            None => plan_model(
                &root_ident(p),
                out.init.ok,
                &out.init.stderr_tail,
                stdout,
                out.plan_json.as_deref(),
                redactor,
                ph,
            ),
        };
        if model.status == PlanStatus::Failed && limit.is_none() {
            let run = (setup, &prepared, &out);
            let pending = self.explain_failed_plan(p, run, redactor, ph, &mut model);
            results.pending.extend(pending);
        }
        let drift = self.drift(p, &live, &out, &prepared, results).await?;
        let shown = redact_drift_warnings(drift.warnings, redactor, ph);
        results.drift_warnings.extend(shown);
        let policy = self
            .check_plan_policies(project, model.status, &out, redactor, ph)
            .await;
        model.policy_checks = plan_policy::views(self.policy, &policy);
        let (planned, mut references) = planned_changes(out.plan_json.as_deref());
        references.retain_names(|n| redactor.redact(n, &mut Placeholders::new()) == n);
        let record = PlanRecord {
            counts: model.counts,
            planned,
            references,
            drifted_inputs: drift.drifted_inputs,
            input_fingerprints: fingerprints(&live),
            head_sha: self.head.to_string(),
            plan_file_sha256: out
                .plan_file
                .as_deref()
                .map(|f| hex::encode(Sha256::digest(f))),
            policy,
            ..Default::default()
        };
        let end = match model.status {
            PlanStatus::Failed => RunEnd::Failed,
            _ => RunEnd::Succeeded,
        };
        let status = end_status(RunCommand::Plan, end);
        self.store_plan(prepared.run_id, status, &record, &out)
            .await?;
        results.roots.push(model);
        Ok(())
    }

    /// The plan policy sets' outcomes on a successful plan (redacted; none for a failed plan).
    async fn check_plan_policies(
        &self,
        project: &str,
        status: PlanStatus,
        out: &PlanOutput,
        redactor: &Redactor,
        ph: &mut Placeholders,
    ) -> Vec<crate::model::SetOutcome> {
        match (status, out.plan_json.as_deref()) {
            (PlanStatus::Failed, _) | (_, None) => Vec::new(),
            (_, Some(json)) => {
                let found = plan_policy::evaluate_sets(self.policy, project, json).await;
                plan_policy::redact_outcomes(found, redactor, ph)
            }
        }
    }

    /// Claim the root and prepare its run; `None` when it is busy or could not start (noted).
    async fn start_plan(
        &self,
        p: &ResolvedProject,
        live: &LiveInputs,
        results: &mut PlanResults,
    ) -> Result<Option<Prepared>, JobError> {
        let Some(run_id) = self.begin(p, RunCommand::Plan).await? else {
            return Ok(None);
        };
        match self.prepare(p, RunCommand::Plan, run_id, &live.env).await {
            Ok(prepared) => Ok(Some(prepared)),
            Err(e) => {
                self.abandon(run_id, RunCommand::Plan).await?;
                tracing::error!(project = %p.spec.id.0, error = %format!("{e:#}"), "could not prepare the plan");
                results.notes.push(RunNote::CouldNotStart {
                    project: p.spec.id.0.clone(),
                    command: RunCommand::Plan.name().into(),
                    reason: public_line(&e),
                });
                Ok(None)
            }
        }
    }

    /// Shared-input drift of the root's plan, when the root consumes shared inputs.
    async fn drift(
        &self,
        p: &ResolvedProject,
        live: &LiveInputs,
        out: &PlanOutput,
        prepared: &Prepared,
        results: &mut PlanResults,
    ) -> Result<RootDrift, JobError> {
        let (Some(plan_json), false) = (out.plan_json.as_deref(), live.refs.is_empty()) else {
            return Ok(RootDrift::default());
        };
        if results.pr_files.is_none() {
            let files = facts::pr_files(self.gh, &self.run.repo, self.run.number)
                .await
                .map_err(github_error)?;
            results.pr_files = Some(files);
        }
        let pr_files = results.pr_files.as_deref().unwrap_or_default();
        let repo = self.run.repo.full_name();
        let checkout = prepared.checkout();
        let analysis = drift_check::analyse(
            &self.state.db,
            &repo,
            p,
            live,
            plan_json,
            &checkout,
            pr_files,
        );
        match analysis.await {
            Ok(d) => {
                let name = &p.spec.id.0;
                results
                    .notes
                    .extend(d.notes.into_iter().map(|n| n.into_run_note(name)));
                Ok(RootDrift {
                    drifted_inputs: d.drifted_inputs,
                    warnings: d.warnings,
                })
            }
            Err(e) => {
                tracing::error!(error = %format!("{e:#}"), "drift analysis failed");
                let project = p.spec.id.0.clone();
                results.notes.push(RunNote::DriftUnchecked { project });
                Ok(RootDrift::default())
            }
        }
    }

    /// Seal the plan file and the raw log, and finish the run with its record.
    async fn store_plan(
        &self,
        run_id: i64,
        status: RunStatus,
        record: &PlanRecord,
        out: &PlanOutput,
    ) -> Result<(), JobError> {
        let key = &self.state.seal_key;
        // A failed plan's file is never kept: only a `planned` run is ever applied.
        let sealed_plan = out
            .plan_file
            .as_ref()
            .filter(|_| status == RunStatus::Planned)
            .map(|f| seal(key, f, &run_aad(run_id, BlobPurpose::Plan)));
        let log = match &out.plan {
            Some(s) => s.stdout.as_str(),
            None => out.init.stderr_tail.as_str(),
        };
        let sealed_log = seal(key, log.as_bytes(), &run_aad(run_id, BlobPurpose::RawLog));
        let outcome = record.encode();
        runs::finish(
            &self.state.db,
            run_id,
            status,
            sealed_plan.as_deref(),
            Some(&sealed_log),
            Some(&outcome),
        )
        .await
        .map_err(JobError::Transient)
    }

    /// Record one root's result of a part in the outbox, under the batch; its `publish` job
    /// updates the batch's comment and adds the root's check run.
    async fn record_root_result(
        &self,
        batch: i64,
        key: &str,
        results: PlanResults,
        then: Option<&NewJob>,
    ) -> Result<(), JobError> {
        let meta = self.meta(&result_marker_root(batch), results.last_run);
        let (comment, pending) = results.into_comment(meta);
        self.renderer.render_plan(&comment).map_err(render_err)?;
        let result = RunResult::Plan { comment, pending };
        self.record_part_result(batch, key, &result, then).await
    }

    /// Record the plan comment's model in the outbox; the `publish` job posts it, folds older
    /// plans and adds one check run per root.
    async fn publish_plan(&self, results: PlanResults) -> Result<(), JobError> {
        let meta = self.result_meta(results.last_run);
        let (comment, pending) = results.into_comment(meta);
        // Rendered once here so that a model that cannot be shown fails the run, not the publish.
        self.renderer.render_plan(&comment).map_err(render_err)?;
        self.record_result(&RunResult::Plan { comment, pending })
            .await
    }
}

impl PlanResults {
    /// The notes of one root's run: its checkout's, the workspace, egress and limit notes.
    fn add_run_notes(&mut self, project: &str, checkout: &[RunNote], out: &PlanOutput) {
        RunNote::add_all(&mut self.notes, checkout);
        self.notes.extend(out.workspace_note(project));
        self.notes.extend(out.egress_note(project));
        let limit = out.limit_hit();
        self.notes
            .extend(limit_notes(project, limit, out.overlong_lines()));
    }

    fn into_comment(self, meta: CommentMeta) -> (PlanComment, Vec<PendingFailure>) {
        let comment = PlanComment {
            meta,
            repo_root_summaries: self.roots,
            drift_warnings: self.drift_warnings,
            denials: vec![],
            notes: self.notes,
            still_planning: Vec::new(),
        };
        (comment, self.pending)
    }
}

/// Every change the plan holds, for the apply to list what it never reached, and what each
/// refers to, for the apply to tell a possible propagation delay.
fn planned_changes(plan_json: Option<&str>) -> (Vec<PlannedChange>, PlanReferences) {
    let Some(plan) = plan_json.and_then(|j| parse_plan_json(j).ok()) else {
        return (Vec::new(), PlanReferences::default());
    };
    let planned = plan_summary(&plan)
        .change_refs()
        .into_iter()
        .map(|r| PlannedChange {
            address: r.address,
            action: r.action,
        })
        .collect();
    (planned, plan_references(&plan))
}

fn fingerprints(live: &LiveInputs) -> BTreeMap<String, String> {
    live.fingerprints
        .iter()
        .map(|(k, v)| (k.clone(), v.as_hex().to_string()))
        .collect()
}
