//! Resolving a project's effective settings: its own, else the file's `defaults`, else the
//! built-in defaults.

use super::model::{
    ProjectOrigin, ResolvedProject, DEFAULT_PARALLELISM, DEFAULT_SESSION_DURATION, DEFAULT_TIMEOUT,
};
use super::schema::{BackendConfig, Permissions, ProjectDefaults, ProjectPolicy};
use super::values;
use crate::project::ProjectSpec;

/// Resolves a project's settings: its own, else `defaults`, else built-in defaults.
/// Values were validated before; invalid ones fall back to the built-in default.
pub(crate) fn resolve_project(
    spec: ProjectSpec,
    project: &ProjectPolicy,
    defaults: &ProjectDefaults,
    file_permissions: &Permissions,
    origin: ProjectOrigin,
) -> ResolvedProject {
    let pick = |own: &Option<String>, def: &Option<String>| own.clone().or_else(|| def.clone());
    let terraform = terraform_of(
        &project.terraform,
        &project.terraform_version,
        &project.opentofu_version,
    )
    .or_else(|| {
        terraform_of(
            &defaults.terraform,
            &defaults.terraform_version,
            &defaults.opentofu_version,
        )
    });
    let session_policy = pick(&project.session_policy, &defaults.session_policy)
        .and_then(|s| values::session_policy(&s).ok());
    let session_duration = project
        .session_duration
        .as_ref()
        .or(defaults.session_duration.as_ref())
        .and_then(|d| d.seconds())
        .map(|s| s as u32)
        .unwrap_or(DEFAULT_SESSION_DURATION);
    let timeout = project
        .timeout
        .as_ref()
        .or(defaults.timeout.as_ref())
        .and_then(|d| d.seconds())
        .unwrap_or(DEFAULT_TIMEOUT);
    let mut permissions = file_permissions.clone();
    if let Some(over) = &project.permissions {
        if let Some(plan) = &over.plan {
            permissions.plan = plan.clone();
        }
        if let Some(apply) = &over.apply {
            permissions.apply = apply.clone();
        }
    }
    let comment_apply = project.comment_apply.unwrap_or(true);
    let lists = resolve_lists(project, defaults);
    ResolvedProject {
        spec,
        terraform,
        plan_role: pick(&project.plan_role, &defaults.plan_role).unwrap_or_default(),
        apply_role: pick(&project.apply_role, &defaults.apply_role),
        session_policy,
        session_duration_seconds: session_duration,
        parallelism: project
            .parallelism
            .or(defaults.parallelism)
            .unwrap_or(DEFAULT_PARALLELISM),
        timeout_seconds: timeout,
        network: project.network.or(defaults.network).unwrap_or_default(),
        egress: lists.egress,
        regions: lists.regions,
        providers: lists.providers,
        var_files: lists.var_files,
        backend_config: lists.backend_config,
        plan_args: lists.plan_args,
        apply_args: lists.apply_args,
        create_workspace: project
            .create_workspace
            .or(defaults.create_workspace)
            .unwrap_or(false),
        autoplan: project.autoplan.unwrap_or(true),
        comment_apply,
        inputs: project.inputs.clone(),
        permissions,
        origin,
    }
}

/// The list settings of a project's Terraform runs (network allowlist, providers, files,
/// flags): the project's, else the defaults' (`egress` adds the two).
struct Lists {
    egress: Vec<crate::egress::EgressRule>,
    regions: Vec<String>,
    providers: Vec<String>,
    var_files: Vec<String>,
    backend_config: Vec<String>,
    plan_args: Vec<String>,
    apply_args: Vec<String>,
}

fn resolve_lists(project: &ProjectPolicy, defaults: &ProjectDefaults) -> Lists {
    Lists {
        egress: defaults
            .egress
            .iter()
            .chain(project.egress.iter())
            .flatten()
            .filter_map(|e| crate::egress::parse_rule(e).ok())
            .collect(),
        var_files: project
            .var_files
            .clone()
            .or_else(|| defaults.var_files.clone())
            .unwrap_or_default(),
        backend_config: match project
            .backend_config
            .as_ref()
            .or(defaults.backend_config.as_ref())
        {
            None => Vec::new(),
            Some(BackendConfig::File(path)) => vec![path.clone()],
            Some(BackendConfig::Values(values)) => {
                values.iter().map(|(k, v)| format!("{k}={v}")).collect()
            }
        },
        plan_args: project
            .plan_args
            .clone()
            .or_else(|| defaults.plan_args.clone())
            .unwrap_or_default()
            .iter()
            .filter_map(|a| crate::command::policy_terraform_arg(a, false).ok())
            .collect(),
        apply_args: project
            .apply_args
            .clone()
            .or_else(|| defaults.apply_args.clone())
            .unwrap_or_default()
            .iter()
            .filter_map(|a| crate::command::policy_terraform_arg(a, true).ok())
            .collect(),
        regions: project
            .regions
            .clone()
            .or_else(|| defaults.regions.clone())
            .unwrap_or_default(),
        providers: project
            .providers
            .clone()
            .or_else(|| defaults.providers.clone())
            .unwrap_or_else(|| vec!["hashicorp/*".to_string()])
            .iter()
            .filter_map(|p| values::provider_source(p).ok())
            .collect(),
    }
}

/// The `defaults`' choice of Terraform.
pub(crate) fn defaults_terraform(d: &ProjectDefaults) -> Option<super::model::TerraformSpec> {
    terraform_of(&d.terraform, &d.terraform_version, &d.opentofu_version)
}

/// One level's (project's or defaults') choice of Terraform; the project's wins whole.
fn terraform_of(
    terraform: &Option<String>,
    terraform_version: &Option<String>,
    opentofu_version: &Option<String>,
) -> Option<super::model::TerraformSpec> {
    use crate::tool_release::Tool;
    let spec = match (terraform, terraform_version, opentofu_version) {
        (Some(t), _, _) => values::terraform(t),
        (None, Some(v), _) => values::tool_version(Tool::Terraform, v),
        (None, None, Some(v)) => values::tool_version(Tool::OpenTofu, v),
        (None, None, None) => return None,
    };
    spec.ok()
}
