//! Merge is deploy (pure): what a PR changes in the folders ArgoCD or Flux watch. The objects
//! that deploy (ArgoCD `Application`/`ApplicationSet`, Flux `Kustomization`/`HelmRelease`) are
//! collected from the base and head trees (`parse.rs`, following kustomize `resources:` within
//! the repository), compared (`diff.rs`), and shown as a table with what needs a person's
//! acknowledgement before merge (`render.rs`).

pub mod ack;
mod diff;
mod parse;
mod render;

pub use diff::{acknowledgements, compare, diff, Change, DeployDiff};
pub use parse::{collect, ParseProblem};
pub use render::{check_conclusion, deploy_check_text};

use serde::Serialize;

/// Whether a file may hold manifests (`*.yaml`, `*.yml`, kustomize's `Kustomization`).
pub fn is_manifest_file(name: &str) -> bool {
    name.ends_with(".yaml")
        || name.ends_with(".yml")
        || name.rsplit('/').next() == Some("Kustomization")
}

/// What kind of object deploys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Kind {
    Application,
    ApplicationSet,
    FluxKustomization,
    HelmRelease,
}

impl Kind {
    pub fn label(self) -> &'static str {
        match self {
            Kind::Application => "Application",
            Kind::ApplicationSet => "ApplicationSet",
            Kind::FluxKustomization => "Kustomization (Flux)",
            Kind::HelmRelease => "HelmRelease",
        }
    }
}

pub use crate::model::gitops::Tool;

impl Tool {
    /// The kinds this tool deploys with.
    pub fn kinds(self) -> &'static [Kind] {
        match self {
            Tool::Argocd => &[Kind::Application, Kind::ApplicationSet],
            Tool::Flux => &[Kind::FluxKustomization, Kind::HelmRelease],
        }
    }
}

/// One deploying object, with the fields a reviewer must see.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeployObject {
    pub kind: Kind,
    pub name: String,
    pub namespace: String,
    /// Where it is declared: repository path and line.
    pub file: String,
    pub line: usize,
    /// Where its manifests come from (repository, path, revision; or chart and version).
    pub source: String,
    /// Where it deploys (cluster and namespace).
    pub destination: String,
    /// Synced without a person (ArgoCD `automated`; Flux unless `suspend`).
    pub automated: bool,
    /// Deletes what disappears from its source.
    pub prune: bool,
}

impl DeployObject {
    /// The key objects are matched by between base and head.
    pub fn key(&self) -> (Kind, String, String) {
        (self.kind, self.namespace.clone(), self.name.clone())
    }
}

#[cfg(test)]
mod tests;
