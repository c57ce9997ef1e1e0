//! Which lines of a comment body are prose that GitHub renders as ordinary text.
//!
//! A small line-based reading of CommonMark, conservative on purpose (when unsure, a line is not
//! prose, so no command runs from text a reviewer would not read as a command):
//! - fenced code blocks: a line whose text starts, at any indentation, with three or more
//!   backticks or tildes opens a fence (a backtick fence's info string holds no backtick); it is
//!   closed by a line of the same character, at least as long, and nothing else. An unclosed fence
//!   runs to the end of the body.
//! - indented code blocks: a line indented by 4+ columns (a tab counts to the next multiple of 4)
//!   at the start of the body, after a blank line, or after another such line. An indented line
//!   right after a prose line continues the paragraph and stays prose.
//! - block quotes: any line starting with `>`, and the "lazy" lines that continue a quoted
//!   paragraph without a blank line in between (GitHub renders them inside the quote).
//! - HTML comments: everything from `<!--` to the next `-->`, across lines, outside inline code
//!   spans. Each removed span is replaced by one space.
//!
//! Not handled (documented gaps): list-item indentation (an indented paragraph inside a list item
//! after a blank line counts as code, i.e. it is ignored), raw `<pre>` HTML blocks.

/// One line of prose: its 1-based number and its visible text (HTML comments replaced by a space).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ProseLine {
    pub number: usize,
    pub text: String,
}

