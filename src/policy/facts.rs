//! The inputs of a decision: the command, who wrote it, what it targets, and facts about
//! the PR gathered from GitHub by the caller.

use super::schema::GitHubPermission;
use crate::project::{ModuleGraph, PrChanges};
use serde::{Deserialize, Serialize};

/// The commands policy knows about (the command parser's enum maps onto this).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PolicyCommand {
    Plan,
    Apply,
    /// Release a project's lock.
    Unlock,
    /// Cancel a queued or running job.
    Cancel,
    /// Acknowledge shared-input drift (`on_input_drift: confirm`).
    Inputs,
}

impl PolicyCommand {
    pub fn name(self) -> &'static str {
        match self {
            PolicyCommand::Plan => "plan",
            PolicyCommand::Apply => "apply",
            PolicyCommand::Unlock => "unlock",
            PolicyCommand::Cancel => "cancel",
            PolicyCommand::Inputs => "inputs",
        }
    }

    /// Parses a command name as the CLI takes it (`plan`, `apply`, `unlock`, `cancel`, `inputs`).
    pub fn parse(name: &str) -> Option<Self> {
        [
            Self::Plan,
            Self::Apply,
            Self::Unlock,
            Self::Cancel,
            Self::Inputs,
        ]
        .into_iter()
        .find(|c| c.name().eq_ignore_ascii_case(name.trim()))
    }

    /// Whether the apply side of `permissions` governs this command.
    pub fn needs_apply_permission(self) -> bool {
        matches!(self, PolicyCommand::Apply | PolicyCommand::Inputs)
    }

    pub(crate) fn allow_rule(self) -> &'static str {
        match self {
            PolicyCommand::Plan => "plan.allowed",
            PolicyCommand::Apply => "apply.allowed",
            PolicyCommand::Unlock => "unlock.allowed",
            PolicyCommand::Cancel => "cancel.allowed",
            PolicyCommand::Inputs => "inputs.allowed",
        }
    }
}

/// Who wrote the command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Actor {
    pub login: String,
    /// Their permission on the repository.
    pub permission: GitHubPermission,
    /// Team slugs (of the repository owner's organisation) they belong to.
    #[serde(default)]
    pub teams: Vec<String>,
    #[serde(default)]
    pub is_bot: bool,
}

/// What a command names: a project, or a dir (+ workspace, default `default`). Both `None`
/// is allowed only for unlock/cancel/inputs (whole PR); the caller expands a bare `/plan`
/// or `/apply` into one target per affected project.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    pub project: Option<String>,
    pub dir: Option<String>,
    pub workspace: Option<String>,
}

impl Target {
    pub fn project(name: &str) -> Self {
        Target {
            project: Some(name.to_string()),
            ..Target::default()
        }
    }

    pub fn dir(dir: &str) -> Self {
        Target {
            dir: Some(dir.to_string()),
            ..Target::default()
        }
    }

    pub(crate) fn describe(&self) -> String {
        match (&self.project, &self.dir, &self.workspace) {
            (Some(p), _, _) => p.clone(),
            (None, Some(d), Some(w)) => format!("{d} (workspace {w})"),
            (None, Some(d), None) => d.clone(),
            _ => "this pull request".to_string(),
        }
    }
}

