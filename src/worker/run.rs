//! `run` jobs: Terraform plan/apply of a PR's roots, in order. Effects only: the checkout,
//! STS, the sandboxed Terraform, sealing and storing, posting. What the PR sees comes from the
//! pure `results` and `render` modules.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, Context, Result};
use octocrab::Octocrab;

use super::{drift_check, enrich, github_error, payload, publish};
use crate::aws::{assume_role, sanitize_sts_name, AssumeRoleRequest};
use crate::checkout::{fetch_tarball, ExtractLimits, Workdir};
use crate::crypto::{open, run_aad, seal, BlobPurpose};
use crate::db::audit::{self, AuditEvent};
use crate::db::inputs as db_inputs;
use crate::db::locks::{self, LockOutcome};
use crate::db::runs::{self, NewRun};
use crate::drift::{apply_gate, ApplyGate};
use crate::enrich::failures_from_apply;
use crate::github::api;
use crate::github::facts;
use crate::inputs;
use crate::jobs::{queue, JobKind, NewJob};
use crate::jobs::{ClaimedJob, JobError};
use crate::policy::{Network as PolicyNetwork, RepoPolicy, ResolvedProject, SessionPolicy};
use crate::redact::{Placeholders, RedactionConfig, Redactor};
use crate::render::{
    ApplyComment, ApplyCounts, ApplyStatus, CommentMeta, LockHeld, Notice, NoticeBody, PlanComment,
    PlanStale, PlanStatus, Renderer, RootApply, RunInterrupted,
};
use crate::results::runs::{apply_model, plan_model};
use crate::results::RootIdent;
use crate::sandbox::Network;
use crate::state::AppState;
use crate::terraform::{apply_outcome, parse_ui_stream};
use crate::terraform::{
    parse_plan_json, parse_ui_line, plan_summary, Action, PlannedChangeRef, UiMessage,
};
use crate::tfrun::{self, setup_from_config, RunSettings};
use crate::webhook::run_job::RunJob;
use crate::webhook::run_job::{EnrichJob, PendingFailure};

fn short(sha: &str) -> String {
    sha[..sha.len().min(7)].to_string()
}

fn meta(run: &RunJob, kind_root: &str, run_id: i64, head: &str) -> CommentMeta {
    CommentMeta {
        pr: run.number as u64,
        marker_root: kind_root.to_string(),
        run_id: run_id.to_string(),
        head_sha_short: Some(short(head)),
        command_by: Some(run.actor.clone()),
        check_run_url: None,
    }
}

fn root_ident(p: &ResolvedProject) -> RootIdent {
    RootIdent {
        project: p.spec.id.0.clone(),
        dir: p.spec.dir.clone(),
        workspace: p.spec.workspace.clone(),
    }
}

async fn post(gh: &Octocrab, run: &RunJob, body: &str) -> Result<(), JobError> {
    api::create_comment(gh, &run.repo, run.number, body)
        .await
        .map(|_| ())
        .map_err(github_error)
}

fn render_err(e: crate::render::RenderError) -> JobError {
    JobError::Permanent(anyhow!("rendering a comment: {e}"))
}

pub async fn handle(state: &Arc<AppState>, job: &ClaimedJob) -> Result<(), JobError> {
    let run: RunJob = payload(job)?;
    let app = state
        .github()
        .ok_or_else(|| JobError::Transient(anyhow!("no GitHub App configured yet")))?;
    let gh = app
        .installation(run.repo.installation_id)
        .map_err(JobError::Permanent)?;
    let renderer = Renderer::new().map_err(render_err)?;
    if job.reclaimed {
        let interrupted = report_interrupted(state, &gh, &renderer, job, &run).await?;
        // A running apply is never repeated on its own: the PR is told, a new /plan is needed.
        if interrupted && run.command == "apply" {
            return Ok(());
        }
    }
    let set = state.policies.current();
    let Some(policy) = set.for_repo(&run.repo.full_name()) else {
        tracing::warn!(repo = %run.repo.full_name(), "policy removed before the run; nothing done");
        return Ok(());
    };
    let pr = api::get_pull_request(&gh, &run.repo, run.number)
        .await
        .map_err(github_error)?;
    let head = pr.head.sha.clone();
    let projects: Vec<&ResolvedProject> = run
        .projects
        .iter()
        .filter_map(|name| policy.project(name))
        .collect();
    let ctx = RunCtx {
        state,
        gh: &gh,
        renderer: &renderer,
        run: &run,
        job,
        policy,
        head: &head,
    };
    match run.command.as_str() {
        "plan" => ctx.plan_roots(&projects).await,
        "apply" => ctx.apply_roots(&projects).await,
        other => Err(JobError::Permanent(anyhow!("unknown run command {other}"))),
    }
}

