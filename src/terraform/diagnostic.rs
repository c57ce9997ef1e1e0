//! Terraform diagnostics (`diagnostic` UI messages; also used by outcomes).

use serde::{Deserialize, Serialize};

/// `diagnostic.severity`. Unknown values are kept as `Unknown` rather than failing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Error,
    Warning,
    /// Unknown or missing severity (treated as a warning by the outcomes).
    #[default]
    #[serde(other)]
    Unknown,
}

/// A Terraform diagnostic. `summary`/`detail` are raw provider/Terraform text: never post them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Diagnostic {
    #[serde(default)]
    pub severity: Severity,
    #[serde(default)]
    pub summary: String,
    #[serde(default)]
    pub detail: String,
    /// Absolute resource instance address (or `provider["…"]`) for contextual diagnostics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<SourceRange>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snippet: Option<Snippet>,
}

impl Diagnostic {
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    pub fn is_warning(&self) -> bool {
        self.severity == Severity::Warning
    }
}

/// Source range; `filename` is relative to the working directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceRange {
    #[serde(default)]
    pub filename: String,
    #[serde(default)]
    pub start: SourcePos,
    #[serde(default)]
    pub end: SourcePos,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourcePos {
    #[serde(default)]
    pub line: u64,
    #[serde(default)]
    pub column: u64,
    #[serde(default)]
    pub byte: u64,
}

/// Source excerpt around the diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snippet {
    /// Enclosing block header, e.g. `resource "null_resource" "foo"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    #[serde(default)]
    pub code: String,
    #[serde(default)]
    pub start_line: u64,
    #[serde(default)]
    pub highlight_start_offset: u64,
    #[serde(default)]
    pub highlight_end_offset: u64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<SnippetValue>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function_call: Option<FunctionCall>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnippetValue {
    #[serde(default)]
    pub traversal: String,
    #[serde(default)]
    pub statement: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionCall {
    #[serde(default)]
    pub called_as: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_minimal_warning() {
        let d: Diagnostic =
            serde_json::from_str(r#"{"severity":"warning","summary":"s","detail":"d"}"#).unwrap();
        assert!(d.is_warning());
        assert_eq!((d.summary.as_str(), d.detail.as_str()), ("s", "d"));
        assert!(d.address.is_none() && d.range.is_none() && d.snippet.is_none());
    }

    #[test]
    fn unknown_severity_and_keys_are_tolerated() {
        let d: Diagnostic = serde_json::from_str(
            r#"{"severity":"fatal","summary":"x","new_key":{"a":1},
               "snippet":{"code":"a","start_line":3,"function_call":{"called_as":"f","signature":{}}}}"#,
        )
        .unwrap();
        assert_eq!(d.severity, Severity::Unknown);
        let no_severity: Diagnostic = serde_json::from_str(r#"{"summary":"x"}"#).unwrap();
        assert_eq!(no_severity.severity, Severity::Unknown);
        let snippet = d.snippet.unwrap();
        assert_eq!(snippet.start_line, 3);
        assert_eq!(snippet.function_call.unwrap().called_as, "f");
    }
}
