//! The layer rule for `src/`: every top-level folder (`src/x/` or `src/x.rs`) has a place in
//! [`LAYERS`], bottom to top, and may import only folders below it; `model` imports nothing of
//! the crate; the pure core never imports `render` or the shell; no two files of one folder
//! import each other, directly or round a loop.
//!
//! Imports are read with `syn` from every non-test file (test files and `#[cfg(test)]` /
//! `#[test]` items are skipped, as in `code_shape.rs`): `use crate::…`, `use super::…`,
//! `use self::…`, `use child::…` and paths such as `crate::a::b::f()` in code. Doc comments,
//! attributes and macro bodies are not read. `lib.rs` and `main.rs` are exempt.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use syn::visit::{self, Visit};

#[path = "../source_rules/mod.rs"]
mod source_rules;
use source_rules::{is_test_file, is_test_only};

mod collect;
use collect::*;

/// The folders of `src/`, bottom to top, grouped by layer. A folder may import only folders that
/// come before it in this list.
const LAYERS: &[(&str, &[&str])] = &[
    // Plain types every layer may use; imports nothing of the crate.
    ("model", &["model"]),
    // The pure core: parsing, classification, decisions. No I/O, no view wording.
    (
        "core",
        &[
            "redact",
            "crypto",
            "command",
            "terraform",
            "classify",
            "egress",
            "tool_release",
            "enrich",
            "drift_detection",
            "project",
            "plan_policy",
            "policy",
            "repo_layout",
            "gitops",
            "input_drift",
            "run_planner",
        ],
    ),
    // Wording: view models in, texts out (templates). May read the core.
    ("render", &["render"]),
    // The effect shell: processes, AWS, git, the database, GitHub, HTTP. Carries decisions out.
    (
        "shell",
        &[
            "sandbox",
            "aws",
            "config",
            "db",
            "metrics",
            "github",
            "checkout",
            "provider_cache",
            "tfrun",
            "jobs",
            "policy_repo",
            "webhook",
            "state",
            "doctor",
            "worker",
            "cli",
            "ui",
            "http",
            "server",
            "logging",
        ],
    ),
];

/// Folders the pure core must never import (its own message; the order forbids them too).
const FORBIDDEN_FOR_CORE: &[&str] = &[
    "render", "worker", "db", "github", "jobs", "webhook", "state",
];

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Rule {
    /// `model` imported something of the crate.
    ModelImports,
    /// A core folder imported `render` or a named shell folder.
    CoreImportsShell,
    /// A folder imported one at its own level or above.
    Upward { target_rank: usize, own_rank: usize },
    /// A folder missing from [`LAYERS`].
    Unplaced { folder: String },
    /// Two or more files of one folder import each other round a loop.
    FileLoop { members: Vec<String> },
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Offence {
    /// The importing file, relative to `src/`.
    file: String,
    /// The imported module path, `crate::x::y`.
    target: String,
    rule: Rule,
}

impl Offence {
    fn importing_folder(&self) -> String {
        folder_of_file(&self.file)
    }

    fn target_folder(&self) -> String {
        self.target
            .strip_prefix("crate::")
            .unwrap_or(&self.target)
            .split("::")
            .next()
            .unwrap_or("")
            .to_string()
    }
}

impl fmt::Display for Offence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (from, to) = (self.importing_folder(), self.target_folder());
        write!(
            f,
            "src/{}: imports {} ({from} may not import {to}: ",
            self.file, self.target
        )?;
        match &self.rule {
            Rule::ModelImports => write!(f, "model imports nothing of the crate)"),
            Rule::CoreImportsShell => write!(
                f,
                "the pure core never imports render or the shell; move the shared type to \
                 src/model/)"
            ),
            Rule::Upward {
                target_rank,
                own_rank,
            } => write!(
                f,
                "{to} is at position {target_rank} in LAYERS, {from} at {own_rank}; a folder \
                 imports only folders below it)"
            ),
            Rule::Unplaced { folder } => {
                write!(f, "folder {folder} is not in LAYERS; give it a place)")
            }
            Rule::FileLoop { members } => write!(
                f,
                "import loop between files of {from}: {}; move the shared part into one file)",
                members.join(" ↔ ")
            ),
        }
    }
}

