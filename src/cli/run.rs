//! `tfgate run plan|apply DIR`: the bot's pipeline on a local directory, without GitHub —
//! sandbox, Terraform, parsing, classification, redaction, rendering — printing what the bot
//! would post. Exit code 1 when the plan or apply failed.

use std::path::Path;

use anyhow::{Context, Result};

use crate::config::Config;
use crate::egress::{default_rules, parse_rule, Allowlist, RunNetwork};
use crate::model::view::{ApplyComment, ApplyStatus, CommentMeta, PlanComment, PlanStatus};
use crate::redact::{Placeholders, RedactionConfig, Redactor};
use crate::render::from_outcome::RootIdent;
use crate::render::from_outcome::{apply_model, plan_model};
use crate::terraform::{
    parse_plan_json, plan_references, plan_summary, PlanReferences, PlannedChangeRef,
};
use crate::tfrun::{self, setup_from_config, RunSettings};

/// Copy a directory tree (regular files and dirs; `.terraform` and state files skipped).
pub fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let name = entry.file_name();
        let name_s = name.to_string_lossy();
        if name_s == ".terraform"
            || name_s.ends_with(".tfstate")
            || name_s.ends_with(".tfstate.backup")
        {
            continue;
        }
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_tree(&entry.path(), &to.join(&name))?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), to.join(&name))?;
        }
    }
    Ok(())
}

/// The largest state file copied.
const STATE_CAP: u64 = 256 * 1024 * 1024;

/// Copies `from/terraform.tfstate` to `to/terraform.tfstate` when it is a regular file; a link
/// is neither read (the directory may be a PR's checkout, or the sandbox's work) nor written
/// through (the file is replaced only when it is a regular file or absent).
fn copy_state(from: &Path, to: &Path) -> Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let Some(state) = crate::checkout::read_no_follow(&from.join("terraform.tfstate"), STATE_CAP)
    else {
        return Ok(());
    };
    let dest = to.join("terraform.tfstate");
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&dest)
        .with_context(|| format!("writing {} (a regular file, not a link)", dest.display()))?;
    file.write_all(&state)
        .with_context(|| format!("writing {}", dest.display()))
}

fn meta() -> CommentMeta {
    CommentMeta {
        pr: 0,
        marker_root: "local".into(),
        run_id: "local".into(),
        head_sha_short: None,
        command_by: None,
        check_run_url: None,
    }
}

pub struct LocalRun<'a> {
    pub dir: &'a Path,
    pub apply: bool,
    pub network: RunNetwork,
    /// Keep state between local runs: the directory's state is copied back after an apply.
    pub keep_state: bool,
}

/// A local directory as the root of a comment: named after its last component.
fn local_root(dir: &Path) -> RootIdent {
    RootIdent {
        project: dir
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_else(|| ".".into()),
        dir: dir.display().to_string(),
        workspace: "default".into(),
    }
}

/// The network of a local run: `egress` (the default allowlist for the server's region plus
/// `extra` entries), `none` or `shared`.
pub fn local_network(config: &Config, name: &str, extra: &[String]) -> Result<RunNetwork> {
    match name {
        "none" => Ok(RunNetwork::None),
        "shared" => Ok(RunNetwork::Shared),
        "egress" => {
            let mut rules = default_rules(
                std::slice::from_ref(&config.aws_region),
                config.provider_mirror.is_none(),
            );
            for entry in extra {
                rules.push(parse_rule(entry).map_err(|e| anyhow::anyhow!("--egress {e}"))?);
            }
            Ok(RunNetwork::Egress(Allowlist { rules }))
        }
        other => anyhow::bail!("--network must be egress, none or shared, not {other}"),
    }
}

/// The server's Terraform: its default release (installed on demand) or its binary.
async fn local_setup(config: &Config) -> Result<tfrun::TerraformSetup> {
    let mut setup = setup_from_config(config)?;
    setup.terraform_bin = match &config.terraform_release {
        Some(release) => {
            crate::state::release_source(config)?
                .ensure(release)
                .await?
        }
        None => tfrun::resolve_program(&config.terraform)?,
    };
    Ok(setup)
}

