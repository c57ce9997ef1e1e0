//! Plans made stale by another PR's apply: the `mark_stale` job's payload and the banner a
//! stale plan comment gets (`templates/plan_stale_banner.md.j2`).

use serde::{Deserialize, Serialize};

use super::RepoRef;

/// Payload of a `mark_stale` job: PR `pr` applied `project` (`workspace`) in run
/// `apply_run_id`; every other open PR's plan of that root made before it is out of date.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MarkStaleJob {
    pub repo: RepoRef,
    pub pr: i64,
    pub project: String,
    pub workspace: String,
    pub apply_run_id: i64,
}

/// The banner put at the top of a stale plan comment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StalePlanBanner {
    pub project: String,
    pub workspace: String,
    /// The PR whose apply changed the root's state.
    pub applied_by_pr: i64,
    /// When that apply started: `YYYY-MM-DD HH:MM UTC`.
    pub applied_at: String,
    /// tfgate plans the root again by itself now (`replan_on_apply`).
    #[serde(default)]
    pub replanning: bool,
    /// tfgate plans the root again once this PR (the applier) releases the root's lock.
    #[serde(default)]
    pub replan_after_release_by: Option<i64>,
}

impl StalePlanBanner {
    /// The hidden marker that makes the banner idempotent: one banner per root per comment.
    pub fn marker(&self) -> String {
        let clean = |s: &str| s.replace(['-', '>', '<', ' '], "_");
        format!(
            "<!-- tfgate:stale:{}:{} -->",
            clean(&self.project),
            clean(&self.workspace)
        )
    }
}
