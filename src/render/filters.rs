//! The minijinja environment: markdown escaping by default, and the filters templates use.
//!
//! Every `{{ value }}` is escaped with [`escape::inline_text`] unless a filter below already
//! produced safe markup (or the template says `|safe`, which only `help.md.j2` does, for
//! help text tfgate writes itself).

use minijinja::{AutoEscape, Environment, Error, ErrorKind, UndefinedBehavior, Value};

use super::escape;

/// Builds an environment with tfgate's escaping rules and filters, without templates.
pub fn base_environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    env.set_keep_trailing_newline(true);
    // A custom auto-escape mode makes macro output count as safe; the formatter does the work.
    env.set_auto_escape_callback(|_| AutoEscape::Custom("markdown"));
    env.set_formatter(|out, _state, value| {
        if value.is_safe() {
            write!(out, "{value}").map_err(Error::from)
        } else if value.is_none() {
            Ok(())
        } else {
            out.write_str(&escape::inline_text(&value.to_string()))
                .map_err(Error::from)
        }
    });
    env.add_filter("code", |v: String| {
        Value::from_safe_string(escape::code_span(&v, false))
    });
    env.add_filter("code_list", |v: Vec<String>| {
        let spans: Vec<String> = v.iter().map(|x| escape::code_span(x, false)).collect();
        Value::from_safe_string(spans.join(", "))
    });
    env.add_filter("cell_code", |v: String| {
        Value::from_safe_string(escape::code_span(&v, true))
    });
    env.add_filter("code_block", |v: String, info: String| {
        Value::from_safe_string(escape::code_block(&v, &info))
    });
    env.add_filter("html", |v: String| {
        Value::from_safe_string(escape::html_text(&v))
    });
    env.add_filter("text_with_code", |v: String| {
        Value::from_safe_string(text_with_code(&v))
    });
    env.add_filter("link", |url: String, text: String| link(&url, &text));
    env.add_filter("fingerprint", |v: String| {
        Value::from_safe_string(fingerprint(&v))
    });
    env.add_filter("action_verb", |v: String| action_verb(&v).to_string());
    env
}

/// Tfgate-authored text where `` `…` `` marks code: code parts become code spans,
/// the rest is escaped text. An unpaired backtick is kept as an escaped character.
pub fn text_with_code(value: &str) -> String {
    let parts: Vec<&str> = value.split('`').collect();
    let paired = parts.len() % 2 == 1;
    let mut out = String::new();
    for (i, part) in parts.iter().enumerate() {
        let is_code = i % 2 == 1 && (paired || i + 1 < parts.len());
        if is_code {
            out.push_str(&escape::code_span(part, false));
        } else {
            if i > 0 && !paired && i + 1 == parts.len() {
                out.push_str("\\`");
            }
            out.push_str(&escape::inline_text(part));
        }
    }
    out
}

/// A markdown link to an `https://` URL; anything else renders as escaped text only.
fn link(url: &str, text: &str) -> Result<Value, Error> {
    let label = escape::inline_text(text);
    let usable = url.starts_with("https://")
        && url.chars().all(|c| {
            c.is_ascii_graphic() && !matches!(c, '(' | ')' | '<' | '>' | '"' | '\\' | '`')
        });
    if text.is_empty() {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            "link text is empty",
        ));
    }
    Ok(Value::from_safe_string(if usable {
        format!("[{label}]({url})")
    } else {
        label
    }))
}

/// First four characters of a fingerprint followed by an ellipsis; `none` when empty.
fn fingerprint(value: &str) -> String {
    if value.is_empty() {
        return "none".to_string();
    }
    let short: String = value.chars().take(4).collect();
    let mut out = escape::inline_text(&short);
    if value.chars().count() > 4 {
        out.push('…');
    }
    out
}

/// Terraform action name → the words after "will be".
pub fn action_verb(action: &str) -> &str {
    match action {
        "create" => "created",
        "update" => "updated in-place",
        "delete" => "destroyed",
        "replace" | "delete-create" | "create-delete" => "replaced",
        "read" => "read",
        "no-op" => "left unchanged",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(template: &str, ctx: Value) -> String {
        let env = base_environment();
        env.render_str(template, ctx).unwrap()
    }

    #[test]
    fn values_are_escaped_unless_a_filter_made_them_safe() {
        let ctx = minijinja::context! { v => "a|b <i>@x</i>" };
        assert_eq!(
            render("{{ v }}", ctx.clone()),
            "a\\|b &lt;i&gt;@\u{200B}x&lt;/i&gt;"
        );
        assert_eq!(
            render("{{ v|cell_code }}", ctx.clone()),
            "`a\\|b <i>@x</i>`"
        );
        assert_eq!(render("{{ v|code }}", ctx.clone()), "`a|b <i>@x</i>`");
        assert_eq!(
            render("{{ v|html }}", ctx),
            "a|b &lt;i&gt;@\u{200B}x&lt;/i&gt;"
        );
    }

    #[test]
    fn none_renders_empty_and_numbers_plain() {
        let ctx = minijinja::context! { n => Value::from(()), k => 1234 };
        assert_eq!(render("[{{ n }}][{{ k }}]", ctx), "[][1234]");
    }

    #[test]
    fn text_with_code_keeps_code_spans_and_escapes_the_rest() {
        let cases: &[(&str, &str)] = &[
            ("re-run `/apply`", "re-run `/apply`"),
            (
                "add `iam:GetRole` to *the* role",
                "add `iam:GetRole` to \\*the\\* role",
            ),
            ("odd ` tick", "odd \\` tick"),
            ("a `b` c `d", "a `b` c \\`d"),
            ("`x|y`", "`x|y`"),
            ("@team <b>", "@\u{200B}team &lt;b&gt;"),
        ];
        for (input, want) in cases {
            assert_eq!(&text_with_code(input), want, "input {input:?}");
        }
    }

    #[test]
    fn link_accepts_only_plain_https_urls() {
        let cases: &[(&str, &str)] = &[
            (
                "https://github.com/o/r/pull/3",
                "[PR 3](https://github.com/o/r/pull/3)",
            ),
            ("javascript:alert(1)", "PR 3"),
            ("https://x/a)(b", "PR 3"),
            ("https://x/a b", "PR 3"),
            ("http://plain", "PR 3"),
        ];
        for (url, want) in cases {
            assert_eq!(link(url, "PR 3").unwrap().to_string(), *want, "url {url}");
        }
        assert!(link("https://x", "").is_err());
    }

    #[test]
    fn fingerprint_is_shortened() {
        assert_eq!(fingerprint("3f2a77e1"), "3f2a…");
        assert_eq!(fingerprint("3f2"), "3f2");
        assert_eq!(fingerprint(""), "none");
    }

    #[test]
    fn action_verbs() {
        assert_eq!(action_verb("create"), "created");
        assert_eq!(action_verb("delete-create"), "replaced");
        assert_eq!(action_verb("forget"), "forget");
    }
}
