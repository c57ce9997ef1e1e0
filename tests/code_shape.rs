//! Code-shape rules for `src/` and `tests/`: no file over 500 lines and no non-test function
//! over 80 lines. Functions are found by parsing each file with `syn`; lengths are counted from
//! the line of the signature to the line of the closing brace, so doc comments and attributes
//! do not count.
//!
//! In `src/`, files that hold only tests (`tests.rs`, `*_tests.rs`, files in a `tests/`
//! folder) and `#[cfg(test)]`/`#[test]` items are exempt from the function rule. In `tests/`,
//! the helper functions are checked and only `#[test]`/`#[tokio::test]` functions (and
//! `#[cfg(test)]` items) are exempt; `tests/fixtures/` is data and is not checked at all.

use std::fmt;
use std::path::{Path, PathBuf};

use syn::spanned::Spanned;
use syn::visit::{self, Visit};

mod source_rules;
use source_rules::{is_test_file, is_test_only};

const MAX_FILE_LINES: usize = 500;
const MAX_FN_LINES: usize = 80;

/// A function allowed to be long: its file (from the repository root), its name, and why.
/// Keep it to lookup tables whose length is their data, not their logic. An entry whose
/// function is no longer long (or gone) is itself an offence, so the list cannot go stale.
#[derive(Debug, Clone, Copy)]
struct Allowance {
    file: &'static str,
    name: &'static str,
    reason: &'static str,
}

/// Functions allowed to be long (today: none).
const ALLOWED_LONG_FNS: &[Allowance] = &[];

/// Folders under a checked root that hold data, not code.
const UNCHECKED_DIRS: [&str; 1] = ["tests/fixtures"];

#[derive(Debug, Clone, PartialEq, Eq)]
enum Offence {
    LongFile {
        lines: usize,
    },
    LongFn {
        name: String,
        line: usize,
        lines: usize,
    },
    Unparsable {
        error: String,
    },
    /// An `ALLOWED_LONG_FNS` entry that matches no long function.
    StaleAllowance {
        name: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Offender {
    /// The file's path from the repository root, with `/` separators.
    file: String,
    offence: Offence,
}

impl fmt::Display for Offender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = &self.file;
        match &self.offence {
            Offence::LongFile { lines } => {
                write!(f, "{file}: file has {lines} lines (max {MAX_FILE_LINES})")
            }
            Offence::LongFn { name, line, lines } => write!(
                f,
                "{file}:{line}: fn {name} has {lines} lines (max {MAX_FN_LINES})"
            ),
            Offence::Unparsable { error } => write!(f, "{file}: does not parse: {error}"),
            Offence::StaleAllowance { name } => write!(
                f,
                "{file}: ALLOWED_LONG_FNS lists fn {name}, which is not a long function in this \
                 file (any more); remove the entry"
            ),
        }
    }
}

/// Whether the function rule applies to the file at `path` (from the repository root): to
/// every file of `tests/` (its test functions are skipped one by one), and to the files of
/// `src/` that are not test-only.
fn fn_rule_applies(path: &str) -> bool {
    match path.strip_prefix("src/") {
        Some(relative) => !is_test_file(relative),
        None => true,
    }
}

/// Collects every non-test function (free, impl, trait default, nested) with its line span.
struct FnCollector {
    found: Vec<(String, usize, usize)>,
}

impl FnCollector {
    fn record(&mut self, name: &syn::Ident, sig: &syn::Signature, body: &syn::Block) {
        let first = sig.span().start().line;
        let last = body.span().end().line;
        self.found
            .push((name.to_string(), first, last.saturating_sub(first) + 1));
    }
}

impl<'ast> Visit<'ast> for FnCollector {
    fn visit_item_mod(&mut self, node: &'ast syn::ItemMod) {
        if !is_test_only(&node.attrs) {
            visit::visit_item_mod(self, node);
        }
    }

    fn visit_item_impl(&mut self, node: &'ast syn::ItemImpl) {
        if !is_test_only(&node.attrs) {
            visit::visit_item_impl(self, node);
        }
    }

