//! Terraform in the sandbox: `init`, `plan -json -out`, `show -json`, `apply -json PLANFILE`.
//! Thin: it builds the sandbox spec and the argument lists and returns raw outputs; parsing
//! and rendering happen in the pure modules.

pub mod env;
mod workspace;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};

use crate::config::Config;
use crate::egress::{DenyReason, RunNetwork};
use crate::model::view::RunNote;

use crate::sandbox::{ExitKind, Limits, ResourceLimit, RunOutput, SandboxMode};

mod args;
pub mod cli_config;
mod egress_step;
pub mod git_auth;
mod plan_dir;
mod step;

use args::chdir;
pub use args::{apply_args, init_args, plan_args};
use plan_dir::PlanDir;
use step::{step, step_with, StepAccess, Writable};

/// Where Terraform comes from and how it is isolated (server configuration).
#[derive(Debug, Clone)]
pub struct TerraformSetup {
    pub terraform_bin: PathBuf,
    /// The server's `--tf-cli-config` text, appended to the CLI config tfgate writes for
    /// every step (it may not install providers itself).
    pub admin_cli_config: Option<String>,
    /// The server's provider mirror (`--provider-mirror`): where allowed providers come from.
    pub provider_mirror: Option<PathBuf>,
    /// More read-only binds (e.g. the provider mirror the CLI config points to).
    pub extra_ro_binds: Vec<PathBuf>,
    /// The provider cache ([`crate::provider_cache`]): the first provider source of every
    /// step, bound read-only; filled on the host after each successful `init`.
    pub provider_cache: Option<PathBuf>,
    pub mode: SandboxMode,
    /// The tfgate binary that runs `sandbox-relay` inside an egress sandbox.
    pub relay_bin: PathBuf,
    /// Where each step's egress proxy socket directory and CLI config are made.
    pub runtime_dir: PathBuf,
    /// The host's own addresses (refused to wildcard allowlist entries).
    pub host_addrs: Vec<std::net::IpAddr>,
    /// Per-run resource limits (server configuration).
    pub limits: Limits,
    /// Most bytes of stdout + stderr one step may print; past it the step is killed.
    pub output_cap_bytes: usize,
}

/// Per-run settings (from policy and the command).
#[derive(Debug, Clone)]
pub struct RunSettings {
    /// Extra environment (AWS credentials, `TF_VAR_*` of shared inputs). Never logged.
    pub env: BTreeMap<String, String>,
    pub network: RunNetwork,
    /// Names the run in egress log lines (`run 42`).
    pub label: String,
    /// Provider sources `init` may install (`registry.terraform.io/hashicorp/*`).
    pub providers: Vec<String>,
    /// `-var-file=` paths (relative to the root) every plan passes.
    pub var_files: Vec<String>,
    /// `-backend-config=` values every `init` passes.
    pub backend_config: Vec<String>,
    pub timeout: Duration,
    pub parallelism: Option<u32>,
    /// Allowlisted Terraform flags from the command (`-target=…` …).
    pub extra_args: Vec<String>,
    /// The Terraform workspace every step selects (`TF_WORKSPACE`).
    pub workspace: String,
    /// Whether `init` creates the workspace when the backend does not have it.
    pub create_workspace: bool,
    /// More environment for `init` only: the Git credential helper and its scoped token for
    /// private module repositories ([`git_auth`]). Never logged.
    pub init_env: BTreeMap<String, String>,
    /// Private registry tokens (`host`, token), written as `credentials` blocks into the CLI
    /// config of the `init` steps only (outside the workdir, removed when the step ends):
    /// `plan`, `show` and `apply`, where the PR's code runs, never see them. Never logged.
    pub registry_credentials: Vec<(String, String)>,
}

impl Default for RunSettings {
    fn default() -> Self {
        RunSettings {
            env: BTreeMap::new(),
            network: RunNetwork::None,
            label: "local".into(),
            providers: vec!["registry.terraform.io/hashicorp/*".into()],
            var_files: Vec::new(),
            backend_config: Vec::new(),
            timeout: Duration::from_secs(3600),
            parallelism: None,
            extra_args: Vec::new(),
            workspace: workspace::DEFAULT_WORKSPACE.into(),
            create_workspace: false,
            init_env: BTreeMap::new(),
            registry_credentials: Vec::new(),
        }
    }
}

/// What a step printed and how it ended.
#[derive(Debug, Clone)]
pub struct StepOutput {
    pub ok: bool,
    pub status: ExitKind,
    pub stdout: String,
    pub stderr_tail: String,
    pub duration: Duration,
    /// Connections the step's egress proxy refused.
    pub blocked: Vec<DenyReason>,
    /// `host:port` of the refused connections an allowlist entry would admit.
    pub blocked_endpoints: Vec<String>,
    /// stdout lines too long for the line callback (dropped from it, still in `stdout`).
    pub overlong_lines: u64,
}

impl StepOutput {
    /// The resource limit that ended this step, if one did.
    pub fn limit(&self) -> Option<ResourceLimit> {
        match self.status {
            ExitKind::LimitHit(limit) => Some(limit),
            _ => None,
        }
    }
}

