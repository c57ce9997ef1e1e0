//! Attribute paths inside a resource value (`replace_paths`, `relevant_attributes`, diffs).

use serde::{Deserialize, Serialize};

/// One step of an attribute path: an object key / map key, or a list/set position.
/// Serialized as in Terraform's JSON: a string or a non-negative integer.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PathStep {
    Index(u64),
    Key(String),
}

/// Renders a path the way Terraform users read it: `tags["Name"]`, `list[0].string`.
pub fn display_path(path: &[PathStep]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            PathStep::Index(i) => {
                out.push('[');
                out.push_str(&i.to_string());
                out.push(']');
            }
            PathStep::Key(key) if is_identifier(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            PathStep::Key(key) => {
                out.push('[');
                // serde_json string escaping gives a quoted, escaped key.
                out.push_str(&serde_json::Value::String(key.clone()).to_string());
                out.push(']');
            }
        }
    }
    out
}

fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(k: &str) -> PathStep {
        PathStep::Key(k.to_string())
    }

    #[test]
    fn deserializes_mixed_steps() {
        let path: Vec<PathStep> = serde_json::from_str(r#"["list", 0, "string"]"#).unwrap();
        assert_eq!(path, vec![key("list"), PathStep::Index(0), key("string")]);
    }

    #[test]
    fn displays_paths() {
        let cases: Vec<(Vec<PathStep>, &str)> = vec![
            (vec![key("triggers"), key("foo")], "triggers.foo"),
            (vec![key("tags"), key("Name tag")], r#"tags["Name tag"]"#),
            (
                vec![key("list"), PathStep::Index(2), key("string")],
                "list[2].string",
            ),
            (vec![key("m"), key("a\"b")], r#"m["a\"b"]"#),
            (vec![key("1abc")], r#"["1abc"]"#),
            (vec![], ""),
        ];
        for (path, want) in cases {
            assert_eq!(display_path(&path), want);
        }
    }
}