    fn visit_item_fn(&mut self, node: &'ast syn::ItemFn) {
        if !is_test_only(&node.attrs) {
            self.record(&node.sig.ident, &node.sig, &node.block);
            visit::visit_item_fn(self, node);
        }
    }

    fn visit_impl_item_fn(&mut self, node: &'ast syn::ImplItemFn) {
        if !is_test_only(&node.attrs) {
            self.record(&node.sig.ident, &node.sig, &node.block);
            visit::visit_impl_item_fn(self, node);
        }
    }

    fn visit_trait_item_fn(&mut self, node: &'ast syn::TraitItemFn) {
        if is_test_only(&node.attrs) {
            return;
        }
        if let Some(body) = &node.default {
            self.record(&node.sig.ident, &node.sig, body);
        }
        visit::visit_trait_item_fn(self, node);
    }
}

/// The offences in one file, before the allowlist; `path` is from the repository root with `/`
/// separators (`src/…` or `tests/…`).
fn check_source(path: &str, source: &str) -> Vec<Offender> {
    let offender = |offence| Offender {
        file: path.to_string(),
        offence,
    };
    let mut offenders = Vec::new();
    let lines = source.lines().count();
    if lines > MAX_FILE_LINES {
        offenders.push(offender(Offence::LongFile { lines }));
    }
    if !fn_rule_applies(path) {
        return offenders;
    }
    let file = match syn::parse_file(source) {
        Ok(file) => file,
        Err(error) => {
            offenders.push(offender(Offence::Unparsable {
                error: error.to_string(),
            }));
            return offenders;
        }
    };
    let mut collector = FnCollector { found: Vec::new() };
    collector.visit_file(&file);
    for (name, line, lines) in collector.found {
        if lines > MAX_FN_LINES {
            offenders.push(offender(Offence::LongFn { name, line, lines }));
        }
    }
    offenders
}

/// `offenders` without the long functions `allowed` names (with a reason), plus one offence
/// per entry that matches no long function in `offenders`.
fn apply_allowlist(offenders: Vec<Offender>, allowed: &[Allowance]) -> Vec<Offender> {
    let is_entry_for = |entry: &Allowance, offender: &Offender| {
        offender.file == entry.file
            && matches!(&offender.offence, Offence::LongFn { name, .. } if name == entry.name)
    };
    let stale: Vec<Offender> = allowed
        .iter()
        .filter(|entry| !offenders.iter().any(|o| is_entry_for(entry, o)))
        .map(|entry| Offender {
            file: entry.file.to_string(),
            offence: Offence::StaleAllowance {
                name: entry.name.to_string(),
            },
        })
        .collect();
    offenders
        .into_iter()
        .filter(|o| {
            !allowed
                .iter()
                .any(|entry| !entry.reason.is_empty() && is_entry_for(entry, o))
        })
        .chain(stale)
        .collect()
}

/// Every `.rs` file under `dir`, skipping [`UNCHECKED_DIRS`]; `repo` is the repository root.
fn rust_files_under(repo: &Path, dir: &Path, into: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("read {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            if !UNCHECKED_DIRS.iter().any(|d| path == repo.join(d)) {
                rust_files_under(repo, &path, into);
            }
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            into.push(path);
        }
    }
}

/// The offences of every file under `root` (`src` or `tests`), after the allowlist.
fn check_root(root: &str) -> Vec<Offender> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files_under(repo, &repo.join(root), &mut files);
    files.sort();
    assert!(!files.is_empty(), "no .rs files under {root}/");
    let mut offenders = Vec::new();
    for path in &files {
        let source = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
        let relative = path
            .strip_prefix(repo)
            .expect("file under the repository")
            .to_string_lossy()
            .replace('\\', "/");
        offenders.extend(check_source(&relative, &source));
    }
    // Entries under `tests/` belong to that pass, all others to the `src` pass (where one
    // outside `src/` is stale).
    let allowed: Vec<Allowance> = ALLOWED_LONG_FNS
        .iter()
        .filter(|entry| entry.file.starts_with("tests/") == (root == "tests"))
        .copied()
        .collect();
    apply_allowlist(offenders, &allowed)
}

