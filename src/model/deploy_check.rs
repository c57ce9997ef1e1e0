//! What the `tfgate/deploy` check run says, as data; `templates/deploy_check.md.j2` words it
//! (`render::texts`). Every string here is already redacted and safe inside a Markdown table
//! cell (`|` escaped, no newline).

use serde::Serialize;

/// The `tfgate/deploy` check run of one head commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeployCheckText {
    pub body: DeployCheckBody,
    /// Set once a user accepted this preview with `/ack-deploy`.
    pub acknowledged: Option<DeployAcknowledged>,
}

/// What the preview found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DeployCheckBody {
    /// Some YAML does not parse: one line per problem (`file:line: message`).
    Unparsed { problems: Vec<String> },
    /// No object that deploys changes.
    Unchanged,
    /// The table's rows, then what needs acknowledgement before merge.
    Changes {
        rows: Vec<DeployRow>,
        acknowledgements: Vec<String>,
    },
}

/// One row of the deploy table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeployRow {
    pub change: DeployChange,
    pub kind: String,
    pub name: String,
    pub source: String,
    pub destination: String,
    pub automated: bool,
    pub prune: bool,
    pub file: String,
    pub line: usize,
}

/// Which side of a change a row shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DeployChange {
    Added,
    ChangedBefore,
    ChangedAfter,
    Removed,
}

/// Who accepted the preview, for which commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeployAcknowledged {
    pub user: String,
    pub commit_short: String,
}
