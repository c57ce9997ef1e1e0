//! Checks of the `projects` list: values, duplicates, required roles, references between
//! projects and to inputs, and `depends_on` cycles.

use super::super::model::{exclude_matches, Input, ProjectOrigin, ResolvedProject};
use super::super::resolve::resolve_project;
use super::super::schema::{BackendConfig, PolicyFile, ProjectPolicy};
use super::{check_permissions, check_settings, idx, key, p, values, Checker, Settings};
use crate::project::{ProjectId, ProjectSpec};
use std::collections::{BTreeMap, BTreeSet};

pub(super) fn check_projects(
    c: &mut Checker,
    file: &PolicyFile,
    exclude: &[String],
    inputs: &[Input],
) -> Vec<ResolvedProject> {
    let mut resolved = Vec::new();
    let mut seen = SeenProjects::default();
    let input_names: BTreeSet<&str> = inputs.iter().map(|i| i.name.as_str()).collect();
    let names: Vec<Option<ProjectId>> = file.projects.iter().map(project_id).collect();
    let known: BTreeSet<&ProjectId> = names.iter().flatten().collect();

    for (i, project) in file.projects.iter().enumerate() {
        let at = |k: &str| p(&[key("projects"), idx(i), key(k)]);
        let dir = c.check(&at("dir"), values::project_dir(&project.dir));
        let workspace = project
            .workspace
            .clone()
            .unwrap_or_else(|| "default".to_string());
        if project.workspace.is_some() {
            c.check(&at("workspace"), values::workspace(&workspace));
        }
        if let Some(name) = &project.name {
            c.check(&at("name"), values::project_name(name));
        }
        seen.check_unique(c, i, project, names[i].as_ref(), dir.as_deref(), &workspace);
        if let Some(dir) = &dir {
            if exclude_matches(exclude, dir) {
                c.at(
                    &at("dir"),
                    format!("dir `{dir}` is excluded by `exclude`; remove one of them"),
                );
            }
        }
        check_project_settings(c, i, project, file);
        if let Some(dir) = &dir {
            check_files_inside(c, i, project, file, dir);
        }
        check_project_references(c, i, project, file, &known);
        let inputs_ok = project
            .inputs
            .iter()
            .all(|n| input_names.contains(n.as_str()));
        if let (Some(id), Some(dir), true) = (&names[i], dir, inputs_ok) {
            let spec = ProjectSpec {
                id: id.clone(),
                dir,
                workspace,
                depends_on: project
                    .depends_on
                    .iter()
                    .map(|d| ProjectId::new(d.as_str()))
                    .collect(),
                when_modified: project.when_modified.clone(),
                inputs: project.inputs.clone(),
            };
            resolved.push(resolve_project(
                spec,
                project,
                &file.defaults,
                &file.permissions,
                ProjectOrigin::Policy,
            ));
        }
    }
    check_cycles(c, file, &resolved);
    resolved
}

/// Projects seen so far, by id and by (dir, workspace), to report duplicates.
#[derive(Default)]
struct SeenProjects {
    by_name: BTreeMap<String, usize>,
    by_place: BTreeMap<(String, String), usize>,
}

impl SeenProjects {
    fn check_unique(
        &mut self,
        c: &mut Checker,
        i: usize,
        project: &ProjectPolicy,
        id: Option<&ProjectId>,
        dir: Option<&str>,
        workspace: &str,
    ) {
        let at = |k: &str| p(&[key("projects"), idx(i), key(k)]);
        if let Some(id) = id {
            if let Some(first) = self.by_name.insert(id.0.clone(), i) {
                let at_path = if project.name.is_some() {
                    at("name")
                } else {
                    at("dir")
                };
                c.at(
                    &at_path,
                    format!("duplicate project `{id}` (also projects[{first}])"),
                );
            }
        }
        if let Some(dir) = dir {
            let place = (dir.to_string(), workspace.to_string());
            if let Some(first) = self.by_place.insert(place, i) {
                c.at(&at("dir"), format!("duplicate project: dir `{dir}` workspace `{workspace}` is also projects[{first}]"));
            }
        }
    }
}

