//! `run` jobs: Terraform plan/apply of a PR's roots, in order. Effects only: the checkout,
//! STS, the sandboxed Terraform, sealing and storing, posting. What the PR sees comes from the
//! pure `results` and `render` modules.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, Context, Result};
use octocrab::Octocrab;

use super::layout::policy_for_pr;
use super::{cloudtrail_poll, drift_check, github_error, payload, publish};
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
use crate::jobs::RunJob;
use crate::jobs::{ClaimedJob, JobError};
use crate::jobs::{EnrichJob, PendingFailure};
use crate::policy::{
    Network as PolicyNetwork, RepoPolicy, ResolvedProject, SessionPolicy, TerraformSpec,
};
use crate::redact::{Placeholders, RedactionConfig, Redactor};
use crate::render::from_outcome::RootIdent;
use crate::render::from_outcome::{apply_model, plan_model};
use crate::render::{
    ApplyComment, ApplyCounts, ApplyStatus, CommentMeta, LockHeld, Notice, NoticeBody, PlanComment,
    PlanStale, PlanStatus, Renderer, RootApply, RunInterrupted, RunNote, SkipReason,
};
use crate::sandbox::Network;
use crate::state::AppState;
use crate::terraform::{apply_outcome, parse_ui_stream};
use crate::terraform::{
    parse_plan_json, parse_ui_line, plan_summary, Action, PlannedChangeRef, UiMessage,
};
use crate::tfrun::{self, setup_from_config, RunSettings};

mod apply;
mod plan;

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
    // Layout projects as the base branch has them now (the PR was told of problems when the
    // command was authorized; a project gone since is reported below).
    let (policy, _) = policy_for_pr(&gh, &run.repo, policy, &pr.base.name).await?;
    let policy = &policy;
    let head = pr.head.sha.clone();
    let missing: Vec<&str> = run
        .projects
        .iter()
        .filter(|name| policy.project(name).is_none())
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        let body = format!(
            "Not run, no longer declared (the admin policy or `tfgate.yaml` on `{}` changed \
             since the command): {}.",
            pr.base.name,
            missing
                .iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        api::create_comment(&gh, &run.repo, run.number, &body)
            .await
            .map_err(github_error)?;
    }
    let projects: Vec<&ResolvedProject> = run
        .projects
        .iter()
        .filter_map(|name| policy.project(name))
        .collect();
    if projects.is_empty() {
        return Ok(());
    }
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
    /// The project's Terraform: the policy may name a binary (`/opt/tofu/bin/tofu`) or a
    /// version the server provides under `DATA_DIR/terraform/<version>/terraform`.
    fn setup_for(
        &self,
        base: &tfrun::TerraformSetup,
        p: &ResolvedProject,
    ) -> Result<tfrun::TerraformSetup> {
        let mut setup = base.clone();
        match &p.terraform {
            None => {}
            Some(TerraformSpec::Binary(path)) => {
                setup.terraform_bin = std::path::PathBuf::from(path)
            }
            Some(TerraformSpec::Version(v)) => {
                setup.terraform_bin = self
                    .state
                    .config
                    .data_dir
                    .join("terraform")
                    .join(v)
                    .join("terraform")
            }
        }
        if !setup.terraform_bin.is_file() {
            anyhow::bail!(
                "Terraform for `{}` is not installed on the server",
                p.spec.id.0
            );
        }
        Ok(setup)
    }

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
        let session_name = cloudtrail_poll::session_name(run_id);
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
