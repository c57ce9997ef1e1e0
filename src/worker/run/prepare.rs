//! Before Terraform starts on a root: its lock, its run row, a checkout of the authorised
//! commit in a fresh workdir, and the sandbox settings with the role's STS credentials.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{anyhow, Context, Result};

use super::RunCtx;
use crate::aws::{assume_role, sanitize_sts_name, AssumeRoleRequest};
use crate::checkout::Workdir;
use crate::db::locks::{self, LockOutcome, RootClaim, RootKey};
use crate::db::runs::{self, NewRun};
use crate::jobs::{JobError, RunCommand};
use crate::model::view::LockHeld;
use crate::model::view::Notice;
use crate::model::view::NoticeBody;
use crate::policy::{ResolvedProject, SessionPolicy};
use crate::redact::{RedactionConfig, Redactor};
use crate::run_planner::run_end::{end_status, RunEnd};
use crate::run_planner::settings::{run_profile, session_tags, ServerNetwork};
use crate::tfrun::RunSettings;
use crate::worker::cloudtrail_poll;
use crate::worker::input_drift::values as inputs;

/// A root's run row and the workdir holding its checkout.
pub(super) struct Prepared {
    pub run_id: i64,
    pub workdir: Workdir,
    pub settings: RunSettings,
    /// Notes for the run's comment: a network other than the egress allowlist, provider
    /// settings removed from the checkout.
    pub notes: Vec<crate::model::view::RunNote>,
}

impl Prepared {
    pub fn checkout(&self) -> std::path::PathBuf {
        self.workdir.path().join("repo")
    }
}

