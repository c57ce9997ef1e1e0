//! First pass of the HCL scanner: comments and the literal text of strings and heredocs
//! become spaces (same byte length, newlines kept outside heredocs); interpolations stay.

use std::collections::BTreeMap;

/// Byte range `[start, end)` of the source.
pub(super) type Span = (usize, usize);

pub(super) struct Blanked<'t> {
    pub source: &'t str,
    /// Same length as `source`: comments and literal string text replaced by spaces.
    pub code: String,
    /// Opening quote position → closing quote position, for every string literal.
    pub strings: BTreeMap<usize, usize>,
}

impl Blanked<'_> {
    pub fn code_of(&self, span: Span) -> &str {
        &self.code[span.0..span.1]
    }
}

enum Mode {
    /// Code; inside an interpolation, `depth` counts its open braces.
    Code {
        depth: usize,
    },
    Str {
        open: usize,
    },
    Heredoc {
        marker: String,
    },
}

pub(super) fn blank_literals(source: &str) -> Blanked<'_> {
    let bytes = source.as_bytes();
    let mut code = bytes.to_vec();
    let mut strings = BTreeMap::new();
    let mut stack = vec![Mode::Code { depth: 0 }];
    let mut i = 0;
    let blank = |code: &mut Vec<u8>, from: usize, to: usize| {
        for b in &mut code[from..to.min(bytes.len())] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    // Heredoc text loses its newlines too, so that the expression holding it runs on to
    // the terminator line.
    let blank_all = |code: &mut Vec<u8>, from: usize, to: usize| {
        for b in &mut code[from..to.min(bytes.len())] {
            *b = b' ';
        }
    };
    while i < bytes.len() {
        let at = |s: &str| bytes[i..].starts_with(s.as_bytes());
        let in_interpolation = stack.len() > 1;
        match stack.pop().unwrap_or(Mode::Code { depth: 0 }) {
            Mode::Code { depth } => {
                let mut depth = Some(depth);
                if at("#") || at("//") {
                    let end = line_end(bytes, i);
                    blank(&mut code, i, end);
                    i = end;
                } else if at("/*") {
                    let end = find(bytes, i + 2, b"*/").map_or(bytes.len(), |e| e + 2);
                    blank(&mut code, i, end);
                    i = end;
                } else if at("\"") {
                    stack.extend(depth.take().map(|depth| Mode::Code { depth }));
                    stack.push(Mode::Str { open: i });
                    i += 1;
                } else if let Some((marker, body_start)) = heredoc_start(bytes, i) {
                    blank_all(&mut code, i, body_start);
                    stack.extend(depth.take().map(|depth| Mode::Code { depth }));
                    stack.push(Mode::Heredoc { marker });
                    i = body_start;
                } else if at("{") && in_interpolation {
                    depth = depth.map(|d| d + 1);
                    i += 1;
                } else if at("}") && in_interpolation {
                    match depth {
                        Some(0) => {
                            code[i] = b' ';
                            depth = None;
                        }
                        Some(d) => depth = Some(d - 1),
                        None => {}
                    }
                    i += 1;
                } else {
                    i += 1;
                }
                stack.extend(depth.map(|depth| Mode::Code { depth }));
            }
            Mode::Str { open } => {
                if at("\\") {
                    blank(&mut code, i, i + 2);
                    i += 2;
                    stack.push(Mode::Str { open });
                } else if at("$${") || at("%%{") {
                    blank(&mut code, i, i + 3);
                    i += 3;
                    stack.push(Mode::Str { open });
                } else if at("${") || at("%{") {
                    blank(&mut code, i, i + 2);
                    i += 2;
                    stack.push(Mode::Str { open });
                    stack.push(Mode::Code { depth: 0 });
                } else if at("\"") {
                    strings.insert(open, i);
                    i += 1;
                } else if at("\n") {
                    // Unterminated string: HCL forbids newlines in quoted strings; recover.
                    strings.insert(open, i);
                } else {
                    blank(&mut code, i, i + 1);
                    i += 1;
                    stack.push(Mode::Str { open });
                }
            }
            Mode::Heredoc { marker } => {
                let line_start = i == 0 || bytes[i - 1] == b'\n';
                let end = line_end(bytes, i);
                if line_start && source[i..end].trim() == marker.as_str() {
                    blank_all(&mut code, i, end);
                    i = end;
                } else if at("$${") || at("%%{") {
                    blank_all(&mut code, i, i + 3);
                    i += 3;
                    stack.push(Mode::Heredoc { marker });
                } else if at("${") || at("%{") {
                    blank_all(&mut code, i, i + 2);
                    i += 2;
                    stack.push(Mode::Heredoc { marker });
                    stack.push(Mode::Code { depth: 0 });
                } else {
                    blank_all(&mut code, i, i + 1);
                    i += 1;
                    stack.push(Mode::Heredoc { marker });
                }
            }
        }
        if stack.is_empty() {
            stack.push(Mode::Code { depth: 0 });
        }
    }
    // Only ASCII spaces replaced whole bytes; any multi-byte character was either kept
    // whole or blanked byte by byte, so this cannot fail. Fall back to spaces regardless.
    let code = String::from_utf8(code).unwrap_or_else(|e| {
        String::from_utf8_lossy(e.as_bytes())
            .chars()
            .map(|c| if c.is_ascii() { c } else { ' ' })
            .collect()
    });
    Blanked {
        source,
        code,
        strings,
    }
}

fn line_end(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|b| *b == b'\n')
        .map_or(bytes.len(), |p| from + p)
}

fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

/// `<<EOF` / `<<-EOF` followed by a newline: (marker, first byte of the body).
fn heredoc_start(bytes: &[u8], i: usize) -> Option<(String, usize)> {
    let rest = bytes.get(i..)?.strip_prefix(b"<<")?;
    let rest = rest.strip_prefix(b"-").unwrap_or(rest);
    let len = rest
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    if len == 0 {
        return None;
    }
    let marker = String::from_utf8(rest[..len].to_vec()).ok()?;
    let after = i + (bytes.len() - i - rest.len()) + len;
    let newline = line_end(bytes, after);
    let between = std::str::from_utf8(&bytes[after..newline]).ok()?;
    (between.trim().is_empty() && newline < bytes.len()).then_some((marker, newline + 1))
}
