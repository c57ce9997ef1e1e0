//! Which projects a set of changed files affects.
//!
//! A project is affected when a changed file
//! 1. matches one of its `when_modified` globs (relative to the project dir; default
//!    [`DEFAULT_WHEN_MODIFIED`]), unless the file lies inside another project whose dir is
//!    nested strictly inside this project's dir (that file belongs to the inner root); or
//! 2. lies anywhere inside a local module dir that the project calls, directly or through
//!    other local modules (see [`ModuleGraph`]); or
//! 3. the PR changes the committed fingerprint (`tfgate.inputs.lock`) of a shared input the
//!    project consumes.

use super::paths::{join_relative, normalize_dir, path_is_under};
use super::spec::{ProjectId, ProjectSpec};
use glob::{MatchOptions, Pattern};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// `when_modified` used when a project sets none.
pub const DEFAULT_WHEN_MODIFIED: &[&str] = &[
    "**/*.tf",
    "**/*.tf.json",
    "**/*.tfvars",
    "**/*.tfvars.json",
    ".terraform.lock.hcl",
];

const MATCH: MatchOptions = MatchOptions {
    case_sensitive: true,
    require_literal_separator: true,
    require_literal_leading_dot: false,
};

/// Local module calls: repo-relative dir → repo-relative dirs of the local modules it calls.
/// Built from the `.tf` files of the PR's base commit (see
/// [`crate::project::build_module_graph`]). Deserialises from a JSON object
/// `{ "infra/eks": ["modules/vpc"] }`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ModuleGraph {
    calls: BTreeMap<String, BTreeSet<String>>,
}

impl ModuleGraph {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records that `dir` calls the modules at `sources` (as written in `source = "…"`,
    /// relative to `dir`). Sources that leave the repository are skipped.
    pub fn add_calls(&mut self, dir: &str, sources: &[String]) {
        let Some(dir) = normalize_dir(dir) else {
            return;
        };
        let entry = self.calls.entry(dir.clone()).or_default();
        for source in sources {
            if let Some(target) = join_relative(&dir, source) {
                if target != dir {
                    entry.insert(target);
                }
            }
        }
    }

    /// Every module dir reachable from `dir` (not including `dir` itself).
    pub fn reachable_from(&self, dir: &str) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![dir.to_string()];
        while let Some(current) = stack.pop() {
            for next in self.calls.get(&current).into_iter().flatten() {
                if next != dir && seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    }
}

/// What a pull request changes, as far as choosing its roots goes.
#[derive(Debug, Clone, Copy)]
pub struct PrChanges<'a> {
    /// Repo-relative paths changed by the PR.
    pub files: &'a [String],
    /// Local module calls of the base commit.
    pub module_calls: &'a ModuleGraph,
    /// Shared inputs whose `tfgate.inputs.lock` line the PR adds, removes or changes.
    pub inputs: &'a [String],
}

/// The projects the PR's `changes` affect, in the order of `projects`.
pub fn affected_projects(changes: &PrChanges<'_>, projects: &[ProjectSpec]) -> Vec<ProjectId> {
    projects
        .iter()
        .filter(|p| is_project_affected(p, changes, projects))
        .map(|p| p.id.clone())
        .collect()
}

/// Whether one project is affected; `all` is needed to recognise nested roots.
pub fn is_project_affected(
    project: &ProjectSpec,
    changes: &PrChanges<'_>,
    all: &[ProjectSpec],
) -> bool {
    if project.inputs.iter().any(|i| changes.inputs.contains(i)) {
        return true;
    }
    let patterns = project_patterns(project);
    let nested: Vec<&str> = all
        .iter()
        .filter(|other| path_is_under(&other.dir, &project.dir))
        .map(|other| other.dir.as_str())
        .collect();
    let modules = changes.module_calls.reachable_from(&project.dir);
    changes.files.iter().any(|file| {
        let file = file.trim_start_matches("./");
        let in_nested_root = nested.iter().any(|dir| path_is_under(file, dir));
        let by_pattern = !in_nested_root && patterns.iter().any(|p| p.matches_with(file, MATCH));
        by_pattern || modules.iter().any(|m| path_is_under(file, m))
    })
}

fn project_patterns(project: &ProjectSpec) -> Vec<Pattern> {
    let globs: Vec<&str> = if project.when_modified.is_empty() {
        DEFAULT_WHEN_MODIFIED.to_vec()
    } else {
        project.when_modified.iter().map(String::as_str).collect()
    };
    globs
        .into_iter()
        .filter_map(|g| join_relative(&project.dir, g))
        .filter_map(|g| Pattern::new(&g).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn ids(list: &[&str]) -> Vec<ProjectId> {
        list.iter().map(|s| ProjectId::new(*s)).collect()
    }

    fn changes<'a>(
        files: &'a [String],
        module_calls: &'a ModuleGraph,
        inputs: &'a [String],
    ) -> PrChanges<'a> {
        PrChanges {
            files,
            module_calls,
            inputs,
        }
    }