/// The project's own settings, and the roles it must get from itself or the defaults.
fn check_project_settings(c: &mut Checker, i: usize, project: &ProjectPolicy, file: &PolicyFile) {
    let base = p(&[key("projects"), idx(i)]);
    check_settings(
        c,
        &base,
        Settings {
            terraform: &project.terraform,
            terraform_version: &project.terraform_version,
            opentofu_version: &project.opentofu_version,
            plan_role: &project.plan_role,
            apply_role: &project.apply_role,
            session_policy: &project.session_policy,
            session_duration: &project.session_duration,
            parallelism: &project.parallelism,
            timeout: &project.timeout,
            egress: &project.egress,
            regions: &project.regions,
            providers: &project.providers,
            var_files: &project.var_files,
            backend_config: &project.backend_config,
            plan_args: &project.plan_args,
            apply_args: &project.apply_args,
        },
    );
    let comment_apply = project.comment_apply.unwrap_or(true);
    if project.plan_role.is_none() && file.defaults.plan_role.is_none() {
        c.at(&base, "no plan_role: set it on the project or in defaults");
    }
    if comment_apply && project.apply_role.is_none() && file.defaults.apply_role.is_none() {
        c.at(
            &base,
            "no apply_role: set it on the project or in defaults (or comment_apply: false)",
        );
    }
}

/// The project's effective `var_files` and `backend_config` file stay inside the repository.
fn check_files_inside(
    c: &mut Checker,
    i: usize,
    project: &ProjectPolicy,
    file: &PolicyFile,
    dir: &str,
) {
    let var_files = project
        .var_files
        .as_ref()
        .or(file.defaults.var_files.as_ref());
    let backend = project
        .backend_config
        .as_ref()
        .or(file.defaults.backend_config.as_ref());
    let backend_file = match backend {
        Some(BackendConfig::File(path)) => Some(path),
        _ => None,
    };
    for path in var_files.into_iter().flatten().chain(backend_file) {
        if !values::inside_repo(dir, path) {
            c.at(
                &p(&[key("projects"), idx(i), key("dir")]),
                format!("`{path}` (relative to `{dir}`) leaves the repository"),
            );
        }
    }
}

/// `depends_on`, `when_modified`, `inputs` and `permissions` of one project.
fn check_project_references(
    c: &mut Checker,
    i: usize,
    project: &ProjectPolicy,
    file: &PolicyFile,
    known: &BTreeSet<&ProjectId>,
) {
    let declared_inputs: BTreeSet<&str> = file.inputs.iter().map(|i| i.name.as_str()).collect();
    for (j, dep) in project.depends_on.iter().enumerate() {
        let dep_path = p(&[key("projects"), idx(i), key("depends_on"), idx(j)]);
        if !known.contains(&ProjectId::new(dep.as_str())) {
            c.at(
                &dep_path,
                format!("depends_on names unknown project `{dep}`"),
            );
        }
    }
    for (j, glob) in project.when_modified.iter().enumerate() {
        c.check(
            &p(&[key("projects"), idx(i), key("when_modified"), idx(j)]),
            values::path_glob(glob),
        );
    }
    for (j, name) in project.inputs.iter().enumerate() {
        if !declared_inputs.contains(name.as_str()) {
            c.at(
                &p(&[key("projects"), idx(i), key("inputs"), idx(j)]),
                format!("unknown input `{name}`: not in inputs"),
            );
        }
    }
    if let Some(over) = &project.permissions {
        let perm_base = p(&[key("projects"), idx(i), key("permissions")]);
        if let Some(plan) = &over.plan {
            check_permissions(c, &perm_base, plan, "plan");
        }
        if let Some(apply) = &over.apply {
            check_permissions(c, &perm_base, apply, "apply");
        }
    }
}

fn project_id(project: &ProjectPolicy) -> Option<ProjectId> {
    match &project.name {
        Some(name) => Some(ProjectId::new(name.as_str())),
        None => {
            let dir = crate::project::normalize_dir(&project.dir)?;
            Some(ProjectId::derived(
                &dir,
                project.workspace.as_deref().unwrap_or("default"),
            ))
        }
    }
}

fn check_cycles(c: &mut Checker, file: &PolicyFile, resolved: &[ResolvedProject]) {
    let specs: Vec<ProjectSpec> = resolved.iter().map(|r| r.spec.clone()).collect();
    let Some(cycle) = crate::project::find_cycle(&specs) else {
        return;
    };
    let first = &cycle[0];
    let second = &cycle[1];
    let index = file
        .projects
        .iter()
        .position(|pp| project_id(pp).as_ref() == Some(first));
    let walk = cycle
        .iter()
        .map(ProjectId::as_str)
        .collect::<Vec<_>>()
        .join(" -> ");
    match index {
        Some(i) => {
            let j = file.projects[i]
                .depends_on
                .iter()
                .position(|d| d == second.as_str())
                .unwrap_or(0);
            c.at(
                &[key("projects"), idx(i), key("depends_on"), idx(j)],
                format!("depends_on forms a cycle: {walk}"),
            );
        }
        None => c.at_key(&[], "projects", format!("depends_on forms a cycle: {walk}")),
    }
}