/// Mark runs the dead worker left `running` as interrupted and tell the PR what completed.
async fn report_interrupted(
    state: &AppState,
    gh: &Octocrab,
    renderer: &Renderer,
    job: &ClaimedJob,
    run: &RunJob,
) -> Result<bool, JobError> {
    let left = runs::running_for_job(&state.db, job.id)
        .await
        .map_err(JobError::Transient)?;
    for r in &left {
        runs::finish(&state.db, r.id, "interrupted", None, None, None)
            .await
            .map_err(JobError::Transient)?;
        let completed: Vec<String> = r
            .outcome
            .as_deref()
            .and_then(|o| serde_json::from_str(o).ok())
            .unwrap_or_default();
        let redactor = Redactor::new(&RedactionConfig::default())
            .map_err(|e| JobError::Permanent(e.into()))?;
        let mut ph = Placeholders::new();
        let body = renderer
            .render_notice(&Notice {
                meta: meta(run, &r.project, r.id, &r.head_sha),
                body: NoticeBody::Interrupted(RunInterrupted {
                    project: r.project.clone(),
                    dir: String::new(),
                    workspace: r.workspace.clone(),
                    completed: completed
                        .iter()
                        .map(|a| redactor.redact_address(a, &mut ph))
                        .collect(),
                }),
            })
            .map_err(render_err)?;
        post(gh, run, &body).await?;
    }
    Ok(!left.is_empty())
}

struct RunCtx<'a> {
    state: &'a Arc<AppState>,
    gh: &'a Octocrab,
    renderer: &'a Renderer,
    run: &'a RunJob,
    job: &'a ClaimedJob,
    policy: &'a RepoPolicy,
    head: &'a str,
}

/// Raw results of one root's Terraform run, before modelling.
struct Executed {
    run_id: i64,
    workdir: Workdir,
}

