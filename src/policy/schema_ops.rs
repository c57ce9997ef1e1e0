//! Policy-file keys for operating tfgate rather than running Terraform: scheduled drift
//! detection and who administers the repositories in the web UI.

use serde::{Deserialize, Serialize};

/// `drift_detection: {schedule: "0 6 * * *", projects: [eks], report: issue}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DriftDetectionSpec {
    /// When: cron syntax, five fields, UTC.
    pub schedule: String,
    /// The projects checked (names). Default: every project of the file.
    #[serde(default)]
    pub projects: Option<Vec<String>>,
    /// Where findings go: `issue` (one issue per repository, updated in place).
    #[serde(default)]
    pub report: Option<String>,
    /// Name IAM users (and federated users) who changed a resource outside Terraform. Off by
    /// default: the report then gives their type only. Role sessions are always named.
    #[serde(default)]
    pub show_principals: Option<bool>,
}

/// `admins: {users: [alice], teams: [acme/platform]}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AdminsSpec {
    /// GitHub logins.
    #[serde(default)]
    pub users: Vec<String>,
    /// Teams as `org/team-slug`.
    #[serde(default)]
    pub teams: Vec<String>,
}

/// One entry of `plan_policies:`: `{name: baseline, path: plan, enforcement: deny, owners:
/// {teams: [acme/security]}}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PlanPolicySpec {
    /// The set's name (`/approve-policies --set NAME`, the plan comment).
    pub name: String,
    /// A directory of `.rego` files, relative to this file's directory (read from the server's
    /// policy directory or the admin repository, never from a PR).
    pub path: String,
    /// Project names (globs) the set applies to. Default: every project.
    #[serde(default)]
    pub projects: Vec<String>,
    /// `deny` (failures block `/apply` until an owner approves) or `warn` (shown only).
    /// Default `deny`.
    #[serde(default)]
    pub enforcement: crate::model::Enforcement,
    /// Who may `/approve-policies` the set's failures. Default: nobody (only a fixed plan or
    /// policy unblocks the apply).
    #[serde(default)]
    pub owners: PlanPolicyOwnersSpec,
    /// Rego packages whose rules count beside `main` (conftest's `--namespace`).
    #[serde(default)]
    pub namespaces: Vec<String>,
}

/// `owners: {users: [alice], teams: [acme/security]}` of a plan policy set.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PlanPolicyOwnersSpec {
    /// GitHub logins.
    #[serde(default)]
    pub users: Vec<String>,
    /// Teams as `org/team-slug`.
    #[serde(default)]
    pub teams: Vec<String>,
}