/// Facts about the PR, gathered by the caller from GitHub right before deciding.
/// Deserialises from JSON (`tfgate policy explain --pr-facts FILE`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrFacts {
    pub number: u64,
    pub author: String,
    /// The current head commit (re-read right before an apply).
    pub head_sha: String,
    pub base_ref: String,
    /// The commit the PR's base branch is at (module calls are read there).
    #[serde(default)]
    pub base_sha: String,
    /// The repository's default branch (always known from GitHub; empty in hand-written
    /// facts means unknown).
    #[serde(default)]
    pub default_branch: String,
    /// Whether the PR is open, closed or merged.
    #[serde(default)]
    pub state: PrState,
    #[serde(default)]
    pub is_fork: bool,
    /// `None`: GitHub has not computed it yet.
    #[serde(default)]
    pub mergeable: Option<bool>,
    /// Whether the head contains the base branch's latest commit; `None`: unknown.
    #[serde(default)]
    pub up_to_date: Option<bool>,
    /// Reviews in chronological order (as GitHub lists them).
    #[serde(default)]
    pub reviews: Vec<Review>,
    /// Logins of the authors and committers of the PR's commits since the base: none of
    /// them can approve it.
    #[serde(default)]
    pub commit_authors: Vec<String>,
    /// How many of the PR's commits name no GitHub user as author or committer: while any
    /// does, no approval counts.
    #[serde(default)]
    pub commits_without_login: u32,
    /// How many of the PR's commits GitHub did not list (it lists at most 250): while any is
    /// unlisted, no approval counts.
    #[serde(default)]
    pub commits_unlisted: u64,
    /// Logins that moved the PR's head (pushed to it, opened or reopened it), as tfgate
    /// recorded them from `pull_request` deliveries: none of them can approve it.
    #[serde(default)]
    pub pushers: Vec<String>,
    /// Whether tfgate recorded who pushed the current head; when not, no approval counts.
    #[serde(default)]
    pub head_pusher_known: bool,
    /// Whether tfgate's records lead from the current head back to the PR's opening (or
    /// reopening) without a push it did not receive; when not, no approval counts.
    #[serde(default)]
    pub pushes_complete: bool,
    /// The latest check run per name on the head commit.
    #[serde(default)]
    pub check_runs: Vec<CheckRun>,
    /// Repo-relative paths changed by the PR.
    #[serde(default)]
    pub changed_files: Vec<String>,
    /// Whether the command comes from an edited comment.
    #[serde(default)]
    pub comment_edited: bool,
    /// Local module calls of the base commit (dir → module dirs).
    #[serde(default)]
    pub module_calls: ModuleGraph,
    /// Shared inputs whose `tfgate.inputs.lock` line the PR adds, removes or changes.
    #[serde(default)]
    pub changed_inputs: Vec<String>,
}

impl PrFacts {
    /// A fresh PR #1 opened by someone else against `main` (tfgate saw it opened), with no
    /// reviews or checks: what `policy explain` assumes when it is given no facts.
    pub fn hypothetical() -> PrFacts {
        PrFacts {
            number: 1,
            author: "someone-else".into(),
            head_sha: "0".repeat(40),
            base_ref: "main".into(),
            default_branch: "main".into(),
            pushers: vec!["someone-else".into()],
            head_pusher_known: true,
            pushes_complete: true,
            ..Default::default()
        }
    }

    /// What the PR changes, for choosing the roots it affects.
    pub fn changes(&self) -> PrChanges<'_> {
        PrChanges {
            files: &self.changed_files,
            module_calls: &self.module_calls,
            inputs: &self.changed_inputs,
        }
    }
}

/// Whether the PR can still change: commands run on open PRs only.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PrState {
    #[default]
    Open,
    Closed,
    Merged,
}

/// One PR review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Review {
    pub user: String,
    pub state: ReviewState,
    /// The commit the review was made on.
    pub commit_id: String,
    /// The reviewer's permission on the repository.
    pub user_permission: GitHubPermission,
    #[serde(default)]
    pub user_is_bot: bool,
}

/// GitHub's review states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ReviewState {
    Approved,
    ChangesRequested,
    Dismissed,
    Commented,
    Pending,
}

/// A check run (or commit status) on the head commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckRun {
    pub name: String,
    /// `success`, `failure`, `neutral`, `skipped`, … ; `None` while running.
    #[serde(default)]
    pub conclusion: Option<String>,
    /// When given and not the PR head, the run is ignored.
    #[serde(default)]
    pub head_sha: Option<String>,
    /// The slug of the GitHub App that produced the run (`github-actions`, …).
    #[serde(default)]
    pub app: Option<String>,
}
