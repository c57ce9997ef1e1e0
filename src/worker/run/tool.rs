//! The project's Terraform for a run: a binary on the server, or a release installed on
//! demand ([`crate::tool_release`]), and the root's `required_version` checked against it.

use std::path::Path;

use anyhow::Result;

use super::RunCtx;
use crate::model::view::RunNote;
use crate::policy::ResolvedProject;
use crate::run_planner::settings::tool_choice;
use crate::tfrun::{self, TerraformSetup};
use crate::tool_release::{unmet_constraint, ToolChoice};

/// Most `.tf` bytes of one root read for `required_version`.
const MAX_TF_BYTES: u64 = 4 * 1024 * 1024;

impl RunCtx<'_> {
    fn tool(&self, p: &ResolvedProject) -> ToolChoice {
        let config = &self.state.config;
        tool_choice(p, &config.terraform, config.terraform_release.as_ref())
    }

    /// The setup with the project's Terraform, installed first when it is a release. `Err`
    /// is the note that tells the PR why there is none (the detail goes to the log).
    pub(super) async fn setup_for(
        &self,
        base: &TerraformSetup,
        p: &ResolvedProject,
    ) -> Result<TerraformSetup, RunNote> {
        let project = p.spec.id.0.clone();
        let mut setup = base.clone();
        setup.terraform_bin = match self.tool(p) {
            ToolChoice::Binary(path) => tfrun::resolve_program(&path).map_err(|e| {
                tracing::warn!(%project, error = %format!("{e:#}"), "no Terraform for the project");
                RunNote::TerraformMissing {
                    project: project.clone(),
                }
            })?,
            ToolChoice::Release(release) => {
                self.state.releases.ensure(&release).await.map_err(|e| {
                    tracing::error!(%project, error = %e, "the project's release could not be installed");
                    RunNote::ToolUnavailable {
                        project: project.clone(),
                        release: release.to_string(),
                        problem: e.public_problem().into(),
                    }
                })?
            }
        };
        Ok(setup)
    }

    /// Refuses a root whose `required_version` the project's release does not meet, with a
    /// line that says what to change. Roots on a server binary are left to Terraform's check.
    pub(super) fn check_required_version(
        &self,
        p: &ResolvedProject,
        checkout: &Path,
    ) -> Result<()> {
        let ToolChoice::Release(release) = self.tool(p) else {
            return Ok(());
        };
        let constraints = required_versions(&checkout.join(&p.spec.dir));
        if let Some(constraint) = unmet_constraint(&release, &constraints) {
            anyhow::bail!(
                "`{}` requires `{constraint}` (required_version) and the policy gives it {release}; set `{}` for `{}` to a version that fits",
                p.spec.dir,
                match release.tool {
                    crate::tool_release::Tool::Terraform => "terraform_version",
                    crate::tool_release::Tool::OpenTofu => "opentofu_version",
                },
                p.spec.id.0
            );
        }
        Ok(())
    }
}

/// The `required_version` constraints of the `.tf` files directly in `root`.
fn required_versions(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(root) else {
        return found;
    };
    let mut budget = MAX_TF_BYTES;
    for entry in entries.flatten() {
        let path = entry.path();
        let is_tf = path.extension().is_some_and(|e| e == "tf");
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if !is_tf || !meta.is_file() || meta.len() > budget {
            continue;
        }
        budget -= meta.len();
        if let Ok(text) = std::fs::read_to_string(&path) {
            for c in crate::project::find_required_versions(&text) {
                if !found.contains(&c) {
                    found.push(c);
                }
            }
        }
    }
    found
}
