use std::sync::Arc;

use anyhow::anyhow;

use super::authorize::authorize;
use super::{github_error, payload};
use crate::command::parse_comment;
use crate::dispatch::comment::{comment_effects, CommentEffect};
use crate::github::api;
use crate::jobs::{ClaimedJob, JobError};
use crate::state::AppState;
use crate::webhook::event::CommentJob;

pub async fn handle(state: &Arc<AppState>, job: &ClaimedJob) -> Result<(), JobError> {
    let comment: CommentJob = payload(job)?;
    let slug = state.app_slug();
    let effects = comment_effects(&comment, parse_comment(&comment.body, &slug), &slug);
    if effects.is_empty() {
        return Ok(());
    }
    let app = state
        .github()
        .ok_or_else(|| JobError::Transient(anyhow!("no GitHub App configured yet")))?;
    let gh = app
        .installation(comment.repo.installation_id)
        .map_err(JobError::Permanent)?;
    let mut accepted = Vec::new();
    for effect in effects {
        match effect {
            CommentEffect::React(content) => {
                api::react_to_comment(&gh, &comment.repo, comment.comment_id, content)
                    .await
                    .map_err(github_error)?;
            }
            CommentEffect::Reply(body) => {
                api::create_comment(&gh, &comment.repo, comment.number, &body)
                    .await
                    .map_err(github_error)?;
            }
            CommentEffect::Accept(cmd) => accepted.push(cmd),
        }
    }
    if accepted.is_empty() {
        return Ok(());
    }
    let allowed = authorize(state, &gh, &comment, accepted).await?;
    for a in &allowed {
        tracing::info!(
            command = a.command.kind.name(),
            project = a.project.as_deref().unwrap_or("-"),
            dir = a.target.dir.as_deref().unwrap_or("-"),
            head = &a.head_sha[..a.head_sha.len().min(12)],
            "command allowed by policy"
        );
    }
    Ok(())
}
