//! A tolerant scanner for `.tf` / `.tfvars` text: finds top-level blocks (resource, data,
//! variable, output, module, provider, locals), `dynamic` blocks inside resources, local
//! values with the references of their expressions, and tfvars assignments.
//!
//! Not an HCL parser: comments and the literal parts of strings/heredocs are blanked out
//! (interpolations `${…}` / `%{…}` are kept), then braces are matched on what is left.
//! Malformed input yields whatever could be recognised, never an error.

use std::collections::BTreeMap;

use std::sync::OnceLock;

use regex::Regex;

use super::hcl_blank::{blank_literals, Blanked, Span};

/// What one `.tf` file declares.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileScan {
    /// Module-relative addresses: `aws_s3_bucket.b`, `data.aws_ami.a`, with their `dynamic`
    /// blocks (top-level block name → references inside the dynamic block).
    pub resources: BTreeMap<String, BTreeMap<String, Vec<String>>>,
    pub variables: Vec<String>,
    pub outputs: Vec<String>,
    /// Module call name → `source` (when it is a plain string).
    pub module_calls: BTreeMap<String, Option<String>>,
    /// Provider config keys: `aws`, `aws.east`.
    pub providers: Vec<String>,
    /// Local name → references of its expression.
    pub locals: BTreeMap<String, Vec<String>>,
    /// Top-level `NAME = …` assignments (what a `.tfvars` file sets).
    pub assignments: Vec<String>,
}

pub fn scan_hcl(text: &str) -> FileScan {
    let blanked = blank_literals(text);
    let mut scan = FileScan::default();
    let items = items(&blanked, 0, blanked.code.len());
    for item in items {
        match item {
            Item::Attribute { name, .. } => scan.assignments.push(name),
            Item::Block { kind, labels, body } => {
                record_block(&blanked, &mut scan, &kind, &labels, body)
            }
        }
    }
    scan
}

fn record_block(b: &Blanked, scan: &mut FileScan, kind: &str, labels: &[String], body: Span) {
    match (kind, labels) {
        ("resource", [t, n, ..]) => {
            let mut dynamics = BTreeMap::new();
            collect_dynamic_blocks(b, body, None, &mut dynamics);
            scan.resources.insert(format!("{t}.{n}"), dynamics);
        }
        ("data", [t, n, ..]) => {
            let mut dynamics = BTreeMap::new();
            collect_dynamic_blocks(b, body, None, &mut dynamics);
            scan.resources.insert(format!("data.{t}.{n}"), dynamics);
        }
        ("variable", [name, ..]) => scan.variables.push(name.clone()),
        ("output", [name, ..]) => scan.outputs.push(name.clone()),
        ("module", [name, ..]) => {
            let source = items(b, body.0, body.1)
                .into_iter()
                .find_map(|item| match item {
                    Item::Attribute { name, value } if name == "source" => plain_string(b, value),
                    _ => None,
                });
            scan.module_calls.insert(name.clone(), source);
        }
        ("provider", [name, ..]) => {
            let alias = items(b, body.0, body.1)
                .into_iter()
                .find_map(|item| match item {
                    Item::Attribute { name, value } if name == "alias" => plain_string(b, value),
                    _ => None,
                });
            scan.providers.push(match alias {
                Some(alias) => format!("{name}.{alias}"),
                None => name.clone(),
            });
        }
        ("locals", []) => {
            for item in items(b, body.0, body.1) {
                if let Item::Attribute { name, value } = item {
                    scan.locals.insert(name, references_in(b, value));
                }
            }
        }
        _ => {}
    }
}

/// `dynamic "x"` blocks anywhere in a resource body, keyed by the top-level block name that
/// holds them (`x` itself at the top level).
fn collect_dynamic_blocks(
    b: &Blanked,
    body: Span,
    top: Option<&str>,
    out: &mut BTreeMap<String, Vec<String>>,
) {
    for item in items(b, body.0, body.1) {
        if let Item::Block {
            kind,
            labels,
            body: inner,
        } = item
        {
            let name = if kind == "dynamic" {
                labels.first().cloned().unwrap_or_default()
            } else {
                kind.clone()
            };
            let top_name = top.unwrap_or(&name).to_string();
            if kind == "dynamic" {
                let refs = references_in(b, inner);
                let entry = out.entry(top_name.clone()).or_default();
                entry.extend(refs);
                entry.sort();
                entry.dedup();
            }
            collect_dynamic_blocks(b, inner, Some(&top_name), out);
        }
    }
}

/// References (`var.x`, `local.y`, `module.m.o`, `data.t.n.a`, `t_t.n.a`, `each.value`,
/// `count.index`) in a span of blanked code, as written in the source.
fn references_in(b: &Blanked, span: Span) -> Vec<String> {
    let mut out: Vec<String> = reference_pattern()
        .captures_iter(b.code_of(span))
        .filter_map(|c| c.get(1))
        .map(|m| b.source[span.0 + m.start()..span.0 + m.end()].to_string())
        .filter(|r| is_reference(r))
        .collect();
    out.sort();
    out.dedup();
    out
}

