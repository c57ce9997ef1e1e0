//! A plan change traced to a shared input (shared-input drift), as the plan comment shows it.

use serde::{Deserialize, Serialize};

/// A change that no file in the PR explains, traced to a shared input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriftWarning {
    pub address: String,
    pub attribute_paths: Vec<String>,
    pub input_name: String,
    /// Short fingerprints (not values) of the input at the last apply and now.
    pub fingerprint_before: String,
    pub fingerprint_after: String,
    /// A file of this PR that explains the change, if one does.
    pub explained_by: Option<String>,
    /// Drift the PR also touches: a file of this PR that edits the resource's expressions (or
    /// what they refer to). The shared input's part of the change is still unreviewed.
    #[serde(default)]
    pub also_edited_in: Option<String>,
    /// The attribute paths that file sets (empty: it declares the resource).
    #[serde(default)]
    pub also_sets: Vec<String>,
}
