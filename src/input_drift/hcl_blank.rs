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
    let mut scanner = Scanner {
        source,
        bytes: source.as_bytes(),
        code: source.as_bytes().to_vec(),
        strings: BTreeMap::new(),
        stack: vec![Mode::Code { depth: 0 }],
        i: 0,
    };
    while scanner.i < scanner.bytes.len() {
        let in_interpolation = scanner.stack.len() > 1;
        match scanner.stack.pop().unwrap_or(Mode::Code { depth: 0 }) {
            Mode::Code { depth } => scanner.step_code(depth, in_interpolation),
            Mode::Str { open } => scanner.step_string(open),
            Mode::Heredoc { marker } => scanner.step_heredoc(marker),
        }
        if scanner.stack.is_empty() {
            scanner.stack.push(Mode::Code { depth: 0 });
        }
    }
    // Only ASCII spaces replaced whole bytes; any multi-byte character was either kept
    // whole or blanked byte by byte, so this cannot fail. Fall back to spaces regardless.
    let code = String::from_utf8(scanner.code).unwrap_or_else(|e| {
        String::from_utf8_lossy(e.as_bytes())
            .chars()
            .map(|c| if c.is_ascii() { c } else { ' ' })
            .collect()
    });
    Blanked {
        source,
        code,
        strings: scanner.strings,
    }
}

/// The scan state: the output being blanked, the mode stack and the current byte.
struct Scanner<'s> {
    source: &'s str,
    bytes: &'s [u8],
    code: Vec<u8>,
    strings: BTreeMap<usize, usize>,
    stack: Vec<Mode>,
    i: usize,
}

impl Scanner<'_> {
    fn at(&self, s: &str) -> bool {
        self.bytes[self.i..].starts_with(s.as_bytes())
    }

    /// Spaces over `[from, to)`, keeping newlines.
    fn blank(&mut self, from: usize, to: usize) {
        for b in &mut self.code[from..to.min(self.bytes.len())] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }

    /// Spaces over `[from, to)` including newlines: heredoc text loses its newlines too, so that
    /// the expression holding it runs on to the terminator line.
    fn blank_all(&mut self, from: usize, to: usize) {
        for b in &mut self.code[from..to.min(self.bytes.len())] {
            *b = b' ';
        }
    }

    /// One step in code (or an interpolation, whose open braces `depth` counts).
    fn step_code(&mut self, depth: usize, in_interpolation: bool) {
        let i = self.i;
        let mut depth = Some(depth);
        if self.at("#") || self.at("//") {
            let end = line_end(self.bytes, i);
            self.blank(i, end);
            self.i = end;
        } else if self.at("/*") {
            let end = find(self.bytes, i + 2, b"*/").map_or(self.bytes.len(), |e| e + 2);
            self.blank(i, end);
            self.i = end;
        } else if self.at("\"") {
            self.stack
                .extend(depth.take().map(|depth| Mode::Code { depth }));
            self.stack.push(Mode::Str { open: i });
            self.i += 1;
        } else if let Some((marker, body_start)) = heredoc_start(self.bytes, i) {
            self.blank_all(i, body_start);
            self.stack
                .extend(depth.take().map(|depth| Mode::Code { depth }));
            self.stack.push(Mode::Heredoc { marker });
            self.i = body_start;
        } else if self.at("{") && in_interpolation {
            depth = depth.map(|d| d + 1);
            self.i += 1;
        } else if self.at("}") && in_interpolation {
            match depth {
                Some(0) => {
                    self.code[i] = b' ';
                    depth = None;
                }
                Some(d) => depth = Some(d - 1),
                None => {}
            }
            self.i += 1;
        } else {
            self.i += 1;
        }
        self.stack.extend(depth.map(|depth| Mode::Code { depth }));
    }

    /// One step inside a quoted string opened at `open`.
    fn step_string(&mut self, open: usize) {
        let i = self.i;
        if self.at("\\") {
            self.blank(i, i + 2);
            self.i += 2;
            self.stack.push(Mode::Str { open });
        } else if self.at("$${") || self.at("%%{") {
            self.blank(i, i + 3);
            self.i += 3;
            self.stack.push(Mode::Str { open });
        } else if self.at("${") || self.at("%{") {
            self.blank(i, i + 2);
            self.i += 2;
            self.stack.push(Mode::Str { open });
            self.stack.push(Mode::Code { depth: 0 });
        } else if self.at("\"") {
            self.strings.insert(open, i);
            self.i += 1;
        } else if self.at("\n") {
            // Unterminated string: HCL forbids newlines in quoted strings; recover.
            self.strings.insert(open, i);
        } else {
            self.blank(i, i + 1);
            self.i += 1;
            self.stack.push(Mode::Str { open });
        }
    }

    /// One step inside a heredoc ending at a line holding only `marker`.
    fn step_heredoc(&mut self, marker: String) {
        let i = self.i;
        let line_start = i == 0 || self.bytes[i - 1] == b'\n';
        let end = line_end(self.bytes, i);
        if line_start && self.source[i..end].trim() == marker.as_str() {
            self.blank_all(i, end);
            self.i = end;
        } else if self.at("$${") || self.at("%%{") {
            self.blank_all(i, i + 3);
            self.i += 3;
            self.stack.push(Mode::Heredoc { marker });
        } else if self.at("${") || self.at("%{") {
            self.blank_all(i, i + 2);
            self.i += 2;
            self.stack.push(Mode::Heredoc { marker });
            self.stack.push(Mode::Code { depth: 0 });
        } else {
            self.blank_all(i, i + 1);
            self.i += 1;
            self.stack.push(Mode::Heredoc { marker });
        }
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
