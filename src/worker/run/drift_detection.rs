//! `drift` jobs: plan the default branch head of a repository's drift-detection roots, exactly
//! as a PR plan runs (the plan role, the sandbox, the same checkout and settings), and hand
//! the findings to the drift issue. Runs are recorded with PR number 0; a root whose lock a
//! PR holds is skipped, and the root claim is held only while its plan runs.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::RunCtx;
use crate::crypto::{run_aad, seal, BlobPurpose};
use crate::db::locks;
use crate::db::runs;
use crate::drift_detection::report::{
    findings_from_plan, inputs_moved, DriftReport, RootReport, RootState,
};
use crate::drift_detection::scope::roots_to_check;
use crate::enrich::UnixSeconds;
use crate::jobs::{ClaimedJob, DriftJob, JobError, RunCommand, RunJob};
use crate::model::short_sha;
use crate::policy::ResolvedProject;
use crate::redact::{Placeholders, Redactor};
use crate::run_planner::run_end::{end_status, RunEnd};
use crate::state::AppState;
use crate::tfrun::{self, setup_from_config, TerraformSetup};
use crate::worker::drift_detection::who::{self, WhoLookup};
use crate::worker::input_drift::values as inputs;
use crate::worker::{github_error, installation_client, payload};

/// Who drift runs are recorded as (and the STS source identity they carry).
pub const DRIFT_ACTOR: &str = "tfgate-drift";

pub async fn handle(state: &Arc<AppState>, job: &ClaimedJob) -> Result<(), JobError> {
    let drift: DriftJob = payload(job)?;
    let repo = drift.repo.full_name();
    let set = state.policies.current();
    let Some(policy) = set.for_repo(&repo) else {
        tracing::warn!(%repo, "drift check of a repository no policy covers; nothing done");
        return Ok(());
    };
    let all: Vec<String> = policy
        .projects
        .iter()
        .map(|p| p.spec.id.0.clone())
        .collect();
    let configured = policy
        .drift_detection
        .as_ref()
        .map(|d| d.projects.as_slice());
    let wanted = roots_to_check(&drift.projects, configured, &all);
    let projects: Vec<&ResolvedProject> = wanted.iter().filter_map(|n| policy.project(n)).collect();
    let (_, gh) = installation_client(state, &drift.repo)?;
    let (branch, head) = crate::github::api::default_branch_head(&gh, &drift.repo)
        .await
        .map_err(github_error)?;
    tracing::info!(%repo, trigger = %drift.trigger, %branch, head = %short_sha(&head), projects = projects.len(), "drift check");
    let run = RunJob {
        repo: drift.repo.clone(),
        number: 0,
        command: RunCommand::Plan,
        projects: wanted,
        actor: DRIFT_ACTOR.into(),
        head_sha: head.clone(),
        plan_runs: BTreeMap::new(),
        plan_authors_checked: false,
        terraform_args: vec![],
        accept_inputs: vec![],
        comment_id: None,
        batch: None,
    };
    let ctx = RunCtx {
        state,
        gh: &gh,
        renderer: state.renderer.as_ref(),
        run: &run,
        job,
        policy,
        head: &head,
    };
    let roots = ctx.drift_roots(&projects).await?;
    let report = DriftReport {
        commit_short: short_sha(&head).to_string(),
        branch,
        checked_at: chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string(),
        roots,
    };
    crate::worker::drift_detection::issue::publish(state, &gh, &drift.repo, &report).await
}

