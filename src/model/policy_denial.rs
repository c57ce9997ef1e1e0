//! Why the policy refused a command, as data: `policy::decide` returns it, the audit log keeps
//! its rule, and `templates/_policy_denial.md.j2` words it for the PR. Logins, names and
//! branches are the same values the PR already shows; permissions are their lowercase names.

use serde::{Deserialize, Serialize};

/// One refusal, with what the reply names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PolicyDenial {
    /// The command comes from an edited comment.
    CommentEdited,
    /// The commenter is a bot account.
    Bot,
    /// The PR is closed or merged.
    PrClosed,
    /// The PR's base branch is not one commands run on.
    BaseBranch {
        base: String,
        /// The `base_branches` globs; empty: only the default branch.
        allowed: Vec<String>,
        default_branch: String,
    },
    /// The PR comes from a fork and the policy does not allow forks.
    Fork,
    /// `/plan` or `/apply` named no project or dir.
    TargetUnspecified { verb: String },
    /// The dir matches the policy's `exclude`.
    TargetExcluded { dir: String },
    /// No project has that name or dir and workspace.
    TargetUnknown {
        /// The target as the comment named it.
        target: String,
        /// The first ten known project names.
        known: Vec<String>,
        /// More than ten projects are known.
        more: bool,
    },
    /// The root has `comment_apply: false`.
    CommentApplyDisabled { project: String },
    /// The commenter's permission is below the rule's `min_permission`.
    BelowMinimum {
        login: String,
        verb: String,
        project: Option<String>,
        needed: String,
        has: String,
    },
    /// `users`/`teams` are set and the commenter is in neither.
    NotListed {
        login: String,
        verb: String,
        project: Option<String>,
        users: Vec<String>,
        teams: Vec<String>,
    },
    /// `/apply` of a root the PR does not affect.
    TargetNotInPr { project: String },
    /// `/apply` with unmet `apply_requirements`, every unmet one in the policy's fixed order.
    RequirementsUnmet {
        project: String,
        unmet: Vec<UnmetRequirement>,
    },
    /// `/ack-deploy` on a repository whose policy names no `gitops` folder.
    AckDeployNoFolders,
    /// `/ack-deploy` by someone below `acknowledge_min_permission`.
    AckDeployPermission { needed: String, has: String },
}

/// An apply requirement that is not met; the tag is the requirement's name in the policy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "requirement", rename_all = "snake_case")]
pub enum UnmetRequirement {
    Approved {
        problem: ApprovalProblem,
    },
    /// `known: false`: GitHub has not computed mergeability yet.
    Mergeable {
        base: String,
        known: bool,
    },
    /// `known: false`: unknown whether the branch contains the latest base.
    UpToDate {
        base: String,
        known: bool,
    },
    ChecksPassed {
        checks: Vec<CheckProblem>,
    },
}

/// Why the `approved` requirement is unmet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ApprovalProblem {
    /// tfgate did not see who pushed the head (short SHA), so no approval counts.
    HeadPusherUnknown { head: String },
    /// tfgate missed a push before the head (short SHA), so no approval counts.
    PushesIncomplete { head: String },
    /// GitHub lists at most 250 commits; `count` more were not listed.
    CommitsUnlisted { count: u64 },
    /// `count` commits name no GitHub user as author or committer.
    CommitsWithoutLogin { count: u64 },
    /// Fewer than `need` approvals count on the head (short SHA).
    TooFew {
        need: usize,
        head: String,
        counted: usize,
        not_counted: Vec<NotCounted>,
    },
}

/// A reviewer whose approval does not count, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotCounted {
    pub login: String,
    pub why: NotCountedWhy,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NotCountedWhy {
    LaterRequestedChanges,
    Dismissed,
    Bot,
    Author,
    Pushed,
    Committed,
    /// Below write permission.
    Permission {
        has: String,
    },
    /// Approved another commit (short SHA).
    OlderCommit {
        commit: String,
    },
}

/// A required check that does not pass on the head.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CheckProblem {
    /// No run of it (from `app`, when the policy names one) on the head.
    NotRun {
        name: String,
        app: Option<String>,
    },
    Running {
        name: String,
    },
    Concluded {
        name: String,
        conclusion: String,
    },
}