impl RunCtx<'_> {
    pub(super) fn redactor(&self) -> Result<Redactor, JobError> {
        Redactor::new(&RedactionConfig {
            extra_patterns: self.policy.redact_patterns.clone(),
            // Shared-input values are never posted, wherever they show up in a plan.
            secret_values: inputs::all_values(self.policy),
        })
        .map_err(|e| JobError::Permanent(anyhow!("redaction patterns: {e}")))
    }

    /// Take the root's lock, or post who holds it. True when this PR holds it.
    pub(super) async fn lock(&self, p: &ResolvedProject) -> Result<bool, JobError> {
        let repo = self.run.repo.full_name();
        let (project, workspace) = (&p.spec.id.0, &p.spec.workspace);
        let outcome = locks::acquire(
            &self.state.db,
            &repo,
            project,
            workspace,
            self.run.number,
            &self.run.actor,
        )
        .await
        .map_err(JobError::Transient)?;
        let LockOutcome::HeldBy { pr, .. } = outcome else {
            return Ok(true);
        };
        let notice = Notice {
            meta: self.meta(project, 0),
            body: NoticeBody::LockHeld(LockHeld {
                project: project.clone(),
                dir: p.spec.dir.clone(),
                workspace: workspace.clone(),
                holder_pr: pr as u64,
                holder_url: format!("https://github.com/{repo}/pull/{pr}"),
            }),
        };
        self.notify(notice).await?;
        Ok(false)
    }

    /// Record the run and claim its root: `Ok(run id)`, or `Err((holder run, its command))`
    /// when another plan or apply holds the root (the new run row is discarded).
    pub(super) async fn claim_run(
        &self,
        p: &ResolvedProject,
        command: RunCommand,
    ) -> Result<Result<i64, (i64, String)>, JobError> {
        let run_id = self
            .create_run(p, command)
            .await
            .map_err(JobError::Transient)?;
        let repo = self.run.repo.full_name();
        let root = RootKey {
            repo: &repo,
            project: &p.spec.id.0,
            workspace: &p.spec.workspace,
        };
        let claim = locks::claim_root(
            &self.state.db,
            root,
            run_id,
            Some(self.job.id),
            command.name(),
        )
        .await
        .map_err(JobError::Transient)?;
        let RootClaim::Busy {
            run_id: holder,
            command: held_for,
        } = claim
        else {
            return Ok(Ok(run_id));
        };
        runs::discard(&self.state.db, run_id)
            .await
            .map_err(JobError::Transient)?;
        Ok(Err((holder, held_for)))
    }

    /// Record the run and claim its root: `None` (and the PR told who is running it) when
    /// another plan or apply holds the root.
    pub(super) async fn begin(
        &self,
        p: &ResolvedProject,
        command: RunCommand,
    ) -> Result<Option<i64>, JobError> {
        let (holder, held_for) = match self.claim_run(p, command).await? {
            Ok(run_id) => return Ok(Some(run_id)),
            Err(busy) => busy,
        };
        let notice = Notice {
            meta: self.meta(&p.spec.id.0, holder),
            body: NoticeBody::RootBusy {
                project: p.spec.id.0.clone(),
                command: held_for,
                run_id: holder,
            },
        };
        self.notify(notice).await?;
        Ok(None)
    }

    /// Finish a run that could not start, so that its root is free again.
    pub(super) async fn abandon(&self, run_id: i64, command: RunCommand) -> Result<(), JobError> {
        let status = end_status(command, RunEnd::NotStarted);
        runs::finish(&self.state.db, run_id, status, None, None, None)
            .await
            .map_err(JobError::Transient)
    }

    /// Check out the authorised commit and assume the command's role.
    pub(super) async fn prepare(
        &self,
        p: &ResolvedProject,
        command: RunCommand,
        run_id: i64,
        input_env: &BTreeMap<String, String>,
    ) -> Result<Prepared> {
        let workdir = Workdir::create(&self.state.config.work_dir, run_id)
            .context("creating the run's workdir")?;
        let checkout = workdir.path().join("repo");
        self.check_out(&checkout).await?;
        self.check_required_version(p, &checkout)?;
        let removed = crate::checkout::remove_provider_overrides(&checkout)
            .context("removing committed provider settings")?;
        let config = &self.state.config;
        let server = ServerNetwork {
            aws_region: config.aws_region.clone(),
            allow_host_network: config.allow_host_network,
            providers_from_mirror: config.provider_mirror.is_some(),
        };
        let profile = run_profile(command, p, &self.run.terraform_args, &server);
        let mut env = input_env.clone();
        env.extend(self.credentials(p, command, &profile.role, run_id).await?);
        env.insert("AWS_REGION".into(), self.state.config.aws_region.clone());
        let settings = RunSettings {
            env,
            network: profile.network,
            label: format!("run {run_id}"),
            providers: p.providers.clone(),
            var_files: p.var_files.clone(),
            backend_config: p.backend_config.clone(),
            timeout: profile.timeout,
            parallelism: profile.parallelism,
            extra_args: profile.extra_args,
            workspace: profile.workspace,
            create_workspace: profile.create_workspace,
            init_env: self.module_auth().await?,
            registry_credentials: self.registry_credentials(),
        };
        Ok(Prepared {
            run_id,
            workdir,
            settings,
            notes: profile
                .network_note
                .into_iter()
                .chain((!removed.is_empty()).then(|| {
                    crate::model::view::RunNote::ProviderFilesRemoved {
                        project: p.spec.id.0.clone(),
                        paths: removed,
                    }
                }))
                .collect(),
        })
    }

    pub(super) async fn create_run(&self, p: &ResolvedProject, command: RunCommand) -> Result<i64> {
        let run = NewRun {
            job_id: Some(self.job.id),
            repo: &self.run.repo.full_name(),
            pr: self.run.number,
            project: &p.spec.id.0,
            dir: &p.spec.dir,
            workspace: &p.spec.workspace,
            command: command.name(),
            actor: &self.run.actor,
            head_sha: self.head,
            terraform_args: &self.run.terraform_args,
        };
        runs::create(&self.state.db, &run).await
    }

    /// The authorised commit's tarball, unpacked into `dest`.
    async fn check_out(&self, dest: &Path) -> Result<()> {
        let app = self.state.github().context("no GitHub App configured")?;
        let api_url = &self.state.config.github_api_url;
        crate::checkout::repo_tree::download(&app, api_url, &self.run.repo, self.head, dest)
            .await
            .map(|_| ())
            .map_err(|e| anyhow!("checkout failed: {e:#}"))
    }

    /// STS credentials of `role` for this run, as environment variables.
    async fn credentials(
        &self,
        p: &ResolvedProject,
        command: RunCommand,
        role: &str,
        run_id: i64,
    ) -> Result<BTreeMap<String, String>> {
        let session_policy = match &p.session_policy {
            Some(SessionPolicy::Inline(json)) => Some(json.clone()),
            Some(SessionPolicy::File(path)) => Some(
                std::fs::read_to_string(path)
                    .with_context(|| format!("reading session policy {path}"))?,
            ),
            None => None,
        };
        let (repo, pr) = (self.run.repo.full_name(), self.run.number.to_string());
        let request = AssumeRoleRequest {
            role_arn: role,
            session_name: &cloudtrail_poll::session_name(run_id),
            source_identity: &sanitize_sts_name(&self.run.actor),
            tags: &session_tags(&repo, &pr, &p.spec.id.0),
            duration_secs: p.session_duration_seconds as i32,
            session_policy: session_policy.as_deref(),
        };
        let creds = assume_role(self.state.aws_base().await, &request)
            .await
            .map_err(|e| anyhow!("assuming the {} role failed: {e}", command.name()))?;
        Ok(BTreeMap::from([
            ("AWS_ACCESS_KEY_ID".to_string(), creds.access_key_id.clone()),
            (
                "AWS_SECRET_ACCESS_KEY".to_string(),
                creds.secret_access_key.clone(),
            ),
            ("AWS_SESSION_TOKEN".to_string(), creds.session_token.clone()),
        ]))
    }
}