impl From<RunOutput> for StepOutput {
    fn from(o: RunOutput) -> Self {
        StepOutput {
            ok: matches!(o.status, ExitKind::Exited(0)),
            status: o.status,
            stdout: o.stdout,
            stderr_tail: o.stderr_tail,
            duration: o.duration,
            blocked: Vec::new(),
            blocked_endpoints: Vec::new(),
            overlong_lines: o.overlong_lines,
        }
    }
}

/// The result of `init` + `plan` + `show`.
#[derive(Debug, Clone)]
pub struct PlanOutput {
    pub init: StepOutput,
    /// The `plan -json` stream (None when init failed).
    pub plan: Option<StepOutput>,
    /// `show -json` of the saved plan (None when plan failed).
    pub plan_json: Option<String>,
    /// The saved plan file's bytes.
    pub plan_file: Option<Vec<u8>>,
    /// The workspace `init` did not find (and was not allowed to create).
    pub missing_workspace: Option<String>,
    /// Connections refused by the egress proxy in any step.
    pub blocked: Vec<DenyReason>,
    /// `host:port` of the refused connections an allowlist entry would admit, in any step.
    pub blocked_endpoints: Vec<String>,
    /// The resource limit `show -json` hit (its output is not kept otherwise).
    pub show_limit: Option<ResourceLimit>,
}

/// The result of `init` + `apply -json PLANFILE`.
#[derive(Debug, Clone)]
pub struct ApplyOutput {
    pub init: StepOutput,
    pub apply: Option<StepOutput>,
    /// The workspace `init` did not find.
    pub missing_workspace: Option<String>,
    /// Connections refused by the egress proxy in any step.
    pub blocked: Vec<DenyReason>,
    /// `host:port` of the refused connections an allowlist entry would admit, in any step.
    pub blocked_endpoints: Vec<String>,
}

impl PlanOutput {
    /// The resource limit a step of this plan hit, if one did.
    pub fn limit_hit(&self) -> Option<ResourceLimit> {
        self.init
            .limit()
            .or(self.plan.as_ref().and_then(StepOutput::limit))
            .or(self.show_limit)
    }

    /// Lines the streamed steps dropped for their length.
    pub fn overlong_lines(&self) -> u64 {
        self.init.overlong_lines + self.plan.as_ref().map_or(0, |p| p.overlong_lines)
    }

    /// The note of a missing workspace, under the plan of `project`.
    pub fn workspace_note(&self, project: &str) -> Option<RunNote> {
        workspace::missing_note(project, self.missing_workspace.as_deref())
    }

    /// The note of refused connections, under the plan of `project`.
    pub fn egress_note(&self, project: &str) -> Option<RunNote> {
        egress_step::blocked_note(project, &self.blocked)
    }
}

impl ApplyOutput {
    /// The resource limit a step of this apply hit, if one did.
    pub fn limit_hit(&self) -> Option<ResourceLimit> {
        self.init
            .limit()
            .or(self.apply.as_ref().and_then(StepOutput::limit))
    }

    /// Lines the streamed steps dropped for their length.
    pub fn overlong_lines(&self) -> u64 {
        self.init.overlong_lines + self.apply.as_ref().map_or(0, |a| a.overlong_lines)
    }

    /// The note of a missing workspace, under the apply of `project`.
    pub fn workspace_note(&self, project: &str) -> Option<RunNote> {
        workspace::missing_note(project, self.missing_workspace.as_deref())
    }

    /// The note of refused connections, under the apply of `project`.
    pub fn egress_note(&self, project: &str) -> Option<RunNote> {
        egress_step::blocked_note(project, &self.blocked)
    }
}

/// The saved plan's file name, in its own directory outside the workdir ([`plan_dir`]).
pub const PLAN_FILE: &str = "tfgate.tfplan";
/// The largest plan file read back.
const PLAN_FILE_CAP: u64 = 512 * 1024 * 1024;

