//! `tfgate policy import-atlantis`: an Atlantis repo config (v3) → a tfgate layout file and
//! a policy skeleton, with one warning per thing that has no equivalent.
//!
//! Mapping: projects (name, dir, workspace, `autoplan.when_modified`, `depends_on`) go to the
//! layout; `execution_order_group`s become `depends_on` edges (each project depends on every
//! project of the previous group); `apply_requirements` are merged into one policy-wide list
//! (`approved` → `approved`, `mergeable` → `mergeable`, `undiverged` → `up_to_date`); a
//! `terraform_version` shared by every project becomes `defaults.terraform`. Custom workflows
//! map what tfgate has (`workflow.rs`): the `default` workflow's settings go to `defaults:`,
//! and a project whose workflow differs from it, or whose autoplan is off, is declared in the
//! policy's `projects:` (with the projects it depends on) instead of the layout. Everything
//! else is reported.

mod render;
mod workflow;

use crate::project::{normalize_dir, ProjectId};
use serde_yaml::{Mapping, Value};
use std::collections::{BTreeMap, BTreeSet};
use thiserror::Error;
use workflow::{import_workflows, WorkflowSettings};

/// The result of an import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtlantisImport {
    /// Contents for the repository's `tfgate.yaml`.
    pub layout_yaml: String,
    /// Contents for a server-side policy file (placeholders to replace are marked).
    pub policy_yaml: String,
    /// One line per thing without an equivalent, or mapped with a difference.
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AtlantisImportError {
    #[error("atlantis.yaml is not valid YAML: {0}")]
    Yaml(String),
    #[error("atlantis.yaml must be a mapping with a `projects` list")]
    Shape,
    #[error("projects[{0}] has no `dir`")]
    MissingDir(usize),
}

struct Project {
    id: ProjectId,
    name: Option<String>,
    dir: String,
    workspace: String,
    when_modified: Vec<String>,
    depends_on: Vec<String>,
    group: Option<i64>,
    terraform: Option<String>,
    workflow: Option<String>,
    autoplan: bool,
    /// What its workflow maps to.
    settings: WorkflowSettings,
    /// Declared in the policy (settings the layout cannot carry), not in the layout.
    in_policy: bool,
}

fn s(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_sequence)
        .map(|seq| seq.iter().filter_map(s).collect())
        .unwrap_or_default()
}