/// What the plan changes, and what each change refers to (for the apply's classification).
fn planned_of(plan_json: &str) -> Result<(Vec<PlannedChangeRef>, PlanReferences)> {
    let parsed = parse_plan_json(plan_json)?;
    Ok((
        plan_summary(&parsed).change_refs(),
        plan_references(&parsed),
    ))
}

pub async fn run_local(config: &Config, run: LocalRun<'_>) -> Result<(i32, String)> {
    let setup = local_setup(config).await?;
    let work = tempfile::Builder::new().prefix("tfgate-run-").tempdir()?;
    let root_rel = "root";
    copy_tree(run.dir, &work.path().join(root_rel))?;
    copy_state(run.dir, &work.path().join(root_rel))?;
    // The admin's own tool: any provider the mirror (or the registry) has.
    let settings = RunSettings {
        network: run.network,
        providers: vec!["registry.terraform.io/*/*".into()],
        ..Default::default()
    };
    let root = local_root(run.dir);
    let redactor = Redactor::new(&RedactionConfig::default())?;
    let mut ph = Placeholders::new();
    let renderer = crate::state::renderer_for(config)?;
    let plan = tfrun::plan(&setup, work.path(), root_rel, &settings, &mut |_| {}).await?;
    let model = plan_model(
        &root,
        plan.init.ok,
        &plan.init.stderr_tail,
        plan.plan.as_ref().map(|p| p.stdout.as_str()),
        plan.plan_json.as_deref(),
        &redactor,
        &mut ph,
    );
    let failed = model.status == PlanStatus::Failed;
    let plan_md = renderer.render_plan(&PlanComment {
        meta: meta(),
        repo_root_summaries: vec![model],
        drift_warnings: vec![],
        denials: vec![],
        notes: plan.egress_note(&root.project).into_iter().collect(),
        still_planning: Vec::new(),
    })?;
    if !run.apply || failed {
        return Ok((i32::from(failed), plan_md));
    }
    let (Some(plan_file), Some(plan_json)) = (plan.plan_file, plan.plan_json) else {
        return Ok((1, plan_md));
    };
    let (planned, references) = planned_of(&plan_json)?;
    let applied = tfrun::apply(
        &setup,
        work.path(),
        root_rel,
        &plan_file,
        &settings,
        &mut |_| {},
    )
    .await?;
    let model = apply_model(
        &root,
        applied.init.ok,
        &applied.init.stderr_tail,
        applied.apply.as_ref().map(|a| a.stdout.as_str()),
        &planned,
        &references,
        &redactor,
        &mut ph,
    );
    if run.keep_state {
        copy_state(&work.path().join(root_rel), run.dir)?;
    }
    let ok = model.status == ApplyStatus::Succeeded;
    let md = renderer.render_apply(&ApplyComment {
        meta: meta(),
        roots: vec![model],
        notes: applied.egress_note(&root.project).into_iter().collect(),
    })?;
    Ok((i32::from(!ok), md))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn state_is_copied_only_between_regular_files() {
        let (from, to, outside) = (
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
        );
        let secret = outside.path().join("credentials");
        std::fs::write(&secret, "secret").unwrap();
        let state = |dir: &Path| dir.join("terraform.tfstate");
        symlink(&secret, state(from.path())).unwrap();
        copy_state(from.path(), to.path()).unwrap();
        assert!(!state(to.path()).exists(), "a linked state is not read");
        std::fs::remove_file(state(from.path())).unwrap();
        std::fs::write(state(from.path()), "{}").unwrap();
        copy_state(from.path(), to.path()).unwrap();
        assert_eq!(std::fs::read_to_string(state(to.path())).unwrap(), "{}");
        std::fs::remove_file(state(to.path())).unwrap();
        symlink(&secret, state(to.path())).unwrap();
        assert!(copy_state(from.path(), to.path()).is_err());
        assert_eq!(std::fs::read_to_string(&secret).unwrap(), "secret");
    }
}