fn is_reference(text: &str) -> bool {
    let mut parts = text.split('.');
    let first = parts.next().unwrap_or("");
    let second = parts.next();
    match first {
        "var" | "local" | "module" | "each" | "count" => second.is_some(),
        "data" => second.is_some() && parts.next().is_some(),
        // A resource type always has a provider prefix: `aws_x`. For-expression symbols
        // such as `s.name` are not taken for resources.
        _ => first.contains('_') && second.is_some_and(|s| !s.is_empty()),
    }
}

/// A traversal chain not preceded by an identifier character or a dot.
fn reference_pattern() -> &'static Regex {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    PATTERN.get_or_init(|| {
        Regex::new(
            r"(?:^|[^A-Za-z0-9_.\-])([A-Za-z_][A-Za-z0-9_\-]*(?:\.[A-Za-z_][A-Za-z0-9_\-]*|\[[^\[\]]*\])*)",
        )
        .expect("valid pattern")
    })
}

// ------------------------------------------------------------------ structure

enum Item {
    Block {
        kind: String,
        labels: Vec<String>,
        body: Span,
    },
    Attribute {
        name: String,
        value: Span,
    },
}

/// Blocks and attributes directly inside `[from, to)` of blanked code.
fn items(b: &Blanked, from: usize, to: usize) -> Vec<Item> {
    let code = b.code.as_bytes();
    let mut out = Vec::new();
    let mut i = from;
    while i < to {
        i = skip_space(code, i, to);
        if i >= to {
            break;
        }
        let Some(name_end) = ident_end(code, i, to) else {
            // Not the start of an item: skip to the next line.
            i = skip_expression(b, i, to);
            continue;
        };
        let name = b.code[i..name_end].to_string();
        let mut j = skip_space_inline(code, name_end, to);
        if j < to && code[j] == b'=' && code.get(j + 1) != Some(&b'=') {
            let value_start = j + 1;
            let value_end = skip_expression(b, value_start, to);
            out.push(Item::Attribute {
                name,
                value: (value_start, value_end),
            });
            i = value_end;
            continue;
        }
        let mut labels = Vec::new();
        loop {
            j = skip_space_inline(code, j, to);
            if j < to && code[j] == b'"' {
                let Some(&close) = b.strings.get(&j) else {
                    break;
                };
                labels.push(b.source[j + 1..close].to_string());
                j = close + 1;
            } else if let Some(end) = ident_end(code, j, to) {
                labels.push(b.code[j..end].to_string());
                j = end;
            } else {
                break;
            }
        }
        if j < to && code[j] == b'{' {
            let close = matching_brace(code, j, to);
            out.push(Item::Block {
                kind: name,
                labels,
                body: (j + 1, close),
            });
            i = close + 1;
        } else {
            i = skip_expression(b, j, to);
        }
    }
    out
}

fn skip_space(code: &[u8], mut i: usize, to: usize) -> usize {
    while i < to && code[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

fn skip_space_inline(code: &[u8], mut i: usize, to: usize) -> usize {
    while i < to && (code[i] == b' ' || code[i] == b'\t' || code[i] == b'\r') {
        i += 1;
    }
    i
}

fn ident_end(code: &[u8], i: usize, to: usize) -> Option<usize> {
    let first = *code.get(i)?;
    if !(first.is_ascii_alphabetic() || first == b'_') {
        return None;
    }
    let mut j = i + 1;
    while j < to && (code[j].is_ascii_alphanumeric() || code[j] == b'_' || code[j] == b'-') {
        j += 1;
    }
    Some(j)
}

/// Position of the `}` matching the `{` at `open` (or `to` when unbalanced).
fn matching_brace(code: &[u8], open: usize, to: usize) -> usize {
    let mut depth = 0usize;
    for (k, c) in code.iter().enumerate().take(to).skip(open) {
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    to
}

/// End of an expression starting at `i`: the first newline outside brackets (or `to`).
fn skip_expression(b: &Blanked, mut i: usize, to: usize) -> usize {
    let code = b.code.as_bytes();
    let mut depth = 0usize;
    while i < to {
        match code[i] {
            b'{' | b'[' | b'(' => depth += 1,
            b'}' | b']' | b')' => {
                if depth == 0 {
                    return i + 1;
                }
                depth -= 1;
            }
            b'"' => {
                if let Some(&close) = b.strings.get(&i) {
                    i = close;
                }
            }
            b'\n' if depth == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    to
}

/// The text of a value that is exactly one string literal without interpolation.
fn plain_string(b: &Blanked, value: Span) -> Option<String> {
    let code = b.code_of(value);
    let start = value.0 + code.find('"')?;
    let close = *b.strings.get(&start)?;
    let literal = &b.source[start + 1..close];
    let rest = b.code[close + 1..value.1].trim();
    (!literal.contains("${") && rest.is_empty()).then(|| literal.to_string())
}

#[cfg(test)]
#[path = "hcl_scan_tests.rs"]
mod tests;
