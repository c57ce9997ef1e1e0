//! Markdown hygiene: every value that reaches a comment passes through one of these.
//!
//! Three contexts, three functions:
//! - [`inline_text`]: plain markdown text and table cells (the template default).
//! - [`code_span`]: a value shown as `code`, in or outside a table cell.
//! - [`html_text`]: text inside an HTML block such as `<summary>`, where markdown is off.
//!
//! Whatever the input, the output is one line, cannot close a table cell, open a link,
//! image, HTML tag or code span, and cannot mention a user or reference an issue.

/// Zero-width space: breaks `@user`, `#123` and `scheme://` without a visible change.
const ZWSP: char = '\u{200B}';

/// Escapes a value for inline markdown text, including GFM table cells.
pub fn inline_text(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 8);
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => {}
            c if c.is_control() => out.push(' '),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '~' | '$' | '!' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '@' | '#' => {
                out.push(c);
                out.push(ZWSP);
            }
            ':' if starts_with_slashes(chars.clone()) => {
                out.push(':');
                out.push(ZWSP);
            }
            c => out.push(c),
        }
    }
    out
}

/// Renders a value as one markdown code span. `in_table` escapes pipes as GFM requires
/// inside table cells (outside tables a `\|` would show its backslash).
///
/// The fence is one backtick longer than the longest backtick run in the value, so the
/// value cannot close the span. An empty value renders as an italic `(empty)`.
pub fn code_span(value: &str, in_table: bool) -> String {
    let one_line: String = value
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if one_line.is_empty() {
        return "_(empty)_".to_string();
    }
    let body = if in_table {
        one_line.replace('|', "\\|")
    } else {
        one_line
    };
    let fence = "`".repeat(longest_backtick_run(&body) + 1);
    let needs_padding = body.starts_with('`')
        || body.ends_with('`')
        || (body.starts_with(' ') && body.ends_with(' ') && !body.trim().is_empty());
    let pad = if needs_padding { " " } else { "" };
    format!("{fence}{pad}{body}{pad}{fence}")
}

/// Renders a value as a fenced code block with an info string (`json`): the fence is longer
/// than any backtick run in the value, so the value cannot close it; control characters other
/// than newlines become spaces.
pub fn code_block(value: &str, info: &str) -> String {
    let body: String = value
        .chars()
        .map(|c| if c.is_control() && c != '\n' { ' ' } else { c })
        .collect();
    let fence = "`".repeat((longest_backtick_run(&body) + 1).max(3));
    let info: String = info.chars().filter(char::is_ascii_alphanumeric).collect();
    format!("{fence}{info}\n{}\n{fence}", body.trim_end_matches('\n'))
}

/// Escapes a value for text inside an HTML block (e.g. `<summary>`), where GitHub does not
/// process markdown. Newlines are removed because a blank line would end the block.
pub fn html_text(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 8);
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => {}
            c if c.is_control() => out.push(' '),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '@' | '#' => {
                out.push(c);
                out.push(ZWSP);
            }
            ':' if starts_with_slashes(chars.clone()) => {
                out.push(':');
                out.push(ZWSP);
            }
            c => out.push(c),
        }
    }
    out
}

fn starts_with_slashes(mut rest: impl Iterator<Item = char>) -> bool {
    rest.next() == Some('/') && rest.next() == Some('/')
}

fn longest_backtick_run(s: &str) -> usize {
    let mut longest = 0;
    let mut current = 0;
    for c in s.chars() {
        if c == '`' {
            current += 1;
            longest = longest.max(current);
        } else {
            current = 0;
        }
    }
    longest
}

#[cfg(test)]
mod tests {
    use super::*;

    const Z: &str = "\u{200B}";

    #[test]
    fn inline_text_neutralises_injection_attempts() {
        let cases: &[(&str, String)] = &[
            ("aws_s3_bucket.logs", "aws\\_s3\\_bucket.logs".into()),
            ("a|b", "a\\|b".into()),
            ("`code`", "\\`code\\`".into()),
            ("line1\nline2", "line1 line2".into()),
            ("line1\r\nline2", "line1 line2".into()),
            (
                "<img src=x onerror=alert(1)>",
                "&lt;img src=x onerror=alert(1)&gt;".into(),
            ),
            (
                "<!-- tfgate:kind=plan -->",
                "&lt;\\!-- tfgate:kind=plan --&gt;".into(),
            ),
            ("@octocat", format!("@{Z}octocat")),
            ("@org/team", format!("@{Z}org/team")),
            ("fixes #12", format!("fixes #{Z}12")),
            (
                "[x](https://evil.example)",
                format!("\\[x\\](https:{Z}//evil.example)"),
            ),
            (
                "![i](http://e/x.png)",
                format!("\\!\\[i\\](http:{Z}//e/x.png)"),
            ),
            (
                "**bold** _it_ ~~s~~",
                "\\*\\*bold\\*\\* \\_it\\_ \\~\\~s\\~\\~".into(),
            ),
            ("$x^2$", "\\$x^2\\$".into()),
            ("&#64;user", format!("&amp;#{Z}64;user")),
            ("back\\slash", "back\\\\slash".into()),
            ("tab\there", "tab here".into()),
            ("", "".into()),
        ];
        for (input, want) in cases {
            assert_eq!(&inline_text(input), want, "input {input:?}");
        }
    }

    #[test]
    fn code_span_cannot_be_closed_by_the_value() {
        let cases: &[(&str, bool, &str)] = &[
            ("aws_iam_role.node", false, "`aws_iam_role.node`"),
            ("a`b", false, "``a`b``"),
            ("``x", false, "``` ``x ```"),
            ("x`", false, "`` x` ``"),
            ("a|b", true, "`a\\|b`"),
            ("a|b", false, "`a|b`"),
            ("multi\nline", false, "`multi line`"),
            ("<script>", true, "`<script>`"),
            ("@octocat", true, "`@octocat`"),
            ("  padded  ", false, "`   padded   `"),
            ("", true, "_(empty)_"),
        ];
        for (input, in_table, want) in cases {
            assert_eq!(
                code_span(input, *in_table),
                *want,
                "input {input:?} table={in_table}"
            );
        }
    }

    #[test]
    fn html_text_escapes_tags_quotes_and_mentions() {
        let cases: &[(&str, String)] = &[
            ("aws_eks_cluster.this", "aws_eks_cluster.this".into()),
            (
                "</summary><script>",
                "&lt;/summary&gt;&lt;script&gt;".into(),
            ),
            ("a\"b'c", "a&quot;b&#39;c".into()),
            ("x\n\ny", "x  y".into()),
            ("@octocat", format!("@{Z}octocat")),
            ("ftp://h", format!("ftp:{Z}//h")),
            ("a&b", "a&amp;b".into()),
        ];
        for (input, want) in cases {
            assert_eq!(&html_text(input), want, "input {input:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn escaped_values_stay_on_one_line_and_hold_no_raw_markup(s in "\\PC*|[\\n\\r|`<>@#\\\\]{0,20}") {
            for out in [inline_text(&s), html_text(&s), code_span(&s, true)] {
                proptest::prop_assert!(!out.contains('\n') && !out.contains('\r'));
            }
            let text = inline_text(&s);
            proptest::prop_assert!(!text.contains('<') && !text.contains('>'));
            // every pipe in a table cell is escaped
            let cell = code_span(&s, true);
            let bytes: Vec<char> = cell.chars().collect();
            for (i, c) in bytes.iter().enumerate() {
                if *c == '|' {
                    proptest::prop_assert!(i > 0 && bytes[i - 1] == '\\');
                }
            }
        }
    }
}