/// Converts an Atlantis repo config.
pub fn import_atlantis(yaml: &str) -> Result<AtlantisImport, AtlantisImportError> {
    let root: Value =
        serde_yaml::from_str(yaml).map_err(|e| AtlantisImportError::Yaml(e.to_string()))?;
    let root = root.as_mapping().ok_or(AtlantisImportError::Shape)?;
    let project_values = root
        .get("projects")
        .and_then(Value::as_sequence)
        .ok_or(AtlantisImportError::Shape)?;
    let mut warnings = Vec::new();
    top_level_warnings(root, &mut warnings);

    let mut projects = Vec::new();
    let mut requirements: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
    let mut per_project_reqs: Vec<(String, BTreeSet<&'static str>)> = Vec::new();
    for (i, value) in project_values.iter().enumerate() {
        let Some((project, reqs)) = import_project(i, value, &mut warnings)? else {
            continue;
        };
        for r in &reqs {
            requirements
                .entry(r)
                .or_default()
                .push(project.id.to_string());
        }
        per_project_reqs.push((project.id.to_string(), reqs));
        projects.push(project);
    }
    add_execution_order(&mut projects, &mut warnings);
    let terraform = common_terraform(&projects, &mut warnings);
    let defaults = apply_workflows(root, terraform.as_deref(), &mut projects, &mut warnings);
    let union: BTreeSet<&'static str> = requirements.keys().copied().collect();
    differing_requirement_warnings(&per_project_reqs, &union, &mut warnings);
    if union.contains("approved") {
        warnings.push("approved: tfgate is stricter than Atlantis: only an approval on the current head, by a user with write access who is not the author and not a bot, counts".into());
    }
    Ok(AtlantisImport {
        layout_yaml: render::layout(&projects),
        policy_yaml: render::policy(&union, terraform.as_deref(), &defaults, &projects),
        warnings,
    })
}

/// One entry of `projects`, with the apply requirements it had; `None` when it is skipped.
fn import_project(
    i: usize,
    value: &Value,
    warnings: &mut Vec<String>,
) -> Result<Option<(Project, BTreeSet<&'static str>)>, AtlantisImportError> {
    let map = value.as_mapping().ok_or(AtlantisImportError::Shape)?;
    let dir_text = map
        .get("dir")
        .and_then(s)
        .ok_or(AtlantisImportError::MissingDir(i))?;
    let name = map.get("name").and_then(s);
    let label = format!(
        "projects[{i}] ({})",
        name.clone().unwrap_or_else(|| dir_text.clone())
    );
    let Some(dir) = normalize_dir(&dir_text) else {
        warnings.push(format!(
            "{label}: dir `{dir_text}` leaves the repository; project skipped"
        ));
        return Ok(None);
    };
    let workspace = map
        .get("workspace")
        .and_then(s)
        .unwrap_or_else(|| "default".into());
    let id = name
        .clone()
        .map(ProjectId::new)
        .unwrap_or_else(|| ProjectId::derived(&dir, &workspace));
    let mut project = Project {
        id,
        name,
        dir,
        workspace,
        when_modified: Vec::new(),
        depends_on: strings(map.get("depends_on")),
        group: map.get("execution_order_group").and_then(Value::as_i64),
        terraform: None,
        workflow: None,
        autoplan: true,
        settings: WorkflowSettings::default(),
        in_policy: false,
    };
    let mut reqs = BTreeSet::new();
    for (k, v) in map {
        let key = s(k).unwrap_or_default();
        project_key(&label, &key, v, &mut project, &mut reqs, warnings);
    }
    Ok(Some((project, reqs)))
}

/// tfgate has one requirement list per policy: a project that had fewer now needs the union.
fn differing_requirement_warnings(
    per_project_reqs: &[(String, BTreeSet<&'static str>)],
    union: &BTreeSet<&'static str>,
    warnings: &mut Vec<String>,
) {
    for (id, reqs) in per_project_reqs {
        if !union.is_empty() && reqs != union {
            let had: Vec<&str> = reqs.iter().copied().collect();
            warnings.push(format!(
                "project {id}: apply_requirements differ per project in Atlantis; tfgate has one list per policy, so {id} (had [{}]) now needs [{}]",
                had.join(", "),
                union.iter().copied().collect::<Vec<_>>().join(", ")
            ));
        }
    }
}

fn top_level_warnings(root: &Mapping, warnings: &mut Vec<String>) {
    for (k, v) in root {
        let key = s(k).unwrap_or_default();
        let text = match key.as_str() {
            "projects" => continue,
            "version" => {
                if v.as_i64() == Some(3) {
                    continue;
                }
                format!("version {}: only version 3 configs are understood; check the result", s(v).unwrap_or_default())
            }
            "workflows" => continue,
            "automerge" => "automerge: no equivalent; tfgate never merges pull requests".into(),
            "autodiscover" => "autodiscover: no equivalent; tfgate runs only declared projects".into(),
            "delete_source_branch_on_merge" => "delete_source_branch_on_merge: no equivalent; tfgate never merges or deletes branches".into(),
            "parallel_plan" | "parallel_apply" => format!("{key}: no equivalent; tfgate runs projects one at a time in dependency order"),
            "abort_on_execution_order_fail" => "abort_on_execution_order_fail: tfgate always stops at the first failed project; the next /apply resumes there".into(),
            "allowed_regexp_prefixes" => "allowed_regexp_prefixes: no equivalent; tfgate selects projects by name or dir".into(),
            other => format!("{other}: unknown Atlantis key, not imported"),
        };
        warnings.push(text);
    }
}

fn project_key(
    label: &str,
    key: &str,
    value: &Value,
    project: &mut Project,
    reqs: &mut BTreeSet<&'static str>,
    warnings: &mut Vec<String>,
) {
    let text = match key {
        "name" | "dir" | "workspace" | "depends_on" | "execution_order_group" => return,
        "autoplan" => {
            let enabled = value.get("enabled").and_then(Value::as_bool).unwrap_or(true);
            for pattern in strings(value.get("when_modified")) {
                if pattern.starts_with('!') {
                    warnings.push(format!("{label}: when_modified `{pattern}`: exclusions have no equivalent; dropped"));
                } else {
                    project.when_modified.push(pattern);
                }
            }
            project.autoplan = enabled;
            return;
        }
        "terraform_version" => {
            let version = s(value).unwrap_or_default();
            let version = version.trim_start_matches('v').to_string();
            if super::values::terraform(&version).is_ok() {
                project.terraform = Some(version);
                return;
            }
            format!("{label}: terraform_version `{version}` is not an exact version; set `terraform` in the policy")
        }
        "apply_requirements" => {
            for req in strings(Some(value)) {
                match req.as_str() {
                    "approved" => reqs.insert("approved"),
                    "mergeable" => reqs.insert("mergeable"),
                    "undiverged" => reqs.insert("up_to_date"),
                    other => {
                        warnings.push(format!("{label}: apply requirement `{other}` has no equivalent"));
                        false
                    }
                };
            }
            return;
        }
        "plan_requirements" | "import_requirements" => {
            format!("{label}: {key} has no equivalent; tfgate's plan permission is set in the policy")
        }
        "workflow" => {
            project.workflow = s(value);
            return;
        }
        "branch" => format!("{label}: branch `{}`: no equivalent; tfgate runs on every base branch", s(value).unwrap_or_default()),
        "repo_locking" | "repo_locks" => format!("{label}: {key}: no equivalent; tfgate always locks a project from plan to apply or merge"),
        "custom_policy_check" | "policy_check" => format!("{label}: {key}: policy checks (conftest) have no equivalent"),
        "silence_pr_comments" => format!("{label}: silence_pr_comments: no equivalent; tfgate always posts results"),
        "delete_source_branch_on_merge" => format!("{label}: delete_source_branch_on_merge: no equivalent"),
        "terraform_distribution" => format!("{label}: terraform_distribution: set `terraform` to a binary path in the policy if not Terraform"),
        other => format!("{label}: unknown Atlantis key `{other}`, not imported"),
    };
    warnings.push(text);
}

/// Gives each project its workflow's settings and decides where it is declared; returns the
/// `default` workflow's settings (for `defaults:`).
fn apply_workflows(
    root: &Mapping,
    terraform: Option<&str>,
    projects: &mut [Project],
    warnings: &mut Vec<String>,
) -> WorkflowSettings {
    let workflows = import_workflows(root.get("workflows"), warnings);
    let defaults = workflows.get("default").cloned().unwrap_or_default();
    for p in projects.iter_mut() {
        let name = p.workflow.as_deref().unwrap_or("default");
        p.settings = match workflows.get(name) {
            Some(settings) => settings.clone(),
            None if p.workflow.is_some() => {
                warnings.push(format!(
                    "project {}: workflow `{name}` is not defined in atlantis.yaml (a server-side workflow?); not imported",
                    p.id
                ));
                defaults.clone()
            }
            None => defaults.clone(),
        };
        let own_terraform = p.terraform.is_some() && p.terraform.as_deref() != terraform;
        p.in_policy = !p.autoplan || own_terraform || p.settings != defaults;
    }
    // A project declared in the policy may depend only on projects the policy declares.
    loop {
        let needed: BTreeSet<String> = projects
            .iter()
            .filter(|p| p.in_policy)
            .flat_map(|p| p.depends_on.clone())
            .collect();
        let mut moved = false;
        for p in projects.iter_mut() {
            if !p.in_policy && needed.contains(p.id.as_str()) {
                p.in_policy = true;
                moved = true;
            }
        }
        if !moved {
            return defaults;
        }
    }
}

fn add_execution_order(projects: &mut [Project], warnings: &mut Vec<String>) {
    let groups: BTreeSet<i64> = projects.iter().filter_map(|p| p.group).collect();
    if groups.len() < 2 {
        return;
    }
    let members = |g: i64, all: &[Project]| -> Vec<String> {
        all.iter()
            .filter(|p| p.group == Some(g))
            .map(|p| p.id.to_string())
            .collect()
    };
    let snapshot: Vec<(Option<i64>, usize)> = projects
        .iter()
        .enumerate()
        .map(|(i, p)| (p.group, i))
        .collect();
    let mut edges = 0;
    for (group, i) in snapshot {
        let Some(group) = group else { continue };
        let Some(previous) = groups.range(..group).next_back().copied() else {
            continue;
        };
        for dep in members(previous, projects) {
            if !projects[i].depends_on.contains(&dep) {
                projects[i].depends_on.push(dep);
                edges += 1;
            }
        }
    }
    warnings.push(format!(
        "execution_order_group: {} groups turned into {edges} depends_on edges (each project depends on the whole previous group)",
        groups.len()
    ));
}

/// The most used `terraform_version` becomes `defaults.terraform` (ties: the lowest
/// version string); every project that differs from it gets a warning.
fn common_terraform(projects: &[Project], warnings: &mut Vec<String>) -> Option<String> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for version in projects.iter().filter_map(|p| p.terraform.as_deref()) {
        *counts.entry(version).or_default() += 1;
    }
    let top = counts
        .iter()
        .max_by_key(|(v, n)| (**n, std::cmp::Reverse(**v)))
        .map(|(v, _)| v.to_string())?;
    for p in projects {
        match p.terraform.as_deref() {
            Some(v) if v == top => {}
            // Such a project is declared in the policy with its own `terraform`.
            Some(_) => {}
            None => warnings.push(format!(
                "project {}: had no terraform_version; it now runs defaults.terraform {top}",
                p.id
            )),
        }
    }
    Some(top)
}

#[cfg(test)]
mod tests;