fn assert_no_offences(offenders: &[Offender]) {
    let report: Vec<String> = offenders.iter().map(ToString::to_string).collect();
    assert!(
        offenders.is_empty(),
        "{} code-shape offence(s); split these (or, for a pure lookup table, add it to \
         ALLOWED_LONG_FNS with a reason):\n{}",
        offenders.len(),
        report.join("\n")
    );
}

#[test]
fn src_files_and_functions_stay_short() {
    assert_no_offences(&check_root("src"));
}

#[test]
fn test_files_and_functions_stay_short() {
    assert_no_offences(&check_root("tests"));
}

/// A fixture module with a function whose signature-to-closing-brace span is `lines` long.
fn fixture_with_fn_of(lines: usize) -> String {
    let body: String = (0..lines - 2)
        .map(|i| format!("    let _v{i} = {i};\n"))
        .collect();
    format!("/// Doc lines do not count.\n#[inline]\npub fn long_one() {{\n{body}}}\n")
}

#[test]
fn checker_flags_an_81_line_fn_and_passes_an_80_line_fn() {
    let flagged = check_source("src/demo/module.rs", &fixture_with_fn_of(81));
    assert_eq!(
        flagged,
        vec![Offender {
            file: "src/demo/module.rs".to_string(),
            offence: Offence::LongFn {
                name: "long_one".to_string(),
                line: 3,
                lines: 81,
            },
        }]
    );
    assert_eq!(
        flagged[0].to_string(),
        "src/demo/module.rs:3: fn long_one has 81 lines (max 80)"
    );
    assert!(check_source("src/demo/module.rs", &fixture_with_fn_of(80)).is_empty());
}

/// A file with long functions of every kind: `in_impl`, `by_default`, `outer`, `nested`,
/// then a long helper in a `#[cfg(test)]` module and long `#[test]` and `#[tokio::test]` fns.
fn fixture_with_every_kind_of_fn() -> String {
    let long_body: String = (0..80).map(|i| format!("let _v{i} = {i};\n")).collect();
    format!(
        "struct S;\n\
         impl S {{ fn in_impl(&self) {{\n{long_body}}} }}\n\
         trait T {{ fn by_default(&self) {{\n{long_body}}} }}\n\
         fn outer() {{ fn nested() {{\n{long_body}}} }}\n\
         #[cfg(test)]\nmod tests {{ fn helper() {{\n{long_body}}} }}\n\
         #[test]\nfn a_test() {{\n{long_body}}}\n\
         #[tokio::test(flavor = \"multi_thread\")]\nasync fn an_async_test() {{\n{long_body}}}\n"
    )
}

fn long_fn_names(offenders: Vec<Offender>) -> Vec<String> {
    offenders
        .into_iter()
        .filter_map(|o| match o.offence {
            Offence::LongFn { name, .. } => Some(name),
            _ => None,
        })
        .collect()
}

#[test]
fn checker_finds_impl_trait_and_nested_fns_but_skips_tests() {
    let source = fixture_with_every_kind_of_fn();
    let names = long_fn_names(check_source("src/demo/shapes.rs", &source));
    assert_eq!(names, ["in_impl", "by_default", "outer", "nested"]);
    assert!(check_source("src/demo/shapes_tests.rs", &source).is_empty());
    assert!(check_source("src/demo/tests/shapes.rs", &source).is_empty());
}

#[test]
fn in_tests_helpers_are_checked_and_test_functions_are_not() {
    let source = fixture_with_every_kind_of_fn();
    for path in [
        "tests/scenarios_demo.rs",
        "tests/support/mod.rs",
        "tests/support/demo_tests.rs",
    ] {
        let names = long_fn_names(check_source(path, &source));
        assert_eq!(
            names,
            ["in_impl", "by_default", "outer", "nested"],
            "{path}"
        );
    }
}

