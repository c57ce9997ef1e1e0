//! `tfgate policy import-atlantis`: an Atlantis repo config (v3) → a tfgate layout file and
//! a policy skeleton, with one warning per thing that has no equivalent.
//!
//! Mapping: projects (name, dir, workspace, `autoplan.when_modified`, `depends_on`) go to the
//! layout; `execution_order_group`s become `depends_on` edges (each project depends on every
//! project of the previous group); `apply_requirements` are merged into one policy-wide list
//! (`approved` → `approved`, `mergeable` → `mergeable`, `undiverged` → `up_to_date`); a
//! `terraform_version` shared by every project becomes `defaults.terraform`. Everything
//! else is reported.

use crate::project::{normalize_dir, ProjectId};
use serde_yaml::{Mapping, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use thiserror::Error;

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
    let union: BTreeSet<&'static str> = requirements.keys().copied().collect();
    differing_requirement_warnings(&per_project_reqs, &union, &mut warnings);
    if union.contains("approved") {
        warnings.push("approved: tfgate is stricter than Atlantis: only an approval on the current head, by a user with write access who is not the author and not a bot, counts".into());
    }
    Ok(AtlantisImport {
        layout_yaml: render_layout(&projects),
        policy_yaml: render_policy(&union, terraform.as_deref()),
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
            "workflows" => {
                let names: Vec<String> = v.as_mapping().map(|m| m.keys().filter_map(s).collect()).unwrap_or_default();
                format!("workflows ({}): custom run steps have no equivalent; tfgate runs plain terraform init/plan/apply in its sandbox", names.join(", "))
            }
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
            if enabled {
                return;
            }
            format!("{label}: autoplan disabled: declare this project in the policy with `autoplan: false` (the layout cannot turn autoplan off)")
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
        "workflow" => format!("{label}: workflow `{}`: custom workflows have no equivalent", s(value).unwrap_or_default()),
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
            Some(v) => warnings.push(format!(
                "project {}: terraform_version {v} differs from defaults.terraform {top}; declare the project in the policy with `terraform: {v}`",
                p.id
            )),
            None => warnings.push(format!("project {}: had no terraform_version; it now runs defaults.terraform {top}", p.id)),
        }
    }
    Some(top)
}

/// A YAML scalar: plain when obviously safe, otherwise a JSON (= YAML double-quoted) string.
fn scalar(text: &str) -> String {
    let plain = text.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./-".contains(c))
        && !matches!(
            text.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null"
        );
    if plain {
        text.to_string()
    } else {
        serde_json::to_string(text).unwrap_or_else(|_| format!("{text:?}"))
    }
}

