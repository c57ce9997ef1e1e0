//! View models for tfgate's PR comments and check runs.
//!
//! Every string in these types is ALREADY redacted by the caller (ARNs, account ids, IPs,
//! secrets replaced by stable placeholders). The renderer only escapes for markdown; it
//! never sees provider text.

use serde::{Deserialize, Serialize};

mod drift_warning;
mod enrichment;
mod notes;
mod plan_author;
mod policy_checks;
mod reports;

mod notice_kind;
pub use drift_warning::DriftWarning;
pub use enrichment::EnrichmentView;
pub use notes::{BlockedCount, RunNote, SkipReason, ToolProblem};
pub use notice_kind::notice_kind;
pub use plan_author::{AppliedPlan, PlanAuthorRefused, PlanRefusal};
pub use policy_checks::{
    owner_handles, ApprovalLine, BlockedSet, PlanPolicyCheckRoot, PlanPolicyCheckText,
    PolicyApprovalReport, PolicyBlocked, PolicyCheckView,
};
pub use reports::{CancelReport, CancelledRun, InputRow, InputsReport};

/// Facts shared by every comment: where it goes and which run produced it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommentMeta {
    /// Pull-request number; goes into the hidden marker.
    pub pr: u64,
    /// Key the bot uses to find an older comment of the same kind (e.g. `all`, or
    /// `project/dir/workspace`); goes into the hidden marker as `root=`.
    pub marker_root: String,
    /// tfgate run id; shown in the footer and in the marker.
    pub run_id: String,
    /// Short head SHA the command ran against, when there is one.
    pub head_sha_short: Option<String>,
    /// GitHub login of the person whose comment started the run.
    pub command_by: Option<String>,
    /// Link to the check run holding the full (redacted) output.
    pub check_run_url: Option<String>,
}

/// A source position Terraform reported (for configuration errors and annotations).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceLocation {
    /// Path relative to the repository root.
    pub file: String,
    pub line: u32,
}

/// Advice shown once per failure category present in a root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdviceView {
    pub category_id: String,
    pub label: String,
    pub advice: String,
}

// ---------------------------------------------------------------- plan

/// The comment posted after `/plan` (or an automatic plan).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanComment {
    pub meta: CommentMeta,
    pub repo_root_summaries: Vec<RootPlan>,
    /// Changes no diff explains, traced to shared inputs. Rendered above everything else.
    pub drift_warnings: Vec<DriftWarning>,
    /// Policy denials that apply to this plan (e.g. a root that can never be applied by comment).
    pub denials: Vec<String>,
    /// Other notes for the reader (one line each, after the roots).
    pub notes: Vec<RunNote>,
    /// Roots of a split `/plan` still being planned: the comment is updated as each finishes.
    #[serde(default)]
    pub still_planning: Vec<PlanningRoot>,
}

/// A root whose plan has not finished yet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanningRoot {
    pub project: String,
    pub dir: String,
    pub workspace: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanStatus {
    Changes,
    NoChanges,
    Failed,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanCounts {
    pub add: u32,
    pub change: u32,
    pub destroy: u32,
    pub replace: u32,
    pub read: u32,
}

/// One Terraform root (project + dir + workspace) in a plan comment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RootPlan {
    pub project: String,
    pub dir: String,
    pub workspace: String,
    pub status: PlanStatus,
    pub counts: PlanCounts,
    /// Terraform warnings (already redacted, one line each).
    pub warnings: Vec<String>,
    pub resources: Vec<PlannedResourceView>,
    /// Failures that stopped the plan. Never shortened.
    pub errors: Vec<FailureRow>,
    /// Advice once per failure category present in `errors`.
    pub advice: Vec<AdviceView>,
    /// Permission failures of the plan role whose denied action is known: as an apply's.
    #[serde(default)]
    pub denials: Vec<EnrichmentView>,
    /// CloudTrail lookup of a plan-time denial still running.
    #[serde(default)]
    pub pending_enrichment: bool,
    /// What the plan policy sets found (issue 42), in the policy's order.
    #[serde(default)]
    pub policy_checks: Vec<PolicyCheckView>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannedResourceView {
    pub address: String,
    /// `create`, `update`, `delete`, `replace`, `read`, …
    pub action: String,
    /// Terraform's `action_reason`, e.g. `replace_because_tainted`.
    pub action_reason: Option<String>,
    pub attributes: Vec<AttrView>,
    /// Changed attributes left out before rendering (beyond the plan's attribute budget,
    /// `terraform::ATTRIBUTE_BUDGET`): counted, never shown.
    #[serde(default)]
    pub omitted_attributes: usize,
}

/// One changed attribute. `before`/`after` are redacted values; `None` means absent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttrView {
    pub path: String,
    pub before: Option<String>,
    pub after: Option<String>,
    /// Show "(sensitive)" instead of values.
    pub sensitive: bool,
    /// The new value is "(known after apply)".
    pub unknown: bool,
}

