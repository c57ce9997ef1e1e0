//! The repository's own layout file, `tfgate.yaml` at the repo root.
//!
//! It may only say where the roots are: `projects` with `name`, `dir`, `workspace`,
//! `depends_on` and `when_modified`. Roles, permissions, requirements and inputs come only
//! from the server's policy; a layout that sets them is rejected with a clear error. A
//! layout is used only when the policy sets `allow_repo_layout: true`.
//! Read it from the base branch, not the PR head, so a PR cannot add roots to itself.

use crate::policy::locate::{idx, key};
use crate::policy::values;
use crate::policy::PolicyProblem;
use once_cell::sync::Lazy;
use regex::Regex;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Where the layout file lives in a repository.
pub const LAYOUT_FILE_NAME: &str = "tfgate.yaml";

/// Keys a layout project may carry.
const LAYOUT_KEYS: &str = "name, dir, workspace, depends_on, when_modified";

/// A parsed, locally valid layout file (kept with its text, to locate later problems).
#[derive(Debug, Clone, PartialEq)]
pub struct RepoLayout {
    pub file: String,
    pub source: String,
    pub projects: Vec<LayoutProject>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct LayoutFile {
    /// The repository's Terraform roots.
    projects: Vec<LayoutProject>,
}

/// One root declared by the repository.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LayoutProject {
    /// Unique name. Default: `dir`, or `dir:workspace`.
    pub name: Option<String>,
    /// Repo-relative directory.
    pub dir: String,
    /// Terraform workspace. Default `default`.
    pub workspace: Option<String>,
    /// Projects (from the layout or the policy) applied before this one.
    #[serde(default)]
    pub depends_on: Vec<String>,
    /// Globs relative to `dir` whose changes affect this project.
    #[serde(default)]
    pub when_modified: Vec<String>,
}

impl LayoutProject {
    /// The project's name (given or derived); `None` when `dir` is invalid.
    pub fn id(&self) -> Option<crate::project::ProjectId> {
        match &self.name {
            Some(n) => Some(crate::project::ProjectId::new(n.as_str())),
            None => {
                let dir = crate::project::normalize_dir(&self.dir)?;
                Some(crate::project::ProjectId::derived(
                    &dir,
                    self.workspace.as_deref().unwrap_or("default"),
                ))
            }
        }
    }
}

static UNKNOWN_FIELD: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"unknown field `([^`]+)`").expect("valid regex"));

/// Parses `tfgate.yaml`. `Err` lists every problem with its position.
pub fn parse_layout(file: &str, content: &str) -> Result<RepoLayout, Vec<PolicyProblem>> {
    let parsed: LayoutFile = serde_yaml::from_str(content).map_err(|e| {
        let mut problem = PolicyProblem::from_yaml_error(file, &e);
        if let Some(field) = UNKNOWN_FIELD.captures(&problem.message).map(|c| c[1].to_string()) {
            let prefix = problem.message.split(": unknown field").next().filter(|p| !p.starts_with("unknown"));
            let prefix = prefix.map(|p| format!("{p}: ")).unwrap_or_default();
            problem.message = format!(
                "{prefix}`{field}` cannot be set in {LAYOUT_FILE_NAME}: roles, permissions, requirements and inputs come only from the tfgate admin policy (a project here may have: {LAYOUT_KEYS})"
            );
        }
        vec![problem]
    })?;
    let mut checker = crate::policy::validate::Checker::new(file, content);
    let mut names: BTreeMap<String, usize> = BTreeMap::new();
    let mut places: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (i, project) in parsed.projects.iter().enumerate() {
        let at = |k: &str| vec![key("projects"), idx(i), key(k)];
        let dir = checker.check(&at("dir"), values::project_dir(&project.dir));
        let workspace = project
            .workspace
            .clone()
            .unwrap_or_else(|| "default".into());
        if project.workspace.is_some() {
            checker.check(&at("workspace"), values::workspace(&workspace));
        }
        if let Some(name) = &project.name {
            checker.check(&at("name"), values::project_name(name));
        }
        if let Some(id) = project.id() {
            if let Some(first) = names.insert(id.0.clone(), i) {
                let path = if project.name.is_some() {
                    at("name")
                } else {
                    at("dir")
                };
                checker.at(
                    &path,
                    format!("duplicate project `{id}` (also projects[{first}])"),
                );
            }
        }
        if let Some(dir) = dir {
            if let Some(first) = places.insert((dir.clone(), workspace.clone()), i) {
                checker.at(&at("dir"), format!("duplicate project: dir `{dir}` workspace `{workspace}` is also projects[{first}]"));
            }
        }
        for (j, glob) in project.when_modified.iter().enumerate() {
            checker.check(
                &[key("projects"), idx(i), key("when_modified"), idx(j)],
                values::path_glob(glob),
            );
        }
    }
    if checker.problems.is_empty() {
        Ok(RepoLayout {
            file: file.to_string(),
            source: content.to_string(),
            projects: parsed.projects,
        })
    } else {
        Err(checker.problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_layout() {
        let src = "projects:\n  - name: network\n    dir: infra/network\n  - dir: infra/eks\n    workspace: prod\n    depends_on: [network]\n    when_modified: ['**/*.tf', ../shared/*.yaml]\n";
        let layout = parse_layout("tfgate.yaml", src).unwrap();
        assert_eq!(layout.projects.len(), 2);
        assert_eq!(layout.projects[1].id().unwrap().as_str(), "infra/eks:prod");
    }

    #[test]
    fn rejects_roles_and_policy_keys_clearly() {
        let cases = [
            (
                "projects:\n  - dir: infra\n    apply_role: arn:aws:iam::111111111111:role/x\n",
                "tfgate.yaml:3:5: projects[0]: `apply_role` cannot be set in tfgate.yaml: roles, permissions, requirements and inputs come only from the tfgate admin policy (a project here may have: name, dir, workspace, depends_on, when_modified)",
            ),
            (
                "permissions:\n  apply: {min_permission: read}\nprojects: []\n",
                "tfgate.yaml:1:1: `permissions` cannot be set in tfgate.yaml: roles, permissions, requirements and inputs come only from the tfgate admin policy (a project here may have: name, dir, workspace, depends_on, when_modified)",
            ),
        ];
        for (src, want) in cases {
            let err = parse_layout("tfgate.yaml", src).unwrap_err();
            assert_eq!(err[0].to_string(), want);
        }
    }

    #[test]
    fn local_problems_have_positions() {
        let cases = [
            (
                "projects:\n  - dir: a\n  - dir: ./a\n",
                "tfgate.yaml:3:10: duplicate project `a` (also projects[0])",
            ),
            (
                "projects:\n  - dir: /abs\n",
                "tfgate.yaml:2:10: bad dir `/abs`",
            ),
            (
                "projects:\n  - dir: a\n    when_modified: ['[']\n",
                "tfgate.yaml:3:21: bad glob `[`",
            ),
            (
                "projects:\n  - dir: a\n    workspace: 'b c'\n",
                "tfgate.yaml:3:16: bad workspace `b c`",
            ),
        ];
        for (src, want) in cases {
            let err = parse_layout("tfgate.yaml", src).unwrap_err();
            assert!(
                err.iter().any(|p| p.to_string().starts_with(want)),
                "{want}: {err:?}"
            );
        }
    }
}
