//! Finding the code references of a Markdown text: the code spans outside fenced blocks, and
//! which of them name code by the convention at the top of `docs/architecture.md`.

use std::sync::LazyLock;

use regex::Regex;

/// Folders whose paths are written from the repository root; every other path is from `src/`.
pub const ROOT_FOLDERS: [&str; 7] = [
    "src",
    "tests",
    "templates",
    "migrations",
    "docs",
    "scripts",
    "bench",
];

/// What a code span names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reference {
    /// A file, or a folder when it ends with `/`; from the repository root.
    Path(String),
    /// `file.rs::a::b`: the file (from the repository root) and the item path in it.
    InFile { file: String, item: Vec<String> },
    /// `a::b::c`: a Rust path, of the crate (from a top-level module) or of a dependency.
    Rust(Vec<String>),
}

/// A code reference and the line (1-based) it is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub line: usize,
    pub span: String,
    pub reference: Reference,
}

const IDENT: &str = "[A-Za-z_][A-Za-z0-9_]*";
const PATH: &str = "[a-z0-9_][a-z0-9_./-]*";

static IN_FILE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"^({PATH}\.rs)::({IDENT}(?:::{IDENT})*)$")).unwrap());
static FILE_OR_FOLDER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"^{PATH}(?:/|\.[a-z0-9]+)$")).unwrap());
static RUST_PATH: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"^{IDENT}(?:::{IDENT})+$")).unwrap());

/// A path as written → from the repository root.
fn from_root(path: &str) -> String {
    let first = path.split('/').next().unwrap_or("");
    if path.contains('/') && ROOT_FOLDERS.contains(&first) {
        path.to_string()
    } else {
        format!("src/{path}")
    }
}

fn segments(path: &str) -> Vec<String> {
    path.split("::").map(str::to_string).collect()
}

/// What the code span `span` names, if it names code.
pub fn classify(span: &str) -> Option<Reference> {
    if let Some(c) = IN_FILE.captures(span) {
        return Some(Reference::InFile {
            file: from_root(&c[1]),
            item: segments(&c[2]),
        });
    }
    if FILE_OR_FOLDER.is_match(span) && (span.contains('/') || span.ends_with(".rs")) {
        return Some(Reference::Path(from_root(span)));
    }
    RUST_PATH
        .is_match(span)
        .then(|| Reference::Rust(segments(span)))
}

/// The code spans of one line: a run of backticks up to the next run as long, its content
/// trimmed of one space each side (CommonMark); an unclosed run is text.
pub fn code_spans(line: &str) -> Vec<String> {
    let chars: Vec<char> = line.chars().collect();
    let run_at = |i: usize| chars[i..].iter().take_while(|c| **c == '`').count();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let open = run_at(i);
        if open == 0 {
            i += 1;
            continue;
        }
        let mut j = i + open;
        let close = loop {
            if j >= chars.len() {
                break None;
            }
            match run_at(j) {
                0 => j += 1,
                n if n == open => break Some(j),
                n => j += n,
            }
        };
        match close {
            Some(end) => {
                let text: String = chars[i + open..end].iter().collect();
                let trimmed = match text.strip_prefix(' ').and_then(|t| t.strip_suffix(' ')) {
                    Some(inner) if !inner.trim().is_empty() => inner.to_string(),
                    _ => text,
                };
                spans.push(trimmed);
                i = end + open;
            }
            None => i += open,
        }
    }
    spans
}

/// Every code reference of `markdown`, fenced code blocks left out.
pub fn references(markdown: &str) -> Vec<Found> {
    let mut found = Vec::new();
    let mut fenced = false;
    for (index, line) in markdown.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        for span in code_spans(line) {
            if let Some(reference) = classify(&span) {
                found.push(Found {
                    line: index + 1,
                    span,
                    reference,
                });
            }
        }
    }
    found
}
