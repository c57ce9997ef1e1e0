//! A problem found in a policy or layout file, with its position.

use serde::Serialize;
use std::fmt;

/// One problem in one file. `Display` is `file:line:col: message` (1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct PolicyProblem {
    pub file: String,
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl fmt::Display for PolicyProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.col, self.message
        )
    }
}

impl PolicyProblem {
    /// The problem for a serde_yaml error: its position (1:1 when it has none) and its message
    /// without serde_yaml's trailing " at line L column C".
    pub fn from_yaml_error(file: &str, err: &serde_yaml::Error) -> Self {
        let (line, col) = err
            .location()
            .map(|l| (l.line(), l.column()))
            .unwrap_or((1, 1));
        let text = err.to_string();
        let message = match text.rfind(" at line ") {
            Some(i) if text[i..].contains(" column ") => text[..i].to_string(),
            _ => text,
        };
        PolicyProblem {
            file: file.to_string(),
            line,
            col,
            message,
        }
    }
}
