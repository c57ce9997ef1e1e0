//! The minimal description of a project that the project functions work on.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A project's name: unique within a repository, used in `depends_on` and `-p`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ProjectId(pub String);

impl ProjectId {
    pub fn new(name: impl Into<String>) -> Self {
        ProjectId(name.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The name a project gets when none is given: its dir, plus `:workspace` when the
    /// workspace is not `default`.
    pub fn derived(dir: &str, workspace: &str) -> Self {
        if workspace == "default" {
            ProjectId(dir.to_string())
        } else {
            ProjectId(format!("{dir}:{workspace}"))
        }
    }
}

impl fmt::Display for ProjectId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One Terraform root as far as selection and ordering are concerned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProjectSpec {
    /// Unique name.
    pub id: ProjectId,
    /// Repo-relative directory, normalised (`.` for the repository root).
    pub dir: String,
    /// Terraform workspace.
    pub workspace: String,
    /// Projects that must be applied before this one when both are selected.
    pub depends_on: Vec<ProjectId>,
    /// Globs relative to `dir` whose changes affect this project; empty means
    /// [`crate::project::DEFAULT_WHEN_MODIFIED`].
    pub when_modified: Vec<String>,
    /// Shared inputs the project consumes: a PR changing their line in `tfgate.inputs.lock`
    /// affects it.
    pub inputs: Vec<String>,
}

impl ProjectSpec {
    /// A spec with workspace `default`, no dependencies and default `when_modified`.
    pub fn simple(name: &str, dir: &str) -> Self {
        ProjectSpec {
            id: ProjectId::new(name),
            dir: dir.to_string(),
            workspace: "default".to_string(),
            depends_on: Vec::new(),
            when_modified: Vec::new(),
            inputs: Vec::new(),
        }
    }
}
