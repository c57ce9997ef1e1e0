//! Code-shape rules for `src/`: no file over 500 lines and no non-test function over 80 lines.
//! Functions are found by parsing each file with `syn`; lengths are counted from the line of the
//! signature to the line of the closing brace, so doc comments and attributes do not count.

use std::fmt;
use std::path::{Path, PathBuf};

use syn::spanned::Spanned;
use syn::visit::{self, Visit};

const MAX_FILE_LINES: usize = 500;
const MAX_FN_LINES: usize = 80;

/// Functions allowed to be long, as `(file under src/, fn name, reason)`. Keep it to lookup tables
/// whose length is their data, not their logic.
const ALLOWED_LONG_FNS: &[(&str, &str, &str)] = &[(
    "classify/codes.rs",
    "category_of_code",
    "lookup table: one branch per error category listing its AWS error codes",
)];

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
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Offender {
    file: String,
    offence: Offence,
}

impl fmt::Display for Offender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.offence {
            Offence::LongFile { lines } => write!(
                f,
                "src/{}: file has {lines} lines (max {MAX_FILE_LINES})",
                self.file
            ),
            Offence::LongFn { name, line, lines } => write!(
                f,
                "src/{}:{line}: fn {name} has {lines} lines (max {MAX_FN_LINES})",
                self.file
            ),
            Offence::Unparsable { error } => {
                write!(f, "src/{}: does not parse: {error}", self.file)
            }
        }
    }
}

/// A file holding only tests: named `tests.rs` / `*_tests.rs` or inside a `tests/` directory.
fn is_test_file(relative: &str) -> bool {
    let path = Path::new(relative);
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name == "tests.rs"
        || name.ends_with("_tests.rs")
        || path
            .parent()
            .is_some_and(|dir| dir.components().any(|c| c.as_os_str() == "tests"))
}

/// `#[cfg(test)]`, `#[test]` or a test macro such as `#[tokio::test]`.
fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        let path = attr.path();
        if path.segments.last().is_some_and(|s| s.ident == "test") {
            return true;
        }
        path.is_ident("cfg")
            && attr
                .parse_args::<syn::Meta>()
                .is_ok_and(|meta| meta.path().is_ident("test"))
    })
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

fn is_allowed(relative: &str, fn_name: &str) -> bool {
    ALLOWED_LONG_FNS
        .iter()
        .any(|(file, name, _reason)| *file == relative && *name == fn_name)
}

/// The offences in one file; `relative` is its path under `src/` with `/` separators.
fn check_source(relative: &str, source: &str) -> Vec<Offender> {
    let offender = |offence| Offender {
        file: relative.to_string(),
        offence,
    };
    let mut offenders = Vec::new();
    let lines = source.lines().count();
    if lines > MAX_FILE_LINES {
        offenders.push(offender(Offence::LongFile { lines }));
    }
    if is_test_file(relative) {
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
        if lines > MAX_FN_LINES && !is_allowed(relative, &name) {
            offenders.push(offender(Offence::LongFn { name, line, lines }));
        }
    }
    offenders
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

#[test]
fn src_files_and_functions_stay_short() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files_under(&src, &mut files);
    files.sort();
    assert!(!files.is_empty(), "no .rs files under {}", src.display());

    let mut offenders = Vec::new();
    for path in &files {
        let source = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
        let relative = path
            .strip_prefix(&src)
            .expect("file under src/")
            .to_string_lossy()
            .replace('\\', "/");
        offenders.extend(check_source(&relative, &source));
    }
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
fn allowlist_names_functions_that_exist() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for (file, name, reason) in ALLOWED_LONG_FNS {
        assert!(!reason.is_empty(), "{file}::{name} needs a reason");
        let source = std::fs::read_to_string(src.join(file))
            .unwrap_or_else(|e| panic!("allowlisted file src/{file}: {e}"));
        assert!(
            source.contains(&format!("fn {name}")),
            "allowlisted fn {name} is not in src/{file}; remove it from ALLOWED_LONG_FNS"
        );
    }
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
    let flagged = check_source("demo/module.rs", &fixture_with_fn_of(81));
    assert_eq!(
        flagged,
        vec![Offender {
            file: "demo/module.rs".to_string(),
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
    assert!(check_source("demo/module.rs", &fixture_with_fn_of(80)).is_empty());
}

#[test]
fn checker_finds_impl_trait_and_nested_fns_but_skips_tests() {
    let long_body: String = (0..85).map(|i| format!("let _v{i} = {i};\n")).collect();
    let source = format!(
        "struct S;\n\
         impl S {{ fn in_impl(&self) {{\n{long_body}}} }}\n\
         trait T {{ fn by_default(&self) {{\n{long_body}}} }}\n\
         fn outer() {{ fn nested() {{\n{long_body}}} }}\n\
         #[cfg(test)]\nmod tests {{ fn helper() {{\n{long_body}}} }}\n\
         #[test]\nfn a_test() {{\n{long_body}}}\n"
    );
    let names: Vec<String> = check_source("demo/shapes.rs", &source)
        .into_iter()
        .filter_map(|o| match o.offence {
            Offence::LongFn { name, .. } => Some(name),
            _ => None,
        })
        .collect();
    assert_eq!(names, ["in_impl", "by_default", "outer", "nested"]);
    assert!(check_source("demo/shapes_tests.rs", &source).is_empty());
    assert!(check_source("demo/tests/shapes.rs", &source).is_empty());
}

#[test]
fn checker_flags_files_over_500_lines_even_test_files() {
    let source = "// line\n".repeat(501);
    assert_eq!(
        check_source("demo/big_tests.rs", &source),
        vec![Offender {
            file: "demo/big_tests.rs".to_string(),
            offence: Offence::LongFile { lines: 501 },
        }]
    );
    assert!(check_source("demo/ok.rs", &"// line\n".repeat(500)).is_empty());
}

#[test]
fn allowlisted_lookup_table_is_not_flagged() {
    let arms: String = (0..90).map(|i| format!("        {i} => {i},\n")).collect();
    let source = format!("fn category_of_code(c: u32) -> u32 {{\n    match c {{\n{arms}        _ => 0,\n    }}\n}}\n");
    assert!(check_source("classify/codes.rs", &source).is_empty());
    assert_eq!(check_source("classify/other.rs", &source).len(), 1);
}