#[test]
fn checker_flags_files_over_500_lines_even_test_files() {
    let source = "// line\n".repeat(501);
    for path in ["src/demo/big_tests.rs", "tests/support/big.rs"] {
        assert_eq!(
            check_source(path, &source),
            vec![Offender {
                file: path.to_string(),
                offence: Offence::LongFile { lines: 501 },
            }]
        );
    }
    assert!(check_source("src/demo/ok.rs", &"// line\n".repeat(500)).is_empty());
    assert_eq!(
        check_source("tests/big.rs", &source)[0].to_string(),
        "tests/big.rs: file has 501 lines (max 500)"
    );
}

#[test]
fn fixtures_are_not_checked() {
    let repo = tempfile::tempdir().unwrap();
    for dir in ["tests/fixtures/code", "tests/support"] {
        std::fs::create_dir_all(repo.path().join(dir)).unwrap();
    }
    for file in [
        "tests/fixtures/code/big.rs",
        "tests/support/mod.rs",
        "tests/a.rs",
    ] {
        std::fs::write(repo.path().join(file), "").unwrap();
    }
    let mut files = Vec::new();
    rust_files_under(repo.path(), &repo.path().join("tests"), &mut files);
    files.sort();
    let names: Vec<_> = files
        .iter()
        .map(|f| f.strip_prefix(repo.path()).unwrap().to_owned())
        .collect();
    assert_eq!(
        names,
        [Path::new("tests/a.rs"), Path::new("tests/support/mod.rs")]
    );
}

/// A lookup table of `arms + 4` lines named `name`.
fn lookup_table(name: &str, arms: usize) -> String {
    let arms: String = (0..arms)
        .map(|i| format!("        {i} => {i},\n"))
        .collect();
    format!("fn {name}(c: u32) -> u32 {{\n    match c {{\n{arms}        _ => 0,\n    }}\n}}\n")
}

const TABLE: Allowance = Allowance {
    file: "src/demo/codes.rs",
    name: "category_of",
    reason: "lookup table",
};

#[test]
fn an_allowlisted_long_fn_is_not_flagged_elsewhere_it_is() {
    let source = lookup_table("category_of", 90);
    let found = |path: &str| apply_allowlist(check_source(path, &source), &[TABLE]);
    assert!(found("src/demo/codes.rs").is_empty());
    let elsewhere = found("src/demo/other.rs");
    assert_eq!(elsewhere.len(), 2, "{elsewhere:?}");
    assert!(matches!(elsewhere[0].offence, Offence::LongFn { .. }));
    assert!(matches!(
        elsewhere[1].offence,
        Offence::StaleAllowance { .. }
    ));
}

#[test]
fn a_stale_allowlist_entry_is_an_offence() {
    let short = apply_allowlist(
        check_source("src/demo/codes.rs", &lookup_table("category_of", 10)),
        &[TABLE],
    );
    let stale = Offender {
        file: "src/demo/codes.rs".to_string(),
        offence: Offence::StaleAllowance {
            name: "category_of".to_string(),
        },
    };
    assert_eq!(short, vec![stale.clone()]);
    assert_eq!(
        stale.to_string(),
        "src/demo/codes.rs: ALLOWED_LONG_FNS lists fn category_of, which is not a long \
         function in this file (any more); remove the entry"
    );
    assert_eq!(apply_allowlist(Vec::new(), &[TABLE]), vec![stale]);
}

#[test]
fn an_allowlist_entry_without_a_reason_allows_nothing() {
    let unexplained = Allowance {
        reason: "",
        ..TABLE
    };
    let found = apply_allowlist(
        check_source("src/demo/codes.rs", &lookup_table("category_of", 90)),
        &[unexplained],
    );
    assert_eq!(found.len(), 1);
    assert!(matches!(found[0].offence, Offence::LongFn { .. }));
}