/// Exceptions, as `(importing file under src/, imported folder, reason)`. Each must match at
/// least one offence, so a fixed import makes its entry stale and the test fails until the entry
/// goes. For a file loop the imported folder is the file's own folder.
const ALLOWED: &[(&str, &str, &str)] = &[];

fn rank_of(folder: &str) -> Option<usize> {
    LAYERS
        .iter()
        .flat_map(|(_, folders)| folders.iter())
        .position(|f| *f == folder)
}

fn layer_of(folder: &str) -> Option<&'static str> {
    LAYERS
        .iter()
        .find(|(_, folders)| folders.contains(&folder))
        .map(|(layer, _)| *layer)
}

fn folder_of_file(relative: &str) -> String {
    let first = relative.split('/').next().unwrap_or(relative);
    first.strip_suffix(".rs").unwrap_or(first).to_string()
}

/// The module path of a file: `a/b.rs` → `[a, b]`, `a/mod.rs` → `[a]`, `lib.rs` → `[]`.
fn module_of_file(relative: &str) -> Vec<String> {
    let trimmed = relative.strip_suffix(".rs").unwrap_or(relative);
    let mut parts: Vec<String> = trimmed.split('/').map(str::to_string).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    if parts == ["lib"] || parts == ["main"] {
        parts.clear();
    }
    parts
}

/// The rule a cross-folder import breaks, if any.
fn folder_rule(from: &str, to: &str) -> Option<Rule> {
    if from == "model" {
        return Some(Rule::ModelImports);
    }
    let (Some(own_rank), Some(target_rank)) = (rank_of(from), rank_of(to)) else {
        let folder = if rank_of(from).is_none() { from } else { to };
        return Some(Rule::Unplaced {
            folder: folder.to_string(),
        });
    };
    if layer_of(from) == Some("core") && FORBIDDEN_FOR_CORE.contains(&to) {
        return Some(Rule::CoreImportsShell);
    }
    (target_rank >= own_rank).then_some(Rule::Upward {
        target_rank,
        own_rank,
    })
}

/// Every offence in a set of files, given as `(path under src/, source)`; allowlist not applied.
fn check_sources(files: &[(String, String)]) -> Vec<Offence> {
    let files_by_module: BTreeMap<Vec<String>, String> = files
        .iter()
        .map(|(relative, _)| (module_of_file(relative), relative.clone()))
        .collect();
    let modules: BTreeSet<Vec<String>> = files_by_module.keys().cloned().collect();
    let mut offences = BTreeSet::new();
    let mut file_edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (relative, source) in files {
        let module = module_of_file(relative);
        if module.is_empty() || is_test_file(relative) {
            continue;
        }
        let parsed = syn::parse_file(source)
            .unwrap_or_else(|e| panic!("src/{relative} does not parse: {e}"));
        let mut collector = ImportCollector {
            modules: &modules,
            current: module,
            found: BTreeSet::new(),
        };
        collector.visit_file(&parsed);
        let from = folder_of_file(relative);
        for path in collector.found {
            let Some(target_file) = resolve(&path, &files_by_module) else {
                continue;
            };
            if target_file == relative {
                continue;
            }
            let target = format!("crate::{}", path.join("::"));
            let to = folder_of_file(target_file);
            if to == from {
                if target_module_is_below(target_file, relative) {
                    continue;
                }
                file_edges
                    .entry(relative.clone())
                    .or_default()
                    .entry(target_file.clone())
                    .or_insert(target);
            } else if let Some(rule) = folder_rule(&from, &to) {
                offences.insert(Offence {
                    file: relative.clone(),
                    target,
                    rule,
                });
            }
        }
    }
    offences.extend(loop_offences(&file_edges));
    offences.into_iter().collect()
}