/// `init`, then `plan -json -out`, then `show -json`. `root` is relative to `workdir`.
pub async fn plan(
    setup: &TerraformSetup,
    workdir: &Path,
    root: &str,
    settings: &RunSettings,
    on_line: &mut (dyn FnMut(&str) + Send),
) -> Result<PlanOutput> {
    let workspace::Init {
        step: init,
        missing_workspace,
    } = workspace::init(setup, workdir, root, settings).await?;
    if !init.ok {
        return Ok(PlanOutput {
            blocked: init.blocked.clone(),
            blocked_endpoints: init.blocked_endpoints.clone(),
            init,
            plan: None,
            plan_json: None,
            plan_file: None,
            missing_workspace,
            show_limit: None,
        });
    }
    let plan_dir = PlanDir::create(&setup.runtime_dir)?;
    let plan_file = plan_dir.file();
    let mut access = StepAccess {
        plan_dir: Some((plan_dir.path(), Writable::Yes)),
        ..StepAccess::default()
    };
    let args = plan_args(root, settings, &plan_file);
    let plan = step_with(setup, workdir, settings, access, args, on_line).await?;
    if !plan.ok {
        return Ok(PlanOutput {
            blocked: [&init.blocked[..], &plan.blocked[..]].concat(),
            blocked_endpoints: [&init.blocked_endpoints[..], &plan.blocked_endpoints[..]].concat(),
            init,
            plan: Some(plan),
            plan_json: None,
            plan_file: None,
            missing_workspace: None,
            show_limit: None,
        });
    }
    access.plan_dir = Some((plan_dir.path(), Writable::No));
    let show_args = vec![
        chdir(root),
        "show".into(),
        "-json".into(),
        plan_file.display().to_string(),
    ];
    let show = step_with(setup, workdir, settings, access, show_args, &mut |_| {}).await?;
    let plan_file = plan_dir.read(PLAN_FILE_CAP)?;
    let show_limit = show.limit();
    Ok(PlanOutput {
        blocked: [&init.blocked[..], &plan.blocked[..], &show.blocked[..]].concat(),
        blocked_endpoints: [&init.blocked_endpoints[..], &plan.blocked_endpoints[..]].concat(),
        init,
        plan: Some(plan),
        plan_json: show.ok.then_some(show.stdout),
        plan_file: Some(plan_file),
        missing_workspace: None,
        show_limit,
    })
}

/// `init` of the root (in the settings' workspace, through the environment).
async fn init(
    setup: &TerraformSetup,
    workdir: &Path,
    root: &str,
    settings: &RunSettings,
) -> Result<StepOutput> {
    let mut with_auth = settings.clone();
    with_auth.env.extend(settings.init_env.clone());
    let access = StepAccess {
        registry_credentials: &settings.registry_credentials,
        ..StepAccess::default()
    };
    let args = init_args(root, settings);
    step_with(setup, workdir, &with_auth, access, args, &mut |_| {}).await
}

/// `init`, then `apply -json` of exactly the given saved plan.
pub async fn apply(
    setup: &TerraformSetup,
    workdir: &Path,
    root: &str,
    plan_file: &[u8],
    settings: &RunSettings,
    on_line: &mut (dyn FnMut(&str) + Send),
) -> Result<ApplyOutput> {
    let workspace::Init {
        step: init,
        missing_workspace,
    } = workspace::init(setup, workdir, root, settings).await?;
    if !init.ok {
        return Ok(ApplyOutput {
            blocked: init.blocked.clone(),
            blocked_endpoints: init.blocked_endpoints.clone(),
            init,
            apply: None,
            missing_workspace,
        });
    }
    // Written by the host into tfgate's own directory, never into the PR's tree.
    let plan_dir = PlanDir::create(&setup.runtime_dir)?;
    plan_dir.write_new(plan_file)?;
    let access = StepAccess {
        plan_dir: Some((plan_dir.path(), Writable::No)),
        ..StepAccess::default()
    };
    let args = apply_args(root, settings, &plan_dir.file());
    let apply = step_with(setup, workdir, settings, access, args, on_line).await?;
    Ok(ApplyOutput {
        blocked: [&init.blocked[..], &apply.blocked[..]].concat(),
        blocked_endpoints: [&init.blocked_endpoints[..], &apply.blocked_endpoints[..]].concat(),
        init,
        apply: Some(apply),
        missing_workspace: None,
    })
}

/// Resolve a program name through PATH (the sandbox needs an absolute path to bind).
pub fn resolve_program(p: &Path) -> Result<PathBuf> {
    if p.components().count() > 1 {
        return std::fs::canonicalize(p).with_context(|| format!("{} not found", p.display()));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        let candidate = dir.join(p);
        if candidate.is_file() {
            return Ok(candidate);
        }
    }
    bail!("{} not found in PATH; set TFGATE_TERRAFORM", p.display())
}

pub fn setup_from_config(config: &Config) -> Result<TerraformSetup> {
    let abs = |p: &PathBuf| {
        std::fs::canonicalize(p).with_context(|| format!("{} not found", p.display()))
    };
    let mirror = config.provider_mirror.as_ref().map(abs).transpose()?;
    let cache = match &config.provider_cache {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("creating the provider cache {}", dir.display()))?;
            Some(abs(dir)?)
        }
        None => None,
    };
    Ok(TerraformSetup {
        // Resolved again per project (a release may stand in for it): a missing binary is
        // told on the PR of the project that needs it, not fatal to every run.
        terraform_bin: resolve_program(&config.terraform)
            .unwrap_or_else(|_| config.terraform.clone()),
        admin_cli_config: config
            .tf_cli_config
            .as_deref()
            .map(cli_config::read_admin_config)
            .transpose()?,
        provider_mirror: mirror.clone(),
        extra_ro_binds: mirror.into_iter().collect(),
        provider_cache: cache,
        mode: config.sandbox,
        relay_bin: abs(&config.sandbox_relay)?,
        runtime_dir: config.work_dir.join("runtime"),
        host_addrs: crate::egress::host_addrs::host_addresses(),
        limits: config.sandbox_limits,
        output_cap_bytes: config.sandbox_output_cap_bytes,
    })
}
