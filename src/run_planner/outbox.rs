//! The outbox's decisions: what a finished run job leaves to publish, and how a publish that
//! may have half happened before (a create that timed out but succeeded) goes on without
//! posting anything twice. Pure; `worker/publish` reads GitHub and carries the steps out.

use serde::{Deserialize, Serialize};

use crate::enrich::PendingFailure;
use crate::model::marker::parse_marker;
use crate::model::marker::CommentKind;
use crate::model::view::notice_kind;
use crate::model::view::ApplyComment;
use crate::model::view::ApplyStatus;
use crate::model::view::Notice;
use crate::model::view::PlanComment;
use crate::model::view::PlanStatus;

/// What a stored run result (or notice) is sealed for (the AAD of its sealing).
pub const PUBLICATION_AAD: &str = "publication";

/// The `command` of a publication that is a notice, not a run's result.
pub const NOTICE_COMMAND: &str = "notice";

/// The outbox key of a notice a job raises: its kind and marker slot (root, run). A job raises
/// one notice of a kind per slot, so a retried job that raises it again records nothing new.
pub fn notice_key(notice: &Notice) -> String {
    let kind = notice_kind(&notice.body).as_str();
    format!("{kind}:{}:{}", notice.meta.marker_root, notice.meta.run_id)
}

/// The hidden post id a publication's comment is posted with, from its sealed text (sealing
/// takes a fresh nonce, so it is unique to the row even across databases): a retry of the
/// publish job finds the comment by it instead of posting it again.
pub fn publication_post_id(sealed: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = hex::encode(Sha256::digest(sealed.as_bytes()));
    format!("pub-{}", &digest[..24])
}

/// A notice stored in the outbox.
pub fn open_sealed_notice(key: &crate::crypto::SealKey, sealed: &str) -> anyhow::Result<Notice> {
    let plain = crate::crypto::open_job_payload(key, PUBLICATION_AAD, sealed)
        .map_err(|e| anyhow::anyhow!("opening the stored notice: {e}"))?;
    serde_json::from_str(&plain).map_err(|e| anyhow::anyhow!("decoding the stored notice: {e}"))
}

/// What a run job recorded for its PR: the comment's view model (rendered when published) and,
/// the failures whose denied action CloudTrail is asked for once it is posted.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum RunResult {
    Plan {
        comment: PlanComment,
        /// Plan-time permission failures whose denied action CloudTrail is asked for.
        #[serde(default)]
        pending: Vec<PendingFailure>,
    },
    Apply {
        comment: ApplyComment,
        #[serde(default)]
        pending: Vec<PendingFailure>,
    },
}

impl RunResult {
    /// The result a run job sealed (the `result` column of a publication).
    pub fn open_sealed(key: &crate::crypto::SealKey, sealed: &str) -> anyhow::Result<RunResult> {
        let plain = crate::crypto::open_job_payload(key, PUBLICATION_AAD, sealed)
            .map_err(|e| anyhow::anyhow!("opening the stored result: {e}"))?;
        serde_json::from_str(&plain).map_err(|e| anyhow::anyhow!("decoding the stored result: {e}"))
    }
}

impl RunResult {
    pub fn command(&self) -> &'static str {
        match self {
            RunResult::Plan { .. } => "plan",
            RunResult::Apply { .. } => "apply",
        }
    }

    pub fn kind(&self) -> CommentKind {
        match self {
            RunResult::Plan { .. } => CommentKind::Plan,
            RunResult::Apply { .. } => CommentKind::Apply,
        }
    }

    /// The PR number and the marker key (root, run) the comment carries.
    fn marker_fields(&self) -> (u64, &str, &str) {
        let meta = match self {
            RunResult::Plan { comment, .. } => &comment.meta,
            RunResult::Apply { comment, .. } => &comment.meta,
        };
        (meta.pr, &meta.marker_root, &meta.run_id)
    }

    /// One check run per root: (root's project, check-run name, conclusion).
    pub fn check_runs(&self) -> Vec<(String, String, &'static str)> {
        match self {
            RunResult::Plan { comment, .. } => comment
                .repo_root_summaries
                .iter()
                .map(|r| {
                    let conclusion = match r.status {
                        PlanStatus::Failed => "failure",
                        _ => "success",
                    };
                    let name = format!("tfgate plan: {}", r.project);
                    (r.project.clone(), name, conclusion)
                })
                .collect(),
            RunResult::Apply { comment, .. } => comment
                .roots
                .iter()
                .map(|r| {
                    let name = format!("tfgate apply: {}", r.project);
                    (r.project.clone(), name, apply_conclusion(&r.status))
                })
                .collect(),
        }
    }
}

