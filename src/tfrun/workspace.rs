//! The run's Terraform workspace. Every step selects it through `TF_WORKSPACE`; `init` fails
//! when the backend does not have it, and a plan's `init` may then create it.

use std::path::Path;

use anyhow::Result;

use super::{chdir, init as init_root, step, RunSettings, StepOutput, TerraformSetup};
use crate::model::view::RunNote;

/// The workspace every backend has.
pub const DEFAULT_WORKSPACE: &str = "default";

/// How `init` went, and the workspace it did not find (when it was not allowed to create it).
pub(super) struct Init {
    pub step: StepOutput,
    pub missing_workspace: Option<String>,
}

/// `init` in the settings' workspace. When it fails and the backend lists no such workspace,
/// the workspace is created (`workspace new`) and `init` runs again, if the settings allow;
/// otherwise the failed `init` is returned with the missing workspace named.
pub(super) async fn init(
    setup: &TerraformSetup,
    workdir: &Path,
    root: &str,
    settings: &RunSettings,
) -> Result<Init> {
    let init = init_in_workspace(setup, workdir, root, settings).await?;
    if init.step.ok {
        cache_providers(setup, workdir, root, settings).await;
    }
    Ok(init)
}

/// Adds the provider packages `init` installed to the provider cache, right after `init` and
/// before any plan-time code of the PR runs ([`crate::provider_cache`]).
async fn cache_providers(
    setup: &TerraformSetup,
    workdir: &Path,
    root: &str,
    settings: &RunSettings,
) {
    let Some(cache) = setup.provider_cache.clone() else {
        return;
    };
    let root_dir = workdir.join(root);
    let allowed = settings.providers.clone();
    let harvest = move || crate::provider_cache::harvest(&cache, &root_dir, &allowed);
    match tokio::task::spawn_blocking(harvest).await {
        Ok(added) if !added.is_empty() => {
            let names: Vec<String> = added.iter().map(|p| p.relative_path()).collect();
            tracing::info!(packages = ?names, "provider packages added to the cache");
        }
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "caching provider packages failed"),
    }
}

async fn init_in_workspace(
    setup: &TerraformSetup,
    workdir: &Path,
    root: &str,
    settings: &RunSettings,
) -> Result<Init> {
    let first = init_root(setup, workdir, root, settings).await?;
    let workspace = settings.workspace.as_str();
    if first.ok || workspace == DEFAULT_WORKSPACE {
        return Ok(found(first));
    }
    let args = vec![chdir(root), "workspace".into(), "list".into()];
    let list = step(setup, workdir, settings, args, &mut |_| {}).await?;
    if !list.ok || listed(&list.stdout, workspace) {
        // The init failed for another reason; its output says which.
        return Ok(found(first));
    }
    if !settings.create_workspace {
        return Ok(Init {
            step: first,
            missing_workspace: Some(workspace.to_string()),
        });
    }
    let args = vec![
        chdir(root),
        "workspace".into(),
        "new".into(),
        "-no-color".into(),
        workspace.to_string(),
    ];
    let created = step(setup, workdir, settings, args, &mut |_| {}).await?;
    if !created.ok {
        return Ok(found(created));
    }
    Ok(found(init_root(setup, workdir, root, settings).await?))
}

fn found(step: StepOutput) -> Init {
    Init {
        step,
        missing_workspace: None,
    }
}

/// Whether `terraform workspace list` output names `workspace` (`* current`, `  other`).
pub(super) fn listed(list_output: &str, workspace: &str) -> bool {
    list_output.lines().any(|line| {
        line.strip_prefix("* ")
            .or_else(|| line.strip_prefix("  "))
            .is_some_and(|name| name.trim() == workspace)
    })
}

/// The note of a workspace the backend does not have.
pub(super) fn missing_note(project: &str, missing: Option<&str>) -> Option<RunNote> {
    missing.map(|workspace| RunNote::WorkspaceMissing {
        project: project.to_string(),
        workspace: workspace.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `terraform workspace list` of Terraform 1.0.3 with `TF_WORKSPACE` set.
    const LIST: &str = "  default\n* staging\n\n\n\nThe active workspace is being overridden using the TF_WORKSPACE environment\nvariable.\n\n";

    #[test]
    fn listed_table() {
        let table = [
            ("default", true),
            ("staging", true),
            ("production", false),
            ("stag", false),
            ("variable.", false),
            ("The", false),
        ];
        for (workspace, want) in table {
            assert_eq!(listed(LIST, workspace), want, "{workspace}");
        }
        assert!(!listed("", "default"));
    }

    #[test]
    fn a_missing_workspace_is_noted_with_its_project() {
        assert_eq!(missing_note("app", None), None);
        assert_eq!(
            missing_note("app", Some("staging")),
            Some(RunNote::WorkspaceMissing {
                project: "app".into(),
                workspace: "staging".into()
            })
        );
    }
}
