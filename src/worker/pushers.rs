//! tfgate's record of who moved each PR's head: written for every `pull_request` delivery that
//! moves it, read into the facts a command is decided on. What the records mean is
//! `policy::push_history`; which approvals they rule out is `policy::approval`.

use crate::db::pr_pushes;
use crate::jobs::JobError;
use crate::model::RepoRef;
use crate::policy::{push_history, PrFacts, PushRecord};
use crate::state::AppState;
use crate::webhook::event::PullRequestJob;

/// Record who opened, reopened or pushed to the PR (the delivery's sender) at its head.
pub async fn record(state: &AppState, pr: &PullRequestJob) -> Result<(), JobError> {
    let Some(push) =
        PushRecord::from_event(&pr.action, &pr.head_sha, pr.before.as_deref(), &pr.sender)
    else {
        return Ok(());
    };
    pr_pushes::record(
        &state.db,
        &pr.repo.full_name(),
        pr.number,
        &pr.action,
        &push,
    )
    .await
    .map_err(JobError::Transient)
}

/// Fills the push fields of `facts` (read from GitHub for the same PR) from the records.
pub async fn complete_push_facts(
    state: &AppState,
    repo: &RepoRef,
    facts: &mut PrFacts,
) -> Result<(), JobError> {
    let records = pr_pushes::of_pr(&state.db, &repo.full_name(), facts.number as i64)
        .await
        .map_err(JobError::Transient)?;
    let history = push_history(&records, &facts.head_sha);
    facts.pushers = history.pushers;
    facts.head_pusher_known = history.head_pusher_known;
    facts.pushes_complete = history.complete;
    Ok(())
}
