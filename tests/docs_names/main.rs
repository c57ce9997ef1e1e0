//! `docs/architecture.md` checked against the code: every file and folder it names exists, and
//! every function, type or module it names is defined where it says. The convention (which
//! code spans name code, and how) is written at the top of that page; `refs.rs` finds the
//! references, `resolve.rs` looks them up in the crate with `syn`.

mod refs;
mod resolve;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use refs::{classify, code_spans, references, Reference};
use resolve::Crate;

/// The pages checked.
const PAGES: [&str; 1] = ["docs/architecture.md"];

/// Fewer references than this on a page means the reader broke, not that the page is short.
const MIN_REFERENCES: usize = 100;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Crates a Rust path may start with without naming this crate: std's and the dependencies.
fn other_crates(repo: &Path) -> BTreeSet<String> {
    let manifest: toml::Table = std::fs::read_to_string(repo.join("Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let mut names: BTreeSet<String> = ["std", "core", "alloc"].map(String::from).into();
    for table in ["dependencies", "dev-dependencies", "build-dependencies"] {
        if let Some(deps) = manifest.get(table).and_then(|t| t.as_table()) {
            names.extend(deps.keys().map(|k| k.replace('-', "_")));
        }
    }
    names
}

/// Why `reference` names nothing that exists, if it does not.
fn check(
    repo: &Path,
    krate: &Crate,
    others: &BTreeSet<String>,
    r: &Reference,
) -> Result<(), String> {
    match r {
        Reference::Path(path) => {
            let full = repo.join(path);
            let exists = if path.ends_with('/') {
                full.is_dir()
            } else {
                full.is_file()
            };
            exists
                .then_some(())
                .ok_or_else(|| format!("{path} does not exist"))
        }
        Reference::InFile { file, item } => {
            if !file.starts_with("src/") || !repo.join(file).is_file() {
                return Err(format!("{file} is not a file of src/"));
            }
            krate.check_in_file(&repo.join(file), item)
        }
        Reference::Rust(path) if others.contains(&path[0]) => Ok(()),
        Reference::Rust(path) => krate.check_path(path),
    }
}

/// How many references `markdown` has, and a line for each stale one (`page:line: span: why`).
fn stale_references(repo: &Path, page: &str, markdown: &str) -> (usize, Vec<String>) {
    let krate = Crate::load(&repo.join("src"));
    let others = other_crates(repo);
    let found = references(markdown);
    let stale = found
        .iter()
        .filter_map(|f| {
            let why = check(repo, &krate, &others, &f.reference).err()?;
            Some(format!("{page}:{}: `{}`: {why}", f.line, f.span))
        })
        .collect();
    (found.len(), stale)
}

#[test]
fn the_docs_name_only_code_that_exists() {
    for page in PAGES {
        let markdown = std::fs::read_to_string(repo().join(page)).unwrap();
        let (count, stale) = stale_references(&repo(), page, &markdown);
        assert!(
            count >= MIN_REFERENCES,
            "{page}: only {count} code references found"
        );
        assert!(
            stale.is_empty(),
            "{} stale code reference(s); fix the page (the convention is at its top):\n{}",
            stale.len(),
            stale.join("\n")
        );
    }
}

#[test]
fn code_spans_follow_commonmark() {
    let spans = |line: &str| code_spans(line);
    assert_eq!(spans("a `x` b `y::z`"), ["x", "y::z"]);
    assert_eq!(spans("`` `a/b.rs` `` is an example"), ["`a/b.rs`"]);
    assert_eq!(spans("an ` unclosed tick"), Vec::<String>::new());
    assert_eq!(spans("``a`b``"), ["a`b"]);
    let found = references("`worker/`\n```\n`worker/gone.rs`\n```\n`policy::decide`\n");
    let lines: Vec<(usize, &str)> = found.iter().map(|f| (f.line, f.span.as_str())).collect();
    assert_eq!(lines, [(1, "worker/"), (5, "policy::decide")]);
}

#[test]
fn spans_are_classified_by_the_convention() {
    let path = |p: &str| Some(Reference::Path(p.to_string()));
    let rust = |p: &[&str]| Some(Reference::Rust(p.iter().map(|s| s.to_string()).collect()));
    let in_file = |file: &str, item: &[&str]| {
        Some(Reference::InFile {
            file: file.to_string(),
            item: item.iter().map(|s| s.to_string()).collect(),
        })
    };
    let table = [
        ("worker/run/apply.rs", path("src/worker/run/apply.rs")),
        ("src/worker/run/apply.rs", path("src/worker/run/apply.rs")),
        ("main.rs", path("src/main.rs")),
        ("render/", path("src/render/")),
        ("templates/apply.md.j2", path("templates/apply.md.j2")),
        ("tests/code_shape.rs", path("tests/code_shape.rs")),
        (
            "run_planner/start.rs::run_start",
            in_file("src/run_planner/start.rs", &["run_start"]),
        ),
        (
            "webhook/intake.rs::IntakeWriter::submit",
            in_file("src/webhook/intake.rs", &["IntakeWriter", "submit"]),
        ),
        (
            "run_planner::start::run_start",
            rust(&["run_planner", "start", "run_start"]),
        ),
        (
            "PlanRecord::references",
            rust(&["PlanRecord", "references"]),
        ),
        ("tfgate.yaml", None),
        ("tfgate/apply", None),
        ("/apply", None),
        ("DATA_DIR/tools", None),
        ("hashicorp/*", None),
        ("receive", None),
        ("RunJob { head_sha, plan_runs, … }", None),
        ("POST /webhooks", None),
    ];
    for (span, expected) in table {
        assert_eq!(classify(span), expected, "{span}");
    }
}

#[cfg(test)]
mod synthetic;