impl RunCtx<'_> {
    fn redactor(&self) -> Result<Redactor, JobError> {
        Redactor::new(&RedactionConfig {
            extra_patterns: self.policy.redact_patterns.clone(),
            // Shared-input values are never posted, wherever they show up in a plan.
            secret_values: inputs::all_values(self.policy),
        })
        .map_err(|e| JobError::Permanent(anyhow!("redaction patterns: {e}")))
    }

    /// Take the root's lock, or post who holds it. True when this PR holds it.
    async fn lock(&self, p: &ResolvedProject) -> Result<bool, JobError> {
        let repo = self.run.repo.full_name();
        match locks::acquire(
            &self.state.db,
            &repo,
            &p.spec.id.0,
            &p.spec.workspace,
            self.run.number,
            &self.run.actor,
        )
        .await
        .map_err(JobError::Transient)?
        {
            LockOutcome::Held => Ok(true),
            LockOutcome::HeldBy { pr, .. } => {
                let body = self
                    .renderer
                    .render_notice(&Notice {
                        meta: meta(self.run, &p.spec.id.0, 0, self.head),
                        body: NoticeBody::LockHeld(LockHeld {
                            project: p.spec.id.0.clone(),
                            dir: p.spec.dir.clone(),
                            workspace: p.spec.workspace.clone(),
                            holder_pr: pr as u64,
                            holder_url: format!("https://github.com/{repo}/pull/{pr}"),
                        }),
                    })
                    .map_err(render_err)?;
                post(self.gh, self.run, &body).await?;
                Ok(false)
            }
        }
    }

    /// Check out the head into a fresh workdir and build the sandbox settings (with STS).
    async fn prepare(
        &self,
        p: &ResolvedProject,
        command: &str,
        input_env: &BTreeMap<String, String>,
    ) -> Result<(Executed, RunSettings)> {
        let run_id = runs::create(
            &self.state.db,
            &NewRun {
                job_id: Some(self.job.id),
                repo: &self.run.repo.full_name(),
                pr: self.run.number,
                project: &p.spec.id.0,
                dir: &p.spec.dir,
                workspace: &p.spec.workspace,
                command,
                actor: &self.run.actor,
                head_sha: self.head,
            },
        )
        .await?;
        let app = self.state.github().context("no GitHub App configured")?;
        let token = app
            .installation_token(self.run.repo.installation_id)
            .await?;
        let workdir = Workdir::create(&self.state.config.work_dir, run_id)
            .context("creating the run's workdir")?;
        let client = reqwest::Client::builder()
            .user_agent("tfgate")
            .timeout(Duration::from_secs(300))
            .build()?;
        fetch_tarball(
            &client,
            &self.state.config.github_api_url,
            &self.run.repo.owner,
            &self.run.repo.name,
            self.head,
            &token,
            &workdir.path().join("repo"),
            ExtractLimits::default(),
        )
        .await
        .map_err(|e| anyhow!("checkout failed: {}", e.public_reason()))?;
        let role = if command == "apply" {
            p.apply_role.clone().unwrap_or_else(|| p.plan_role.clone())
        } else {
            p.plan_role.clone()
        };
        let mut env = input_env.clone();
        let session_policy = match &p.session_policy {
            Some(SessionPolicy::Inline(json)) => Some(json.clone()),
            Some(SessionPolicy::File(path)) => Some(
                std::fs::read_to_string(path)
                    .with_context(|| format!("reading session policy {path}"))?,
            ),
            None => None,
        };
        let session_name = enrich::session_name(run_id);
        let repo = self.run.repo.full_name();
        let pr = self.run.number.to_string();
        let tags = [
            ("repo", repo.as_str()),
            ("pr", pr.as_str()),
            ("project", p.spec.id.0.as_str()),
        ];
        let creds = assume_role(
            self.state.aws_base().await,
            &AssumeRoleRequest {
                role_arn: &role,
                session_name: &session_name,
                source_identity: &sanitize_sts_name(&self.run.actor),
                tags: &tags,
                duration_secs: p.session_duration_seconds as i32,
                session_policy: session_policy.as_deref(),
            },
        )
        .await
        .map_err(|e| anyhow!("assuming the {command} role failed: {e}"))?;
        env.insert("AWS_ACCESS_KEY_ID".into(), creds.access_key_id.clone());
        env.insert(
            "AWS_SECRET_ACCESS_KEY".into(),
            creds.secret_access_key.clone(),
        );
        env.insert("AWS_SESSION_TOKEN".into(), creds.session_token.clone());
        env.insert("AWS_REGION".into(), self.state.config.aws_region.clone());
        let settings = RunSettings {
            env,
            network: match p.network {
                PolicyNetwork::None => Network::None,
                _ => Network::Shared,
            },
            timeout: Duration::from_secs(p.timeout_seconds),
            parallelism: Some(p.parallelism),
            extra_args: if command == "plan" {
                self.run.terraform_args.clone()
            } else {
                Vec::new()
            },
        };
        Ok((Executed { run_id, workdir }, settings))
    }

    async fn plan_roots(&self, projects: &[&ResolvedProject]) -> Result<(), JobError> {
        let setup = setup_from_config(&self.state.config).map_err(JobError::Permanent)?;
        let redactor = self.redactor()?;
        let mut ph = Placeholders::new();
        let mut roots = Vec::new();
        let mut notes = Vec::new();
        let mut drift_warnings = Vec::new();
        let mut pr_files: Option<Vec<String>> = None;
        let mut last_run = 0;
        let key = inputs::fingerprint_key(self.state);
        for p in projects {
            if !self.lock(p).await? {
                continue;
            }
            let live = inputs::live_inputs(&key, self.policy, p);
            let (exec, settings) = match self.prepare(p, "plan", &live.env).await {
                Ok(x) => x,
                Err(e) => {
                    tracing::error!(project = %p.spec.id.0, error = %format!("{e:#}"), "could not prepare the plan");
                    notes.push(format!(
                        "`{}`: the plan could not start ({}).",
                        p.spec.id.0,
                        public_line(&e)
                    ));
                    continue;
                }
            };
            last_run = exec.run_id;
            let out = tfrun::plan(
                &setup,
                &exec.workdir.path().join("repo"),
                &p.spec.dir,
                &settings,
                &mut |_| {},
            )
            .await
            .map_err(JobError::Transient)?;
            let model = plan_model(
                &root_ident(p),
                out.init.ok,
                &out.init.stderr_tail,
                out.plan.as_ref().map(|s| s.stdout.as_str()),
                out.plan_json.as_deref(),
                &redactor,
                &mut ph,
            );
            let key = &self.state.seal_key;
            let sealed_plan = out
                .plan_file
                .as_ref()
                .map(|f| seal(key, f, &run_aad(exec.run_id, BlobPurpose::Plan)));
            let log = out
                .plan
                .as_ref()
                .map(|s| s.stdout.clone())
                .unwrap_or_else(|| out.init.stderr_tail.clone());
            let sealed_log = seal(
                key,
                log.as_bytes(),
                &run_aad(exec.run_id, BlobPurpose::RawLog),
            );
            let mut drifted: Vec<String> = Vec::new();
            if let (Some(plan_json), false) = (out.plan_json.as_deref(), live.refs.is_empty()) {
                if pr_files.is_none() {
                    pr_files = Some(
                        facts::pr_files(self.gh, &self.run.repo, self.run.number)
                            .await
                            .map_err(github_error)?,
                    );
                }
                let checkout = exec.workdir.path().join("repo");
                match drift_check::analyse(
                    &self.state.db,
                    &self.run.repo.full_name(),
                    p,
                    &live,
                    plan_json,
                    &checkout,
                    pr_files.as_deref().unwrap_or_default(),
                )
                .await
                {
                    Ok(d) => {
                        drift_warnings.extend(d.warnings);
                        notes.extend(
                            d.notes
                                .into_iter()
                                .map(|n| format!("`{}`: {n}", p.spec.id.0)),
                        );
                        drifted = d.drifted_inputs;
                    }
                    Err(e) => {
                        tracing::error!(error = %format!("{e:#}"), "drift analysis failed");
                        notes.push(format!(
                            "`{}`: shared-input drift could not be checked.",
                            p.spec.id.0
                        ));
                    }
                }
            }
            let fingerprints: BTreeMap<String, String> = live
                .fingerprints
                .iter()
                .map(|(k, v)| (k.clone(), v.as_hex().to_string()))
                .collect();
            let status = if model.status == PlanStatus::Failed {
                "plan_failed"
            } else {
                "planned"
            };
            let planned: Vec<serde_json::Value> = plan_refs(out.plan_json.as_deref())
                .iter()
                .map(|r| serde_json::json!({"address": r.address, "action": r.action.as_str()}))
                .collect();
            let outcome = serde_json::json!({
                "status": status,
                "counts": &model.counts,
                "planned": planned,
                "drifted_inputs": drifted,
                "input_fingerprints": fingerprints,
            })
            .to_string();
            runs::finish(
                &self.state.db,
                exec.run_id,
                status,
                sealed_plan.as_deref(),
                Some(&sealed_log),
                Some(&outcome),
            )
            .await
            .map_err(JobError::Transient)?;
            roots.push(model);
        }
        if roots.is_empty() && notes.is_empty() {
            return Ok(());
        }
        let comment = PlanComment {
            meta: meta(self.run, "all", last_run, self.head),
            repo_root_summaries: roots,
            drift_warnings,
            denials: vec![],
            notes,
        };
        let body = self.renderer.render_plan(&comment).map_err(render_err)?;
        let posted = api::create_comment(self.gh, &self.run.repo, self.run.number, &body)
            .await
            .map_err(github_error)?;
        publish::supersede_old_plans(self.gh, &self.run.repo, self.run.number, posted.id).await;
        publish::plan_check_runs(self.gh, self.renderer, &self.run.repo, self.head, &comment).await;
        Ok(())
    }

    async fn apply_roots(&self, projects: &[&ResolvedProject]) -> Result<(), JobError> {
        let setup = setup_from_config(&self.state.config).map_err(JobError::Permanent)?;
        let redactor = self.redactor()?;
        let mut ph = Placeholders::new();
        let repo = self.run.repo.full_name();
        let mut roots: Vec<RootApply> = Vec::new();
        let mut notes = Vec::new();
        let mut stopped: Option<String> = None;
        let mut pending: Vec<PendingFailure> = Vec::new();
        let mut last_run = 0;
        for p in projects {
            let name = &p.spec.id.0;
            if let Some(reason) = &stopped {
                roots.push(skipped(p, reason));
                continue;
            }
            let db = &self.state.db;
            let plan = runs::latest(db, &repo, self.run.number, name, &p.spec.workspace, "plan")
                .await
                .map_err(JobError::Transient)?;
            let applied =
                runs::latest(db, &repo, self.run.number, name, &p.spec.workspace, "apply")
                    .await
                    .map_err(JobError::Transient)?;
            let Some(plan) = plan.filter(|r| r.status == "planned" && r.head_sha == self.head)
            else {
                let body = self
                    .renderer
                    .render_notice(&Notice {
                        meta: meta(self.run, name, 0, self.head),
                        body: NoticeBody::PlanStale(PlanStale {
                            planned_sha_short: None,
                            head_sha_short: Some(short(self.head)),
                        }),
                    })
                    .map_err(render_err)?;
                post(self.gh, self.run, &body).await?;
                stopped = Some(format!("`{name}` has no current plan"));
                continue;
            };
            if applied
                .as_ref()
                .is_some_and(|a| a.status == "applied" && a.id > plan.id)
            {
                notes.push(format!("`{name}` was already applied at this commit."));
                continue;
            }
            if !self.lock(p).await? {
                stopped = Some(format!("`{name}` is locked by another pull request"));
                continue;
            }
            let plan_outcome: serde_json::Value = plan
                .outcome
                .as_deref()
                .and_then(|o| serde_json::from_str(o).ok())
                .unwrap_or_default();
            let drifted: Vec<String> = plan_outcome["drifted_inputs"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            match apply_gate(
                self.policy.on_input_drift,
                &drifted,
                &self.run.accept_inputs,
            ) {
                ApplyGate::Allow => {}
                ApplyGate::AllowWithAudit { inputs } => {
                    audit::record(
                        db,
                        &AuditEvent {
                            actor: self.run.actor.clone(),
                            repo: Some(repo.clone()),
                            pr: Some(self.run.number),
                            action: "apply".into(),
                            rule: Some("inputs.drift_accepted".into()),
                            result: "allow".into(),
                            detail: Some(format!("{name}: {}", inputs.join(", "))),
                        },
                    )
                    .await
                    .map_err(JobError::Transient)?;
                }
                ApplyGate::Refuse { reply } => {
                    post(self.gh, self.run, &format!("`{name}`: {reply}")).await?;
                    stopped = Some(format!("`{name}` waits for a shared-input decision"));
                    continue;
                }
            }
            let sealed = runs::plan_blob(db, plan.id)
                .await
                .map_err(JobError::Transient)?;
            let plan_file = match sealed.map(|s| {
                open(
                    &self.state.seal_key,
                    &s,
                    &run_aad(plan.id, BlobPurpose::Plan),
                )
            }) {
                Some(Ok(f)) => f,
                _ => {
                    notes.push(format!(
                        "`{name}`: the stored plan could not be read; run `/plan` again."
                    ));
                    stopped = Some(format!("`{name}` has no readable plan"));
                    continue;
                }
            };
            let (exec, settings) = match self.prepare(p, "apply", &BTreeMap::new()).await {
                Ok(x) => x,
                Err(e) => {
                    tracing::error!(project = %name, error = %format!("{e:#}"), "could not prepare the apply");
                    notes.push(format!(
                        "`{name}`: the apply could not start ({}).",
                        public_line(&e)
                    ));
                    stopped = Some(format!("`{name}` could not start"));
                    continue;
                }
            };
            last_run = exec.run_id;
            let plan_json_summary = planned_from_outcome(plan.outcome.as_deref());
            let progress = progress_recorder(self.state.clone(), exec.run_id);
            let mut on_line = progress.0;
            let out = tfrun::apply(
                &setup,
                &exec.workdir.path().join("repo"),
                &p.spec.dir,
                &plan_file,
                &settings,
                &mut on_line,
            )
            .await
            .map_err(JobError::Transient)?;
            drop(on_line);
            let _ = progress.1.await;
            let mut model = apply_model(
                &root_ident(p),
                out.init.ok,
                &out.init.stderr_tail,
                out.apply.as_ref().map(|s| s.stdout.as_str()),
                &plan_json_summary,
                &redactor,
                &mut ph,
            );
            let to_confirm = self.failures_to_confirm(
                p,
                exec.run_id,
                out.apply.as_ref().map(|s| s.stdout.as_str()),
            );
            if !to_confirm.is_empty() {
                model.pending_enrichment = true;
                pending.extend(to_confirm);
            }
            let log = out
                .apply
                .as_ref()
                .map(|s| s.stdout.clone())
                .unwrap_or_else(|| out.init.stderr_tail.clone());
            let sealed_log = seal(
                &self.state.seal_key,
                log.as_bytes(),
                &run_aad(exec.run_id, BlobPurpose::RawLog),
            );
            let ok = model.status == ApplyStatus::Succeeded;
            let status = if ok { "applied" } else { "apply_failed" };
            let outcome =
                serde_json::json!({"status": status, "counts": &model.counts}).to_string();
            runs::finish(
                db,
                exec.run_id,
                status,
                None,
                Some(&sealed_log),
                Some(&outcome),
            )
            .await
            .map_err(JobError::Transient)?;
            if ok {
                let fps: BTreeMap<String, String> = plan_outcome["input_fingerprints"]
                    .as_object()
                    .map(|m| {
                        m.iter()
                            .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
                            .collect()
                    })
                    .unwrap_or_default();
                db_inputs::record_applied(db, &repo, name, &p.spec.workspace, exec.run_id, &fps)
                    .await
                    .map_err(JobError::Transient)?;
            } else {
                stopped = Some(format!("`{name}` failed"));
            }
            roots.push(model);
        }
        if roots.is_empty() && notes.is_empty() {
            return Ok(());
        }
        let comment = ApplyComment {
            meta: meta(self.run, "all", last_run, self.head),
            roots,
            notes,
        };
        let body = self.renderer.render_apply(&comment).map_err(render_err)?;
        let posted = api::create_comment(self.gh, &self.run.repo, self.run.number, &body)
            .await
            .map_err(github_error)?;
        publish::apply_check_runs(self.gh, self.renderer, &self.run.repo, self.head, &comment)
            .await;
        if !pending.is_empty() {
            let job = EnrichJob {
                repo: self.run.repo.clone(),
                number: self.run.number,
                comment_id: posted.id,
                comment,
                pending,
                attempt: 0,
            };
            let delay = self
                .state
                .config
                .enrich_schedule
                .first()
                .copied()
                .unwrap_or_default();
            queue::enqueue_after(
                &self.state.db,
                &NewJob {
                    kind: JobKind::Enrich,
                    payload: serde_json::to_string(&job).expect("enrich payload serialises"),
                    repo: Some(repo.clone()),
                    pr: Some(self.run.number),
                    max_attempts: 3,
                },
                delay.as_millis() as i64,
            )
            .await
            .map_err(JobError::Transient)?;
        }
        Ok(())
    }

    /// Permission failures whose denied action the text leaves unclear, when the policy gives
    /// a CloudTrail read role for the apply role's account.
    fn failures_to_confirm(
        &self,
        p: &ResolvedProject,
        run_id: i64,
        stream: Option<&str>,
    ) -> Vec<PendingFailure> {
        let (Some(ct), Some(stream)) = (&self.policy.cloudtrail, stream) else {
            return Vec::new();
        };
        let role = p.apply_role.as_deref().unwrap_or(&p.plan_role);
        let Some(account) = enrich::account_of(role) else {
            return Vec::new();
        };
        let Some(read_role) = ct.read_roles.get(&account) else {
            return Vec::new();
        };
        let Ok(parsed) = parse_ui_stream(stream) else {
            return Vec::new();
        };
        failures_from_apply(&apply_outcome(&parsed, &[]))
            .into_iter()
            .map(|failure| PendingFailure {
                root: p.spec.id.0.clone(),
                failure,
                session_name: enrich::session_name(run_id),
                account_id: account.clone(),
                read_role: read_role.clone(),
            })
            .collect()
    }
}

