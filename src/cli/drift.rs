//! `tfgate drift run --repo o/r [--project P]`: queue a drift check now (the workers of a
//! running `serve` or `tfgate worker` run it and update the repository's drift issue).

use anyhow::{bail, Context, Result};
use clap::Subcommand;

use crate::config::Config;
use crate::model::RepoRef;
use crate::state::AppState;

#[derive(Subcommand)]
pub enum DriftCmd {
    /// Queue a drift check of a repository's default branch now.
    Run {
        /// OWNER/NAME.
        #[arg(long)]
        repo: String,
        /// Only these projects (repeatable); default: the policy's `drift_detection.projects`.
        #[arg(long = "project")]
        projects: Vec<String>,
    },
}

pub async fn run(config: Config, what: DriftCmd) -> Result<()> {
    let DriftCmd::Run { repo, projects } = what;
    let state = AppState::build(config).await?;
    if state.config.policy_repo.is_some() {
        crate::worker::policy_repo::sync_default_branch(&state).await?;
    }
    let set = state.policies.current();
    let Some(policy) = set.for_repo(&repo) else {
        bail!("no policy covers {repo}");
    };
    for name in &projects {
        if policy.project(name).is_none() {
            bail!(
                "{repo} has no project `{name}` in its policy ({})",
                policy.file
            );
        }
    }
    let (owner, name) = repo.split_once('/').context("--repo must be OWNER/NAME")?;
    let app = state
        .github()
        .context("no GitHub App configured (register it through the setup page first)")?;
    let installation_id = app.repository_installation(owner, name).await?;
    let target = RepoRef {
        installation_id,
        owner: owner.into(),
        name: name.into(),
    };
    let id = crate::worker::drift_detection::schedule::enqueue_drift(
        &state,
        target,
        projects,
        "tfgate drift run",
    )
    .await?;
    println!("queued drift check of {repo} (job {id}); a running tfgate serve or worker runs it and updates the \"tfgate drift report\" issue");
    Ok(())
}