/// Whether `target` is a submodule of `relative` (`a/mod.rs` → `a/b.rs`, `a.rs` → `a/b.rs`): a
/// module file naming its own submodules (declaring, re-exporting, dispatching to them) is how
/// a folder is built, not a loop; loops are counted among siblings and upwards.
fn target_module_is_below(target: &str, relative: &str) -> bool {
    let (parent, child) = (module_of_file(relative), module_of_file(target));
    child.len() > parent.len() && child.starts_with(&parent)
}

/// One offence per import that lies on a loop between files of one folder.
fn loop_offences(edges: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<Offence> {
    let graph: BTreeMap<String, BTreeSet<String>> = edges
        .iter()
        .map(|(from, tos)| (from.clone(), tos.keys().cloned().collect()))
        .collect();
    let mut offences = Vec::new();
    for members in loops(&graph) {
        for from in &members {
            for (to, target) in &edges[from] {
                if members.contains(to) {
                    offences.push(Offence {
                        file: from.clone(),
                        target: target.clone(),
                        rule: Rule::FileLoop {
                            members: members.clone(),
                        },
                    });
                }
            }
        }
    }
    offences
}

fn is_allowed(offence: &Offence) -> bool {
    ALLOWED
        .iter()
        .any(|(file, folder, _)| offence.file == *file && offence.target_folder() == *folder)
}

fn rust_files_under(dir: &Path, into: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("read {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files_under(&path, into);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            into.push(path);
        }
    }
}

fn src_files() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    rust_files_under(&src, &mut paths);
    paths.sort();
    assert!(!paths.is_empty(), "no .rs files under {}", src.display());
    paths
        .iter()
        .map(|path| {
            let source = std::fs::read_to_string(path)
                .unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
            let relative = path
                .strip_prefix(&src)
                .expect("file under src/")
                .to_string_lossy()
                .replace('\\', "/");
            (relative, source)
        })
        .collect()
}

#[test]
fn src_obeys_the_layer_rule() {
    let offences: Vec<Offence> = check_sources(&src_files())
        .into_iter()
        .filter(|o| !is_allowed(o))
        .collect();
    let report: Vec<String> = offences.iter().map(ToString::to_string).collect();
    assert!(
        offences.is_empty(),
        "{} layer offence(s); move the shared type down (src/model/ for plain types) or the \
         code up:\n{}",
        offences.len(),
        report.join("\n")
    );
}

#[test]
fn allowlist_has_no_stale_entries() {
    let offences = check_sources(&src_files());
    let stale: Vec<String> = ALLOWED
        .iter()
        .filter(|(file, folder, _)| {
            !offences
                .iter()
                .any(|o| o.file == *file && o.target_folder() == *folder)
        })
        .map(|(file, folder, reason)| format!("({file:?}, {folder:?}, {reason:?})"))
        .collect();
    assert!(
        stale.is_empty(),
        "ALLOWED entries that no longer match an offence; remove them:\n{}",
        stale.join("\n")
    );
    for (file, folder, reason) in ALLOWED {
        assert!(
            !reason.is_empty(),
            "ALLOWED ({file}, {folder}) needs a reason"
        );
    }
}

#[test]
fn every_folder_of_src_has_a_place_and_no_folder_is_listed_twice() {
    let mut listed: Vec<&str> = LAYERS.iter().flat_map(|(_, f)| f.iter().copied()).collect();
    let count = listed.len();
    listed.sort_unstable();
    listed.dedup();
    assert_eq!(listed.len(), count, "a folder is listed twice in LAYERS");
    let present: BTreeSet<String> = src_files()
        .iter()
        .map(|(relative, _)| module_of_file(relative))
        .filter_map(|module| module.first().cloned())
        .collect();
    let listed: BTreeSet<String> = listed.iter().map(|f| f.to_string()).collect();
    assert_eq!(present, listed, "LAYERS and the folders of src/ differ");
    for folder in FORBIDDEN_FOR_CORE {
        assert_ne!(layer_of(folder), Some("core"), "{folder} is core");
    }
}

#[path = "checker_tests.rs"]
mod checker_tests;