fn plan_refs(plan_json: Option<&str>) -> Vec<PlannedChangeRef> {
    plan_json
        .and_then(|j| {
            parse_plan_json(j)
                .ok()
                .map(|p| plan_summary(&p).change_refs())
        })
        .unwrap_or_default()
}

/// The planned changes a plan run recorded (so an apply can list what it never reached).
fn planned_from_outcome(outcome: Option<&str>) -> Vec<PlannedChangeRef> {
    let Some(v) = outcome.and_then(|o| serde_json::from_str::<serde_json::Value>(o).ok()) else {
        return Vec::new();
    };
    v["planned"]
        .as_array()
        .map(|list| {
            list.iter()
                .filter_map(|r| {
                    let address = r["address"].as_str()?.to_string();
                    let action = match r["action"].as_str()? {
                        "no_op" => Action::NoOp,
                        "create_then_forget" => Action::CreateThenForget,
                        other => Action::from_ui(other)?,
                    };
                    Some(PlannedChangeRef { address, action })
                })
                .collect()
        })
        .unwrap_or_default()
}

fn skipped(p: &ResolvedProject, reason: &str) -> RootApply {
    RootApply {
        project: p.spec.id.0.clone(),
        dir: p.spec.dir.clone(),
        workspace: p.spec.workspace.clone(),
        status: ApplyStatus::Skipped {
            reason: format!("not run: {reason}; the next `/apply` resumes here"),
        },
        counts: ApplyCounts::default(),
        rows: Vec::new(),
        advice: Vec::new(),
        config_errors: Vec::new(),
        pending_enrichment: false,
    }
}

/// A short line for the PR from an internal error: its first line, never a cause chain.
fn public_line(e: &anyhow::Error) -> String {
    let s = e.to_string();
    let first = s.lines().next().unwrap_or("internal error");
    if first.contains("arn:") || first.contains("://") {
        "internal error; an admin can read the server log".into()
    } else {
        first.chars().take(160).collect()
    }
}

/// Records completed resources while an apply streams, so a crash can be reported.
fn progress_recorder(
    state: Arc<AppState>,
    run_id: i64,
) -> (impl FnMut(&str) + Send, tokio::task::JoinHandle<()>) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    let task = tokio::spawn(async move {
        let mut done: Vec<String> = Vec::new();
        while let Some(addr) = rx.recv().await {
            done.push(addr);
            let json = serde_json::to_string(&done).unwrap_or_default();
            if let Err(e) = runs::set_progress(&state.db, run_id, &json).await {
                tracing::warn!(error = %format!("{e:#}"), "could not record apply progress");
            }
        }
    });
    let on_line = move |line: &str| {
        if let Ok(Some(UiMessage::ApplyComplete { hook, .. })) = parse_ui_line(line) {
            let _ = tx.send(hook.resource.addr.clone());
        }
    };
    (on_line, task)
}