    fn repo() -> Vec<ProjectSpec> {
        let mut eks = ProjectSpec::simple("eks", "infra/eks");
        eks.when_modified = vec!["**/*.tf".into(), "../shared/*.yaml".into()];
        vec![
            ProjectSpec::simple("network", "infra/network"),
            eks,
            ProjectSpec::simple("platform", "infra/platform"),
        ]
    }

    fn graph() -> ModuleGraph {
        let mut g = ModuleGraph::new();
        g.add_calls("infra/eks", &files(&["../../modules/cluster"]));
        g.add_calls("modules/cluster", &files(&["../nodegroup", "./iam"]));
        g.add_calls("infra/network", &files(&["../../modules/vpc"]));
        g
    }

    #[test]
    fn table() {
        let cases: &[(&[&str], &[&str])] = &[
            (&["infra/network/main.tf"], &["network"]),
            (&["infra/network/README.md"], &[]),
            (&["infra/network/.terraform.lock.hcl"], &["network"]),
            (&["infra/network/env/prod.tfvars"], &["network"]),
            (&["infra/shared/admins.yaml"], &["eks"]),
            (&["infra/eks/lock.hcl"], &[]),
            (&["modules/vpc/main.tf"], &["network"]),
            (&["modules/nodegroup/variables.tf"], &["eks"]),
            (&["modules/cluster/iam/policy.json"], &["eks"]),
            (&["infra/eks2/main.tf"], &[]),
            (
                &["infra/eks/main.tf", "infra/platform/x.tf"],
                &["eks", "platform"],
            ),
            (&[], &[]),
        ];
        for (changed, want) in cases {
            let got = affected_projects(&changes(&files(changed), &graph(), &[]), &repo());
            assert_eq!(got, ids(want), "changed: {changed:?}");
        }
    }

    #[test]
    fn nested_roots_own_their_files() {
        let mut all = repo();
        all.push(ProjectSpec::simple("root", "."));
        let cases: &[(&[&str], &[&str])] = &[
            (&["main.tf"], &["root"]),
            (&["infra/eks/main.tf"], &["eks"]),
            (&["infra/eks2/main.tf"], &["root"]),
            (&["modules/vpc/main.tf"], &["network", "root"]),
        ];
        for (changed, want) in cases {
            assert_eq!(
                affected_projects(&changes(&files(changed), &graph(), &[]), &all),
                ids(want),
                "changed: {changed:?}"
            );
        }
    }

    #[test]
    fn a_changed_shared_input_affects_the_roots_that_consume_it() {
        let mut all = repo();
        all[0].inputs = vec!["ADMIN_CIDRS".into()];
        all[2].inputs = vec!["ADMIN_CIDRS".into(), "ZONE".into()];
        let lock_only = files(&["tfgate.inputs.lock"]);
        let cases: &[(&[&str], &[&str])] = &[
            (&["ADMIN_CIDRS"], &["network", "platform"]),
            (&["ZONE"], &["platform"]),
            (&["UNUSED"], &[]),
            (&[], &[]),
        ];
        for (inputs, want) in cases {
            let inputs = files(inputs);
            let got = affected_projects(&changes(&lock_only, &graph(), &inputs), &all);
            assert_eq!(got, ids(want), "inputs: {inputs:?}");
        }
    }

    #[test]
    fn module_cycles_terminate() {
        let mut g = ModuleGraph::new();
        g.add_calls("a", &files(&["../b"]));
        g.add_calls("b", &files(&["../a"]));
        assert_eq!(
            g.reachable_from("a").into_iter().collect::<Vec<_>>(),
            vec!["b"]
        );
    }

    #[test]
    fn sources_leaving_the_repo_are_skipped() {
        let mut g = ModuleGraph::new();
        g.add_calls("a", &files(&["../../x", "./y"]));
        assert_eq!(
            g.reachable_from("a").into_iter().collect::<Vec<_>>(),
            vec!["a/y"]
        );
    }

    #[test]
    fn graph_deserializes_from_json() {
        let g: ModuleGraph = serde_json::from_str(r#"{"infra/eks": ["modules/cluster"]}"#).unwrap();
        assert!(g.reachable_from("infra/eks").contains("modules/cluster"));
    }
}
