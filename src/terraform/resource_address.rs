//! Splits an absolute resource instance address into module calls and the module-relative
//! resource address, dropping instance keys: the lookup key into `configuration`.

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InstanceAddress {
    /// Module call names from the root, e.g. `["network", "subnets"]`.
    pub module_calls: Vec<String>,
    /// Module-relative address without instance key: `aws_s3_bucket.b`, `data.aws_iam_policy_document.p`.
    pub resource: String,
}

/// `module.a["k"].module.b[0].aws_x.y["z"]` → calls `[a, b]`, resource `aws_x.y`.
/// `None` when the text is not a resource instance address.
pub fn split_instance_address(address: &str) -> Option<InstanceAddress> {
    let split = split_segments(address);
    if !split.balanced {
        return None;
    }
    let segments = split.segments;
    let mut names = segments.iter().map(|s| strip_key(s));
    let mut module_calls = Vec::new();
    let mut rest: Vec<&str> = Vec::new();
    while let Some(name) = names.next() {
        if name == "module" && rest.is_empty() {
            module_calls.push(names.next()?.to_string());
        } else {
            rest.push(name);
        }
    }
    let valid = match rest.as_slice() {
        [mode, _, _] => matches!(*mode, "data" | "ephemeral"),
        [_, _] => true,
        _ => false,
    };
    (valid && rest.iter().all(|s| !s.is_empty())).then(|| InstanceAddress {
        module_calls,
        resource: rest.join("."),
    })
}

/// An address or reference split on `.` outside `[...]` and string literals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddressSegments<'a> {
    pub segments: Vec<&'a str>,
    /// Every `[` and `"` is closed and no `]` closes nothing; a well-formed address.
    pub balanced: bool,
}

/// Splits `text` on `.` outside `[...]` and string literals (`a.b["x.y"].c` → `a`, `b["x.y"]`,
/// `c`). An unmatched `]` is skipped over and marks the text unbalanced.
pub fn split_segments(text: &str) -> AddressSegments<'_> {
    let mut segments = Vec::new();
    let (mut depth, mut in_string, mut escaped, mut start) = (0usize, false, false, 0usize);
    let mut stray_close = false;
    for (i, c) in text.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '[' => depth += 1,
            ']' => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => stray_close = true,
            },
            '.' if depth == 0 => {
                segments.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    segments.push(&text[start..]);
    AddressSegments {
        segments,
        balanced: !stray_close && !in_string && depth == 0,
    }
}

/// A segment without its instance key: `foo["k"]` → `foo`.
pub fn strip_key(segment: &str) -> &str {
    segment.split_once('[').map_or(segment, |(name, _)| name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (address, expected module calls and resource)
    type Case = (&'static str, Option<(Vec<&'static str>, &'static str)>);

    fn split(address: &str) -> Option<(Vec<String>, String)> {
        split_instance_address(address).map(|a| (a.module_calls, a.resource))
    }

    #[test]
    fn splits_addresses() {
        let cases: Vec<Case> = vec![
            ("aws_s3_bucket.b", Some((vec![], "aws_s3_bucket.b"))),
            ("null_resource.baz[0]", Some((vec![], "null_resource.baz"))),
            (
                "data.null_data_source.baz",
                Some((vec![], "data.null_data_source.baz")),
            ),
            (
                r#"module.files.local_file.foo["file1.txt"]"#,
                Some((vec!["files"], "local_file.foo")),
            ),
            (
                r#"module.net["eu.west"].module.sub[2].aws_subnet.s["10.0.0.0/24"]"#,
                Some((vec!["net", "sub"], "aws_subnet.s")),
            ),
            (r#"aws_x.y["a\"].b"]"#, Some((vec![], "aws_x.y"))),
            (
                "ephemeral.random_password.p",
                Some((vec![], "ephemeral.random_password.p")),
            ),
            (r#"provider["registry.terraform.io/hashicorp/aws"]"#, None),
            ("module.m", None),
            ("aws_x", None),
            ("aws_x.y[0", None),
            ("a.b.c", None),
            ("", None),
        ];
        for (address, want) in cases {
            let want = want
                .map(|(calls, r)| (calls.into_iter().map(String::from).collect(), r.to_string()));
            assert_eq!(split(address), want, "{address}");
        }
    }

    #[test]
    fn splits_segments_outside_keys_and_strings() {
        let cases: Vec<(&str, Vec<&str>, bool)> = vec![
            (r#"a.b["x.y"].c"#, vec!["a", r#"b["x.y"]"#, "c"], true),
            (
                "module.m[0].aws_x.y",
                vec!["module", "m[0]", "aws_x", "y"],
                true,
            ),
            (
                r#"module.files.local_file.foo["file1.txt"]"#,
                vec!["module", "files", "local_file", r#"foo["file1.txt"]"#],
                true,
            ),
            (
                r#"aws_x.y["a\"].b"]"#,
                vec!["aws_x", r#"y["a\"].b"]"#],
                true,
            ),
            (
                "var.m[var.k[0].x].y",
                vec!["var", "m[var.k[0].x]", "y"],
                true,
            ),
            ("data.t.n.attr", vec!["data", "t", "n", "attr"], true),
            ("each.value", vec!["each", "value"], true),
            ("var.x", vec!["var", "x"], true),
            ("", vec![""], true),
            ("aws_x.y[0", vec!["aws_x", "y[0"], false),
            ("a]b.c", vec!["a]b", "c"], false),
            (r#"a["x.y"#, vec![r#"a["x.y"#], false),
        ];
        for (text, segments, balanced) in cases {
            assert_eq!(
                split_segments(text),
                AddressSegments { segments, balanced },
                "{text}"
            );
        }
    }

    #[test]
    fn strips_instance_keys() {
        assert_eq!(strip_key(r#"foo["a.b"]"#), "foo");
        assert_eq!(strip_key("m[0]"), "m");
        assert_eq!(strip_key("plain"), "plain");
    }
}