/// The check-run conclusion of one applied root.
pub fn apply_conclusion(status: &ApplyStatus) -> &'static str {
    match status {
        ApplyStatus::Succeeded => "success",
        ApplyStatus::Skipped { .. } => "skipped",
        ApplyStatus::Interrupted => "cancelled",
        ApplyStatus::PartiallyFailed | ApplyStatus::Failed => "failure",
    }
}

/// The marker root of a run job's result comment: unique to the job, so a publish finds the
/// comment it posted itself and no other.
pub fn result_marker_root(job_id: i64) -> String {
    format!("job-{job_id}")
}

/// The `external_id` of a root's check run: one per job and root.
pub fn check_run_external_id(job_id: i64, project: &str) -> String {
    format!("tfgate:job-{job_id}:{project}")
}

/// A PR comment as listed.
#[derive(Debug, Clone, Copy)]
pub struct SeenComment<'a> {
    pub id: i64,
    pub author: Option<&'a str>,
    pub body: Option<&'a str>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommentStep {
    /// No comment of tfgate carries this result's marker: post it.
    Create,
    /// Posted before (the answer may have been lost): use this comment, post nothing.
    Found(i64),
}

/// Whether the result comment is already on the PR: a comment written by tfgate itself
/// (`own_login`, `<slug>[bot]`) whose marker is this result's. A marker pasted into someone
/// else's comment does not count.
pub fn comment_step(
    result: &RunResult,
    own_login: &str,
    comments: &[SeenComment<'_>],
) -> CommentStep {
    let (pr, root, run) = result.marker_fields();
    let kind = result.kind();
    comments
        .iter()
        .filter(|c| c.author == Some(own_login))
        .find(|c| {
            c.body.and_then(parse_marker).is_some_and(|m| {
                m.kind == kind && m.pr == pr && m.key.root == root && m.key.run == run
            })
        })
        .map_or(CommentStep::Create, |c| CommentStep::Found(c.id))
}

/// A check run on the commit, as listed.
#[derive(Debug, Clone, Copy)]
pub struct SeenCheckRun<'a> {
    pub id: i64,
    pub name: &'a str,
    pub external_id: Option<&'a str>,
    pub app_slug: Option<&'a str>,
    /// It has a conclusion (a run with more than 50 annotations has none until its last
    /// batch is sent).
    pub completed: bool,
}

/// What a publish finds of a check run it is about to create.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExistingCheckRun {
    /// Not created yet: create it.
    Missing,
    /// Created and completed: nothing to do.
    Completed,
    /// Created but left `in_progress` half-way through its annotations: finish it.
    Unfinished(i64),
}

/// Whether tfgate (`own_slug`) already created the check run `name` with `external_id`.
pub fn existing_check_run(
    existing: &[SeenCheckRun<'_>],
    own_slug: &str,
    name: &str,
    external_id: &str,
) -> ExistingCheckRun {
    let found = existing.iter().find(|c| {
        c.name == name && c.external_id == Some(external_id) && c.app_slug == Some(own_slug)
    });
    match found {
        None => ExistingCheckRun::Missing,
        Some(c) if c.completed => ExistingCheckRun::Completed,
        Some(c) => ExistingCheckRun::Unfinished(c.id),
    }
}

#[cfg(test)]
#[path = "outbox_tests.rs"]
mod tests;
