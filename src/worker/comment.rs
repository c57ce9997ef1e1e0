use std::sync::Arc;

use anyhow::anyhow;

use super::{github_error, payload};
use crate::command::parse_comment;
use crate::db::audit::{self, AuditEvent};
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
            CommentEffect::Accept(cmd) => {
                audit::record(
                    &state.db,
                    &AuditEvent {
                        actor: comment.author.clone(),
                        repo: Some(comment.repo.full_name()),
                        pr: Some(comment.number),
                        action: cmd.kind.name().to_string(),
                        rule: None,
                        result: "accepted".into(),
                        detail: None,
                    },
                )
                .await
                .map_err(JobError::Transient)?;
            }
        }
    }
    Ok(())
}
