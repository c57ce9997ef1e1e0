//! Collecting problems, each located at a YAML node.

use super::locate::{locate, locate_key, Seg};
use super::problem::PolicyProblem;

/// Collects problems for one file.
pub(crate) struct Checker<'a> {
    pub file: &'a str,
    pub source: &'a str,
    pub problems: Vec<PolicyProblem>,
}

impl<'a> Checker<'a> {
    pub fn new(file: &'a str, source: &'a str) -> Self {
        Checker {
            file,
            source,
            problems: Vec::new(),
        }
    }

    /// A problem at the node `path`.
    pub fn at(&mut self, path: &[Seg], message: impl Into<String>) {
        let (line, col) = locate(self.source, path);
        self.push(line, col, message.into());
    }

    /// A problem at the key `name` of the mapping at `path` (falls back to the mapping).
    pub fn at_key(&mut self, path: &[Seg], name: &str, message: impl Into<String>) {
        let (line, col) =
            locate_key(self.source, path, name).unwrap_or_else(|| locate(self.source, path));
        self.push(line, col, message.into());
    }

    fn push(&mut self, line: usize, col: usize, message: String) {
        self.problems.push(PolicyProblem {
            file: self.file.to_string(),
            line,
            col,
            message,
        });
    }

    /// Runs `check` and records its error at `path`; returns the checked value.
    pub fn check<T>(&mut self, path: &[Seg], result: Result<T, String>) -> Option<T> {
        match result {
            Ok(v) => Some(v),
            Err(message) => {
                self.at(path, message);
                None
            }
        }
    }
}
