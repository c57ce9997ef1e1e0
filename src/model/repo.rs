//! A repository tfgate works in, as jobs name it.

use serde::{Deserialize, Serialize};

/// The repository a job is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepoRef {
    pub installation_id: i64,
    pub owner: String,
    pub name: String,
}

impl RepoRef {
    /// `owner/name`.
    pub fn full_name(&self) -> String {
        format!("{}/{}", self.owner, self.name)
    }
}
