//! One sandboxed Terraform step: its egress proxy, its own CLI config (written outside the
//! workdir, bound read-only, removed when the step ends) and what else it may see.

use std::path::Path;

use anyhow::{Context, Result};

use super::{cli_config, egress_step, env, RunSettings, StepOutput, TerraformSetup};
use crate::sandbox::{run_sandboxed, Network, SandboxSpec};

/// What one step may see besides the workdir and the run's settings.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct StepAccess<'a> {
    /// The saved plan's directory ([`super::plan_dir`]): read-write for `plan`, which writes
    /// the plan file, read-only for `show` and `apply`.
    pub plan_dir: Option<(&'a Path, Writable)>,
    /// Private registry tokens, as `credentials` blocks of this step's CLI config: only the
    /// `init` steps, which install modules and providers, get them. Plan-time code never runs
    /// while such a file exists.
    pub registry_credentials: &'a [(String, String)],
}

/// Whether a bound directory is writable inside the sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Writable {
    Yes,
    No,
}

fn spec(
    setup: &TerraformSetup,
    workdir: &Path,
    settings: &RunSettings,
    network: Network,
) -> SandboxSpec {
    SandboxSpec {
        workdir: workdir.to_path_buf(),
        terraform_bin: setup.terraform_bin.clone(),
        plugin_cache: setup.provider_cache.clone(),
        extra_ro_binds: setup.extra_ro_binds.clone(),
        rw_binds: Vec::new(),
        env: env::sandbox_env(setup, &settings.env, &settings.workspace),
        network,
        limits: setup.limits,
        timeout: settings.timeout,
        output_cap_bytes: setup.output_cap_bytes,
    }
}

/// Runs `terraform ARGS` in the sandbox with what `access` grants.
pub(super) async fn step_with(
    setup: &TerraformSetup,
    workdir: &Path,
    settings: &RunSettings,
    access: StepAccess<'_>,
    args: Vec<String>,
    on_line: &mut (dyn FnMut(&str) + Send),
) -> Result<StepOutput> {
    let egress = egress_step::EgressStep::start(setup, settings)?;
    let mut spec = spec(setup, workdir, settings, egress.network());
    egress.add_proxy_env(&mut spec);
    match access.plan_dir {
        Some((dir, Writable::Yes)) => spec.rw_binds.push(dir.to_path_buf()),
        Some((dir, Writable::No)) => spec.extra_ro_binds.push(dir.to_path_buf()),
        None => {}
    }
    let mut text = cli_config::render(
        &settings.providers,
        setup.provider_cache.as_deref(),
        setup.provider_mirror.as_deref(),
        setup.admin_cli_config.as_deref(),
    );
    text.push_str(&cli_config::credentials(access.registry_credentials));
    // Removed when this step ends (the handle drops), before any later step starts.
    let cli_config = cli_config::write_temp(&setup.runtime_dir, &text)?;
    let cli_config_path = cli_config.path().to_path_buf();
    spec.env.insert(
        "TF_CLI_CONFIG_FILE".into(),
        cli_config_path.display().to_string(),
    );
    spec.extra_ro_binds.push(cli_config_path);
    let out = run_sandboxed(&spec, setup.mode, &setup.terraform_bin, &args, |l| {
        on_line(l)
    })
    .await
    .with_context(|| {
        format!(
            "running terraform {}",
            args.get(1).map(String::as_str).unwrap_or("")
        )
    })?;
    drop(cli_config);
    let mut out = StepOutput::from(out);
    out.blocked = egress.finish();
    Ok(out)
}

/// A step that sees only the workdir: no plan directory, no registry token.
pub(super) async fn step(
    setup: &TerraformSetup,
    workdir: &Path,
    settings: &RunSettings,
    args: Vec<String>,
    on_line: &mut (dyn FnMut(&str) + Send),
) -> Result<StepOutput> {
    step_with(
        setup,
        workdir,
        settings,
        StepAccess::default(),
        args,
        on_line,
    )
    .await
}
