//! What the scheduled drift report issue says, as data; `templates/drift_report.md.j2` words
//! it (`render::texts`). Every string has passed the caller's redactor.

use serde::Serialize;

/// The body of the drift report issue of one repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DriftReportText {
    /// The hidden marker the issue is found by (shown first, unchanged).
    pub marker: String,
    pub title: String,
    pub branch: String,
    pub commit_short: String,
    /// RFC 3339, UTC.
    pub checked_at: String,
    /// One summary row per root.
    pub rows: Vec<DriftRootRow>,
    /// One section per root with findings.
    pub sections: Vec<DriftRootSection>,
    /// Every root is in sync: the issue is being closed.
    pub closed: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DriftRootRow {
    pub project: String,
    pub dir: String,
    pub status: DriftRootStatus,
}

/// A root's line in the summary table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DriftRootStatus {
    Checked {
        outside: usize,
        next: usize,
        inputs: usize,
        drift: bool,
    },
    LockedBy {
        pr: i64,
    },
    Busy,
    /// `reason`: one line, safe in a table cell.
    Failed {
        reason: String,
    },
}

/// The findings of one drifted root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DriftRootSection {
    pub project: String,
    pub outside_terraform: Vec<DriftFindingText>,
    pub next_apply: Vec<DriftFindingText>,
    /// Names only.
    pub inputs_moved: Vec<String>,
}

/// One resource: its address, the action, its attribute changes and who changed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DriftFindingText {
    pub address: String,
    pub action: String,
    pub attributes: Vec<DriftAttributeChange>,
    /// Who changed it outside Terraform (resources changed outside Terraform, when the
    /// policy gives a CloudTrail read role).
    pub who: Option<WhoChangedText>,
}

/// What the CloudTrail look-up of one resource found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WhoChangedText {
    /// The change: its principal, its API call, and when (RFC 3339, UTC).
    Found {
        principal: PrincipalText,
        event_name: String,
        time: String,
    },
    NotFound,
    /// CloudTrail could not be read.
    Unavailable,
    /// Not looked up: only the first `limit` resources of a root are.
    NotLookedUp {
        limit: usize,
    },
}

/// Who made the change, as far as it may be shown (names redacted, or left out).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PrincipalText {
    AssumedRole {
        session: String,
    },
    /// `name`: `None` when the policy does not allow naming people.
    IamUser {
        name: Option<String>,
    },
    FederatedUser {
        name: Option<String>,
    },
    Root,
    AwsService {
        service: String,
    },
    /// Any other `userIdentity.type`.
    Other {
        identity_type: String,
    },
}

/// One attribute of a resource: `path: before → after`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DriftAttributeChange {
    pub path: String,
    pub before: DriftValue,
    pub after: DriftValue,
}

/// One side of an attribute change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DriftValue {
    Sensitive,
    /// No value (`null`, or the resource does not exist on that side).
    Absent,
    /// Known only after apply.
    Unknown,
    /// The value, redacted and cut (ending in `…` when cut).
    Shown {
        text: String,
    },
}
