//! Payload of a `run` job: one command over an ordered list of roots of one PR.

use serde::{Deserialize, Serialize};

use super::event::RepoRef;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunJob {
    pub repo: RepoRef,
    pub number: i64,
    /// `plan` or `apply`.
    pub command: String,
    /// Project names, in dependency order.
    pub projects: Vec<String>,
    /// Who asked (becomes the STS SourceIdentity).
    pub actor: String,
    /// Allowlisted Terraform flags (`-target=…`), plan only.
    #[serde(default)]
    pub terraform_args: Vec<String>,
    #[serde(default)]
    pub accept_inputs: Vec<String>,
}
