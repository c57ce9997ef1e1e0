//! Reads one PR's [`PrSnapshot`] (effects only): its facts from GitHub, who pushed from
//! tfgate's records, the default branch's `tfgate.yaml`, and the changes beyond its file list.
//! A job reads it once and passes it down (authorise → plan authors → queue runs; autoplan and
//! the `tfgate/apply` check of one `pull_request` delivery share one).

use std::time::Duration;

use super::github_error;
use super::layout::policy_at_default_branch;
use super::pr_changes::complete_pr_changes;
use super::pushers::complete_push_facts;
use crate::github::{facts, InstallationClient};
use crate::jobs::JobError;
use crate::model::view::NoticeBody;
use crate::model::RepoRef;
use crate::policy::{ChangesRead, PrSnapshot, RepoPolicy};
use crate::state::AppState;

/// What a job needs of the PR beyond what every snapshot holds.
pub(super) struct Reading {
    /// Pauses while GitHub computes mergeability (a command about to be decided waits).
    pub mergeable_wait: &'static [Duration],
    /// Fill in who pushed, from tfgate's records (a command's decision needs it).
    pub pushes: bool,
    /// Read the changes beyond the file list (whoever needs the affected roots).
    pub changes: bool,
}

/// The PR `number` of `repo` as it is now, under `admin` (the admin's policy).
pub(super) async fn read_snapshot(
    state: &AppState,
    gh: &InstallationClient,
    (repo, number): (&RepoRef, i64),
    admin: &RepoPolicy,
    how: Reading,
) -> Result<PrSnapshot, JobError> {
    let mut facts = facts::pr_facts_waiting(gh, repo, number, how.mergeable_wait)
        .await
        .map_err(github_error)?;
    if how.pushes {
        complete_push_facts(state, repo, &mut facts).await?;
    }
    // The PR names its base repository's default branch: no second read of the repository.
    let (policy, layout_problems) =
        policy_at_default_branch(gh, repo, admin, &facts.default_branch).await?;
    let changes = match how.changes {
        true => complete_pr_changes(state, gh, repo, &policy, &mut facts).await,
        false => ChangesRead::NotRead,
    };
    Ok(PrSnapshot {
        facts,
        policy,
        layout_problems,
        changes,
    })
}

/// The PR's one-line notice about changes that could not be read, if any.
pub(super) fn changes_notice(changes: ChangesRead) -> Option<NoticeBody> {
    match changes {
        ChangesRead::Read {
            modules_unread,
            inputs_lock_unread,
        } if modules_unread || inputs_lock_unread => Some(NoticeBody::AffectedRootsIncomplete {
            modules_unread,
            inputs_lock_unread,
        }),
        _ => None,
    }
}