impl RunCtx<'_> {
    async fn drift_roots(
        &self,
        projects: &[&ResolvedProject],
    ) -> Result<Vec<RootReport>, JobError> {
        let base = setup_from_config(&self.state.config).map_err(JobError::Permanent)?;
        let redactor = self.redactor()?;
        let mut ph = Placeholders::new();
        let mut out = Vec::new();
        for p in projects {
            let state = self.drift_root(p, &base, &redactor, &mut ph).await?;
            out.push(RootReport {
                project: p.spec.id.0.clone(),
                dir: p.spec.dir.clone(),
                state,
            });
        }
        Ok(out)
    }

    async fn drift_root(
        &self,
        p: &ResolvedProject,
        base: &TerraformSetup,
        redactor: &Redactor,
        ph: &mut Placeholders,
    ) -> Result<RootState, JobError> {
        let db = &self.state.db;
        let repo = self.run.repo.full_name();
        let (project, workspace) = (&p.spec.id.0, &p.spec.workspace);
        let held = locks::holder(db, &repo, project, workspace)
            .await
            .map_err(JobError::Transient)?;
        if let Some(pr) = held {
            return Ok(RootState::LockedBy { pr });
        }
        let Ok(run_id) = self.claim_run(p, RunCommand::Plan).await? else {
            return Ok(RootState::Busy);
        };
        let setup = match self.setup_for(base, p).await {
            Ok(s) => s,
            Err(_) => {
                return self
                    .drift_failed(
                        run_id,
                        "Terraform for the project is unavailable (see the server log)",
                    )
                    .await
            }
        };
        let live = inputs::live_inputs(&inputs::fingerprint_key(self.state), self.policy, p);
        let prepared = match self.prepare(p, RunCommand::Plan, run_id, &live.env).await {
            Ok(prepared) => prepared,
            Err(e) => {
                tracing::error!(%project, error = %format!("{e:#}"), "drift check could not start");
                return self.drift_failed(run_id, &super::public_line(&e)).await;
            }
        };
        let out = tfrun::plan(
            &setup,
            &prepared.checkout(),
            &p.spec.dir,
            &prepared.settings,
            &mut |_| {},
        )
        .await
        .map_err(JobError::Transient)?;
        self.drift_findings(p, run_id, &out, &live, redactor, ph)
            .await
    }

    /// Records the drift plan's run and reads its findings (and the inputs that moved).
    async fn drift_findings(
        &self,
        p: &ResolvedProject,
        run_id: i64,
        out: &tfrun::PlanOutput,
        live: &inputs::LiveInputs,
        redactor: &Redactor,
        ph: &mut Placeholders,
    ) -> Result<RootState, JobError> {
        let db = &self.state.db;
        let repo = self.run.repo.full_name();
        let (project, workspace) = (&p.spec.id.0, &p.spec.workspace);
        let log = out
            .plan
            .as_ref()
            .map_or(out.init.stderr_tail.as_str(), |s| s.stdout.as_str());
        let sealed_log = seal(
            &self.state.seal_key,
            log.as_bytes(),
            &run_aad(run_id, BlobPurpose::RawLog),
        );
        let mut findings = out
            .plan_json
            .as_deref()
            .and_then(|json| findings_from_plan(json, &mut |text| redactor.redact(text, ph)));
        let end = match findings {
            Some(_) => RunEnd::Succeeded,
            None => RunEnd::Failed,
        };
        let status = end_status(RunCommand::Plan, end);
        runs::finish(db, run_id, status, None, Some(&sealed_log), None)
            .await
            .map_err(JobError::Transient)?;
        let Some((outside_terraform, next_apply)) = findings.as_mut() else {
            return Ok(RootState::Failed {
                reason: format!("the plan failed; an admin can run `tfgate logs {run_id}`"),
            });
        };
        let last_apply = runs::last_apply_started(db, &repo, project, workspace)
            .await
            .map_err(JobError::Transient)?;
        let lookup = WhoLookup {
            policy: self.policy,
            project: p,
            run_id,
            last_apply: last_apply.map(|ms| UnixSeconds(ms / 1000)),
        };
        let mut redact = |text: &str| redactor.redact(text, ph);
        who::fill(self.state, &lookup, outside_terraform, &mut redact).await;
        let applied = crate::db::inputs::last_applied(db, &repo, project, workspace)
            .await
            .map_err(JobError::Transient)?;
        let live_hex: BTreeMap<String, String> = live
            .fingerprints
            .iter()
            .map(|(k, f)| (k.clone(), f.as_hex().to_string()))
            .collect();
        Ok(RootState::Checked {
            outside_terraform: std::mem::take(outside_terraform),
            next_apply: std::mem::take(next_apply),
            inputs_moved: inputs_moved(&live_hex, &applied),
        })
    }

    async fn drift_failed(&self, run_id: i64, reason: &str) -> Result<RootState, JobError> {
        runs::finish(
            &self.state.db,
            run_id,
            end_status(RunCommand::Plan, RunEnd::NotStarted),
            None,
            None,
            None,
        )
        .await
        .map_err(JobError::Transient)?;
        Ok(RootState::Failed {
            reason: reason.to_string(),
        })
    }
}