/// The prose lines of `body`, in order. Lines are split like [`str::lines`] (`\n` or `\r\n`).
pub(super) fn prose_lines(body: &str) -> impl Iterator<Item = ProseLine> + '_ {
    let mut reader = BlockReader::default();
    body.lines().enumerate().filter_map(move |(index, raw)| {
        reader.read(raw).map(|text| ProseLine {
            number: index + 1,
            text,
        })
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fence {
    marker: char,
    length: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Block {
    /// Outside any block: start of the body, or after a blank line or a closed fence.
    #[default]
    Start,
    /// The previous line was prose text; an indented line continues it.
    Paragraph,
    IndentedCode,
    FencedCode(Fence),
    /// A block quote; `paragraph_open` when its last line held paragraph text (lazy lines follow).
    Quote {
        paragraph_open: bool,
    },
}

#[derive(Debug, Default)]
struct BlockReader {
    block: Block,
    in_html_comment: bool,
}

impl BlockReader {
    /// Reads one line; returns its visible text when it is prose.
    fn read(&mut self, raw: &str) -> Option<String> {
        if let Block::FencedCode(fence) = self.block {
            if closes_fence(raw, fence) {
                self.block = Block::Start;
            }
            return None;
        }
        let text = if self.in_html_comment {
            let close = raw.find("-->")?;
            self.in_html_comment = false;
            format!(" {}", &raw[close + 3..])
        } else {
            raw.to_string()
        };
        self.classify(text)
    }

    fn classify(&mut self, text: String) -> Option<String> {
        if text.trim().is_empty() {
            if self.block != Block::IndentedCode {
                self.block = Block::Start;
            }
            return None;
        }
        let trimmed = text.trim_start();
        if let Some(fence) = opens_fence(trimmed) {
            self.block = Block::FencedCode(fence);
            return None;
        }
        if let Some(quoted) = trimmed.strip_prefix('>') {
            let content = strip_quote_markers(quoted);
            let paragraph_open = !content.trim().is_empty() && opens_fence(content).is_none();
            self.block = Block::Quote { paragraph_open };
            return None;
        }
        match self.block {
            Block::Quote {
                paragraph_open: true,
            } => return None,
            Block::Start | Block::IndentedCode | Block::Quote { .. }
                if indent_columns(&text) >= 4 =>
            {
                self.block = Block::IndentedCode;
                return None;
            }
            _ => {}
        }
        let (visible, still_open) = remove_html_comments(&text);
        self.in_html_comment = still_open;
        self.block = if visible.trim().is_empty() {
            Block::Start
        } else {
            Block::Paragraph
        };
        Some(visible)
    }
}

/// Strips further `>` markers of a nested quote (`> > x`, `>> x`).
fn strip_quote_markers(mut quoted: &str) -> &str {
    loop {
        let rest = quoted.trim_start();
        match rest.strip_prefix('>') {
            Some(inner) => quoted = inner,
            None => return rest,
        }
    }
}

/// Indentation width in columns: a space is 1, a tab advances to the next multiple of 4.
fn indent_columns(text: &str) -> usize {
    let mut columns = 0;
    for ch in text.chars() {
        match ch {
            ' ' => columns += 1,
            '\t' => columns += 4 - columns % 4,
            _ => break,
        }
    }
    columns
}

fn marker_run(text: &str, marker: char) -> usize {
    text.chars().take_while(|&ch| ch == marker).count()
}

/// A fence opener at the start of `trimmed` (already left-trimmed).
fn opens_fence(trimmed: &str) -> Option<Fence> {
    let marker = trimmed
        .chars()
        .next()
        .filter(|&ch| ch == '`' || ch == '~')?;
    let length = marker_run(trimmed, marker);
    if length < 3 {
        return None;
    }
    // `marker` is ASCII, so `length` chars are `length` bytes.
    let info = &trimmed[length..];
    if marker == '`' && info.contains('`') {
        return None;
    }
    Some(Fence { marker, length })
}

fn closes_fence(raw: &str, fence: Fence) -> bool {
    let trimmed = raw.trim();
    let length = marker_run(trimmed, fence.marker);
    length >= fence.length && length == trimmed.chars().count()
}

/// Replaces each `<!-- ... -->` span (outside inline code spans) with one space. Returns the
/// visible text and whether a comment is still open at the end of the line.
fn remove_html_comments(text: &str) -> (String, bool) {
    let mut visible = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let Some(open) = find_comment_open(rest) else {
            visible.push_str(rest);
            return (visible, false);
        };
        visible.push_str(&rest[..open]);
        visible.push(' ');
        // `<!-->` and `<!--->` are complete (empty) comments, hence the search from `open + 2`.
        match rest[open + 2..].find("-->") {
            Some(close) => rest = &rest[open + 2 + close + 3..],
            None => return (visible, true),
        }
    }
}

/// Byte offset of the first `<!--` in `text` that is not inside an inline code span.
fn find_comment_open(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'`' {
            let run = bytes[at..].iter().take_while(|&&b| b == b'`').count();
            if let Some(end) = find_backtick_run(&bytes[at + run..], run) {
                at += run + end + run;
                continue;
            }
            at += run;
            continue;
        }
        if bytes[at..].starts_with(b"<!--") {
            return Some(at);
        }
        at += 1;
    }
    None
}

/// Offset of the next run of exactly `run` backticks in `bytes`.
fn find_backtick_run(bytes: &[u8], run: usize) -> Option<usize> {
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'`' {
            let length = bytes[at..].iter().take_while(|&&b| b == b'`').count();
            if length == run {
                return Some(at);
            }
            at += length;
        } else {
            at += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prose(body: &str) -> Vec<(usize, String)> {
        prose_lines(body)
            .map(|line| (line.number, line.text))
            .collect()
    }

    #[test]
    fn indent_counts_tabs_to_the_next_stop() {
        assert_eq!(indent_columns("  \tx"), 4);
        assert_eq!(indent_columns("\tx"), 4);
        assert_eq!(indent_columns("   x"), 3);
    }

    #[test]
    fn fence_openers() {
        assert_eq!(
            opens_fence("```rust"),
            Some(Fence {
                marker: '`',
                length: 3
            })
        );
        assert_eq!(
            opens_fence("~~~~"),
            Some(Fence {
                marker: '~',
                length: 4
            })
        );
        assert_eq!(opens_fence("``"), None);
        assert_eq!(opens_fence("```a`b"), None, "inline code, not a fence");
        assert!(
            opens_fence("~~~a`b").is_some(),
            "tilde info may hold backticks"
        );
    }

    #[test]
    fn closing_fence_needs_same_marker_and_length() {
        let fence = Fence {
            marker: '`',
            length: 4,
        };
        assert!(!closes_fence("```", fence));
        assert!(!closes_fence("~~~~", fence));
        assert!(!closes_fence("```` x", fence));
        assert!(closes_fence("  `````  ", fence));
    }

    #[test]
    fn html_comments_are_replaced_by_a_space() {
        assert_eq!(remove_html_comments("a<!-- b -->c"), ("a c".into(), false));
        assert_eq!(remove_html_comments("a <!-- b"), ("a  ".into(), true));
        assert_eq!(remove_html_comments("<!---->x"), (" x".into(), false));
        assert_eq!(remove_html_comments("<!-->x"), (" x".into(), false));
        assert_eq!(
            remove_html_comments("`<!--` x"),
            ("`<!--` x".into(), false),
            "inside a code span"
        );
        assert_eq!(
            remove_html_comments("`` ` `` <!-- y --> z"),
            ("`` ` ``   z".into(), false)
        );
    }

    #[test]
    fn prose_skips_code_quotes_and_comments() {
        let body = "one\n```\ntwo\n```\n> three\nlazy four\n\nfive <!-- six\nseven\n--> eight\n\n    nine\nten\n    eleven";
        assert_eq!(
            prose(body),
            vec![
                (1, "one".to_string()),
                (8, "five  ".to_string()),
                (10, "  eight".to_string()),
                (13, "ten".to_string()),
                (14, "    eleven".to_string()),
            ]
        );
    }

    #[test]
    fn indented_code_continues_across_blank_lines() {
        assert_eq!(prose("    a\n\n    b\nc"), vec![(4, "c".to_string())]);
    }

    #[test]
    fn quote_ending_in_blank_marker_takes_no_lazy_line() {
        assert_eq!(prose("> a\n>\nb"), vec![(3, "b".to_string())]);
        assert_eq!(prose("> > a\nb"), vec![]);
        assert_eq!(prose("> a\n\nb"), vec![(3, "b".to_string())]);
    }

    #[test]
    fn unclosed_fence_runs_to_the_end() {
        assert_eq!(prose("a\n~~~\nb\n```\nc"), vec![(1, "a".to_string())]);
    }
}