fn list(items: &[String]) -> String {
    format!(
        "[{}]",
        items
            .iter()
            .map(|i| scalar(i))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

fn render_layout(projects: &[Project]) -> String {
    let mut out = String::from("# tfgate.yaml — imported from atlantis.yaml. Where the roots are; nothing else.\nprojects:\n");
    for p in projects {
        // Unnamed Atlantis projects keep tfgate's derived name (dir, or dir:workspace).
        match &p.name {
            Some(name) => {
                let _ = writeln!(out, "  - name: {}", scalar(name));
                let _ = writeln!(out, "    dir: {}", scalar(&p.dir));
            }
            None => {
                let _ = writeln!(out, "  - dir: {}", scalar(&p.dir));
            }
        }
        if p.workspace != "default" {
            let _ = writeln!(out, "    workspace: {}", scalar(&p.workspace));
        }
        if !p.depends_on.is_empty() {
            let _ = writeln!(out, "    depends_on: {}", list(&p.depends_on));
        }
        if !p.when_modified.is_empty() {
            let _ = writeln!(out, "    when_modified: {}", list(&p.when_modified));
        }
    }
    out
}

fn render_policy(requirements: &BTreeSet<&'static str>, terraform: Option<&str>) -> String {
    let mut out = String::from(
        "# tfgate policy skeleton imported from atlantis.yaml. Put it in the server's policies/\n\
         # directory after replacing every REPLACE value and reviewing each line.\n\
         repos:\n  - REPLACE-owner/REPLACE-repo\n\n\
         # Projects come from the repository's tfgate.yaml.\n\
         allow_repo_layout: true\n\n\
         defaults:\n",
    );
    if let Some(version) = terraform {
        let _ = writeln!(out, "  terraform: {}", scalar(version));
    }
    out.push_str(
        "  plan_role: arn:aws:iam::111111111111:role/REPLACE-plan\n  apply_role: arn:aws:iam::111111111111:role/REPLACE-apply\n\n\
         permissions:\n  plan:\n    min_permission: write\n  apply:\n    min_permission: write\n\n",
    );
    let reqs: Vec<String> = if requirements.is_empty() {
        out.push_str("# Atlantis set no apply_requirements here (server-side repos.yaml may have); tfgate's default:\n");
        vec!["approved".into(), "mergeable".into()]
    } else {
        let order = ["approved", "mergeable", "up_to_date"];
        order
            .iter()
            .filter(|r| requirements.contains(*r))
            .map(|r| r.to_string())
            .collect()
    };
    let _ = writeln!(out, "apply_requirements: {}", list(&reqs));
    out.push_str("allow_fork_prs: false\non_input_drift: block\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::load_policy;
    use crate::project::{merge_layout, parse_layout};

    const FIXTURE: &str = include_str!("../../tests/fixtures/atlantis/atlantis.yaml");

    #[test]
    fn imports_realistic_config() {
        let import = import_atlantis(FIXTURE).unwrap();
        insta::assert_snapshot!("layout", import.layout_yaml);
        insta::assert_snapshot!("policy", import.policy_yaml);
        insta::assert_yaml_snapshot!("warnings", import.warnings);
    }

    #[test]
    fn imported_files_load_and_merge() {
        let import = import_atlantis(FIXTURE).unwrap();
        let policy = load_policy("imported.yaml", &import.policy_yaml).unwrap();
        let layout = parse_layout("tfgate.yaml", &import.layout_yaml).unwrap();
        let merged = merge_layout(&policy, Some(&layout)).unwrap();
        assert_eq!(merged.policy.projects.len(), 5);
        let order = crate::project::order_by_dependencies(
            &merged
                .policy
                .specs()
                .iter()
                .map(|s| s.id.clone())
                .collect::<Vec<_>>(),
            &merged.policy.specs(),
        )
        .unwrap();
        let names: Vec<&str> = order.iter().map(ProjectId::as_str).collect();
        assert_eq!(
            names,
            vec![
                "network",
                "dev-cluster",
                "ops-cluster",
                "infra/dev/platform:dev",
                "ops-platform"
            ]
        );
    }

    #[test]
    fn minimal_config_gets_default_requirements() {
        let import = import_atlantis("version: 3\nprojects:\n  - dir: .\n").unwrap();
        assert!(import
            .policy_yaml
            .contains("apply_requirements: [approved, mergeable]"));
        assert!(import.layout_yaml.contains("  - dir: \".\"\n"));
        assert!(import.warnings.is_empty(), "{:?}", import.warnings);
        parse_layout("tfgate.yaml", &import.layout_yaml).unwrap();
    }

    #[test]
    fn rejects_what_is_not_an_atlantis_config() {
        assert_eq!(
            import_atlantis("- a\n- b\n"),
            Err(AtlantisImportError::Shape)
        );
        assert_eq!(
            import_atlantis("version: 3\n"),
            Err(AtlantisImportError::Shape)
        );
        assert_eq!(
            import_atlantis("projects:\n  - name: x\n"),
            Err(AtlantisImportError::MissingDir(0))
        );
        assert!(matches!(
            import_atlantis("projects: [\n"),
            Err(AtlantisImportError::Yaml(_))
        ));
    }
}