/// A failure row in a plan (configuration errors, provider errors during refresh).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureRow {
    pub address: Option<String>,
    pub aws_code: Option<String>,
    pub category_id: String,
    pub category_label: String,
    pub iam_action: Option<String>,
    pub location: Option<SourceLocation>,
}

// ---------------------------------------------------------------- apply

/// The comment posted after `/apply`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApplyComment {
    pub meta: CommentMeta,
    pub roots: Vec<RootApply>,
    pub notes: Vec<RunNote>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ApplyStatus {
    Succeeded,
    PartiallyFailed,
    Failed,
    Interrupted,
    Skipped { reason: SkipReason },
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApplyCounts {
    pub done: u32,
    pub failed: u32,
    pub not_reached: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RootApply {
    pub project: String,
    pub dir: String,
    pub workspace: String,
    pub status: ApplyStatus,
    pub counts: ApplyCounts,
    pub rows: Vec<ApplyRow>,
    /// Once per category present in `rows`.
    pub advice: Vec<AdviceView>,
    pub config_errors: Vec<ConfigErrorView>,
    /// CloudTrail lookup still running: shows "confirming with CloudTrail…".
    pub pending_enrichment: bool,
    /// Permission failures whose denied action is known: action, deny kind, redacted resource
    /// and the minimal statement an admin could add.
    #[serde(default)]
    pub denials: Vec<EnrichmentView>,
    /// The plan run applied (none for a root skipped before its plan was chosen).
    #[serde(default)]
    pub plan: Option<AppliedPlan>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApplyResult {
    Done,
    Failed,
    NotReached,
    Interrupted,
}

impl ApplyResult {
    /// Failed and interrupted rows are never shortened away.
    pub fn is_essential(self) -> bool {
        matches!(self, ApplyResult::Failed | ApplyResult::Interrupted)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApplyRow {
    pub address: String,
    pub action: String,
    pub result: ApplyResult,
    pub aws_code: Option<String>,
    pub category_id: Option<String>,
    pub category_label: Option<String>,
    pub iam_action: Option<String>,
    pub deny_kind_label: Option<String>,
    /// Where the resource is declared, when known (used for check-run annotations).
    pub location: Option<SourceLocation>,
    /// A possible propagation delay: the resource created earlier in this apply that this one
    /// refers to.
    #[serde(default)]
    pub fresh_cause: Option<FreshCauseView>,
}

/// "refers to `aws_iam_role.lambda`, created 4 s earlier in this apply".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FreshCauseView {
    /// Redacted address.
    pub address: String,
    /// Whole seconds between its creation and the failure, when the stream had timestamps.
    pub seconds_earlier: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigErrorView {
    pub file: String,
    pub line: u32,
    /// Category label (e.g. "configuration error"); never Terraform's raw text.
    pub summary_category: String,
}

// ---------------------------------------------------------------- small messages

/// The state lock of a root is held by another PR.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockHeld {
    pub project: String,
    pub dir: String,
    pub workspace: String,
    pub holder_pr: u64,
    pub holder_url: String,
}

/// The PR head moved since the plan: apply refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanStale {
    pub planned_sha_short: Option<String>,
    pub head_sha_short: Option<String>,
}

/// A run stopped before Terraform finished (timeout, worker lost).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunInterrupted {
    pub project: String,
    pub dir: String,
    pub workspace: String,
    /// Addresses the JSON stream showed as completed before the interruption.
    pub completed: Vec<String>,
}

/// One short message without a per-resource body. Each variant has its own template.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NoticeBody {
    LockHeld(LockHeld),
    PlanStale(PlanStale),
    CommandRejected {
        reason: String,
    },
    PolicyDenied {
        /// Worded by `_policy_denial.md.j2`.
        denial: crate::model::PolicyDenial,
        rule: String,
    },
    NotEnabled {
        /// How an admin enables tfgate on this repository (markdown-escaped when shown).
        how_to_enable: String,
    },
    Interrupted(RunInterrupted),
    /// Help text produced by tfgate itself (trusted markdown, inserted verbatim).
    Help {
        markdown: String,
    },
    /// Generic line plus the run id; never any detail.
    InternalError,
    /// `/unlock`: how many locks of this pull request were released.
    LocksReleased {
        released: u64,
        /// Locks of roots with a running plan or apply: released when that run ends.
        #[serde(default)]
        kept_until_run_ends: u64,
    },
    /// `/cancel`: what was cancelled, or that nothing was queued.
    CancelReport(CancelReport),
    /// `/inputs`: each shared input's live fingerprint and the lock-file lines.
    InputsReport(InputsReport),
    /// The base branch's `tfgate.yaml` has problems; its projects are not used.
    LayoutProblems {
        base_ref: String,
        /// One problem per line (`file:line:col: message`).
        problems: Vec<String>,
    },
    /// A command on an issue, not a pull request.
    NotAPullRequest,
    /// A command without `-p`/`-d` on a PR that changes no declared root.
    NoAffectedRoot,
    /// Part of what decides the affected roots could not be read; roots the PR changes
    /// directly still count.
    AffectedRootsIncomplete {
        /// The base commit's local module calls.
        modules_unread: bool,
        /// `tfgate.inputs.lock` at the base or the head.
        inputs_lock_unread: bool,
    },
    /// Projects of a queued command that the policy or layout no longer declares.
    ProjectsGone {
        base_ref: String,
        projects: Vec<String>,
    },
    /// An apply refused because shared inputs drifted (the reply is the drift module's).
    InputDriftRefused {
        project: String,
        /// Worded by `input_drift_refused.md.j2`.
        refusal: crate::model::InputDriftRefusal,
    },
    /// The PR head moved between accepting a command and running it; nothing was run.
    HeadMoved {
        authorised_sha_short: String,
        head_sha_short: String,
        /// `plan` or `apply`.
        command: String,
    },
    /// `/apply` of a plan whose apply was interrupted: refused; a new `/plan` shows what is left.
    ApplyInterrupted {
        project: String,
    },
    /// The PR was merged while roots it affects were not applied (`tfgate/apply`).
    MergedUnapplied {
        roots: Vec<UnappliedRoot>,
    },
    /// The answer to an allowed `/ack-deploy` on the head `head_sha_short`.
    DeployAck {
        result: AckResult,
        head_sha_short: String,
        user: String,
    },
    /// `/apply` of a plan whose last apply failed part-way: refused, since Terraform rejects a
    /// saved plan once the state changed; the root needs `/plan -p PROJECT`.
    PlanSpent {
        project: String,
    },
    /// `/apply` of a plan made with flags that change the apply, by someone the policy does not
    /// let apply the root (or who was not checked): refused; the root needs a new `/plan` by
    /// someone who may apply it.
    PlanAuthorRefused(PlanAuthorRefused),
    /// `/apply` refused: unapproved `deny` plan policy failures (issue 42).
    PolicyBlocked(PolicyBlocked),
    /// The answer to `/approve-policies`.
    PolicyApproval(PolicyApprovalReport),
    /// A command that could not finish; `what` says what failed (never provider text).
    JobFailed {
        what: String,
        /// The failed job, as `tfgate jobs` lists it.
        #[serde(default)]
        job_id: i64,
    },
    /// Another plan or apply of the root is running; nothing was started.
    RootBusy {
        project: String,
        /// `plan` or `apply`: what the running run does.
        command: String,
        run_id: i64,
    },
    /// The commenter's permission is below what any command needs.
    Outsider {
        user: String,
        needed: String,
    },
    /// Lines of a comment not understood beyond those answered one by one.
    MoreRejected {
        more: u64,
    },
    /// The commenter ran the policy's hourly number of commands.
    RateLimited {
        user: String,
        limit: u32,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notice {
    pub meta: CommentMeta,
    pub body: NoticeBody,
}

// ---------------------------------------------------------------- check runs

/// The `output` object of a GitHub check run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckRunText {
    pub title: String,
    pub summary: String,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnnotationLevel {
    Notice,
    Warning,
    Failure,
}

/// A root a merged PR left unapplied, and what it still needed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnappliedRoot {
    pub project: String,
    /// `planned, not applied`, …
    pub left: String,
}

/// One check-run annotation (GitHub accepts at most 50 per request; the caller batches).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnnotationView {
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub level: AnnotationLevel,
    pub title: String,
    pub message: String,
}

/// What an allowed `/ack-deploy` does, given the head's preview conclusion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AckResult {
    /// The check was `action_required`: it is posted again as `success`, acknowledged.
    Acknowledged,
    /// Nothing on this head needs acknowledgement (the check is `success` already).
    NothingToAcknowledge,
    /// The preview fails (YAML does not parse): fix that first; the check stays `failure`.
    PreviewFails,
    /// The head has no `tfgate/deploy` check yet: nobody can have seen what would be accepted.
    NotReady,
    /// The preview recomputed now differs from the one shown (the base branch moved): the new
    /// one is posted, and nothing is acknowledged.
    PreviewChanged,
}
