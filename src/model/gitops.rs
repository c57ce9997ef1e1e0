//! Which GitOps tool watches a folder (read from the policy; `gitops` finds its objects).

use serde::Serialize;

/// Which tool watches a folder (policy `gitops[].kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Tool {
    Argocd,
    Flux,
}

impl Tool {
    pub fn parse(text: &str) -> Option<Tool> {
        match text {
            "argocd" => Some(Tool::Argocd),
            "flux" => Some(Tool::Flux),
            _ => None,
        }
    }
}
