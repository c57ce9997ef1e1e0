//! The local module graph of one commit, from the text of its `.tf` files. Pure: the caller
//! reads the files (the base branch's tarball, see `worker::module_graph`).
//!
//! Every directory holding `.tf` files is scanned (Terraform reads only the files directly in
//! a module's directory), so the graph does not depend on which roots a policy declares and
//! one graph per commit serves every policy.

use std::collections::BTreeMap;

use super::affected::ModuleGraph;
use super::modules::find_local_module_sources;
use super::paths::normalize_dir;

/// Whether a repository path is a file Terraform reads module calls from.
pub fn is_module_source_file(path: &str) -> bool {
    path.ends_with(".tf")
}

/// The graph of local module calls of `files` (repo-relative path → text). Calls leaving the
/// repository and non-local sources (registry, Git, …) are left out; cycles are kept (the
/// graph's walk stops on them).
pub fn build_module_graph<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> ModuleGraph {
    let mut sources_by_dir: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (path, text) in files {
        if !is_module_source_file(path) {
            continue;
        }
        let dir = match path.rsplit_once('/') {
            Some((dir, _)) => dir,
            None => ".",
        };
        let Some(dir) = normalize_dir(dir) else {
            continue;
        };
        let sources = find_local_module_sources(text);
        if !sources.is_empty() {
            sources_by_dir.entry(dir).or_default().extend(sources);
        }
    }
    let mut graph = ModuleGraph::new();
    for (dir, sources) in &sources_by_dir {
        graph.add_calls(dir, sources);
    }
    graph
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn module(source: &str) -> String {
        format!("module \"m\" {{\n  source = \"{source}\"\n}}\n")
    }

    fn reachable(files: &[(&str, String)], root: &str) -> BTreeSet<String> {
        build_module_graph(files.iter().map(|(p, t)| (*p, t.as_str()))).reachable_from(root)
    }

    fn set(dirs: &[&str]) -> BTreeSet<String> {
        dirs.iter().map(|d| d.to_string()).collect()
    }

    /// What a case is about, the repository's files, the root, the module dirs it reaches.
    type Case<'a> = (&'a str, Vec<(&'a str, String)>, &'a str, Vec<&'a str>);

    #[test]
    fn table() {
        let cases: Vec<Case> = vec![
            (
                "a root calling a shared module two levels up",
                vec![("infra/app/main.tf", module("../../modules/net"))],
                "infra/app",
                vec!["modules/net"],
            ),
            (
                "`./` stays under the caller",
                vec![("infra/app/main.tf", module("./local"))],
                "infra/app",
                vec!["infra/app/local"],
            ),
            (
                "transitively through module dirs",
                vec![
                    ("infra/app/main.tf", module("../../modules/cluster")),
                    ("modules/cluster/main.tf", module("../net")),
                    ("modules/net/main.tf", module("./subnets")),
                ],
                "infra/app",
                vec!["modules/cluster", "modules/net", "modules/net/subnets"],
            ),
            (
                "a cycle ends",
                vec![("a/main.tf", module("../b")), ("b/main.tf", module("../a"))],
                "a",
                vec!["b"],
            ),
            (
                "a call leaving the repository is ignored",
                vec![("infra/main.tf", module("../../outside"))],
                "infra",
                vec![],
            ),
            (
                "registry and Git sources are not local",
                vec![(
                    "infra/main.tf",
                    format!(
                        "{}{}",
                        module("terraform-aws-modules/vpc/aws"),
                        module("git::https://github.com/o/m.git?ref=v1")
                    ),
                )],
                "infra",
                vec![],
            ),
            (
                "a root at the repository root",
                vec![("main.tf", module("./modules/net"))],
                ".",
                vec!["modules/net"],
            ),
            (
                "files other than .tf, and other roots' calls, do not count",
                vec![
                    ("infra/app/notes.md", module("../../modules/net")),
                    ("infra/other/main.tf", module("../../modules/db")),
                ],
                "infra/app",
                vec![],
            ),
        ];
        for (what, files, root, want) in cases {
            assert_eq!(reachable(&files, root), set(&want), "{what}");
        }
    }

    #[test]
    fn two_files_of_one_dir_add_up() {
        let files = vec![
            ("infra/app/a.tf", module("../../modules/a")),
            ("infra/app/b.tf", module("../../modules/b")),
        ];
        assert_eq!(
            reachable(&files, "infra/app"),
            set(&["modules/a", "modules/b"])
        );
    }
}
