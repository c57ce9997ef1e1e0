//! What a check run's text says, as data; templates word it (`render::texts`).

use serde::Serialize;

/// What the `tfgate/policy` check run says of one commit of the admin repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PolicyCheckText {
    /// No YAML file directly in `folder/`.
    NoFiles { folder: String },
    /// Every policy file loads; `applies`: the commit is the default branch's.
    Valid { files: usize, applies: bool },
    /// The problems found (one line each, safe inside a code block).
    Problems { lines: Vec<String>, applies: bool },
}
