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

/// What the `tfgate/apply` check run says of a PR's head (`apply_check.md.j2` words it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApplyCheckText {
    pub kind: ApplyCheckKind,
    /// Every affected root, in order.
    pub roots: Vec<ApplyCheckRoot>,
    /// How many roots are left.
    pub left: usize,
}

/// Which of the four outcomes the check has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ApplyCheckKind {
    /// The affected roots could not all be found (a module graph or the inputs lock unread).
    Incomplete,
    /// The PR affects no root.
    NoRoot,
    /// Every affected root is applied or unchanged.
    Done,
    /// Some roots are left.
    Left,
}

/// One affected root: its name (safe inside a code span: no backtick) and, when left, why
/// (`planned, not applied`, …).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApplyCheckRoot {
    pub project: String,
    pub left: Option<String>,
}
