//! The replies a comment job gathers and posts as one comment (effects only).

use anyhow::anyhow;

use super::github_error;
use crate::github::{api, InstallationClient};
use crate::jobs::JobError;
use crate::model::view::CommentMeta;
use crate::model::view::NoticeBody;
use crate::state::AppState;
use crate::webhook::event::CommentJob;

/// Everything a comment job answers, posted as one comment.
///
/// Posted directly, not through the outbox (unlike run jobs' notices and results): it is the
/// answer to the comment itself (help, rejected, outsider, policy denied, …), decided and
/// posted at the end of the one attempt that claimed the comment (`comments::claim`), with no
/// long work after it that could fail and repeat it; the GitHub client finds a create whose
/// answer was lost by its post marker. Rendered from the notices' templates
/// (`Renderer::render_reply`).
#[derive(Default)]
pub(super) struct Replies(Vec<NoticeBody>);

impl Replies {
    pub fn push(&mut self, body: NoticeBody) {
        self.0.push(body);
    }

    pub(super) async fn post(
        self,
        state: &AppState,
        gh: &InstallationClient,
        comment: &CommentJob,
        job_id: i64,
    ) -> Result<(), JobError> {
        if self.0.is_empty() {
            return Ok(());
        }
        let meta = CommentMeta {
            pr: comment.number as u64,
            marker_root: format!("comment-{}", comment.comment_id),
            run_id: job_id.to_string(),
            head_sha_short: None,
            command_by: Some(comment.author.clone()),
            check_run_url: None,
        };
        let body = state
            .renderer
            .render_reply(&meta, &self.0)
            .map_err(|e| JobError::Permanent(anyhow!("rendering a reply: {e}")))?;
        api::create_comment(gh, &comment.repo, comment.number, &body)
            .await
            .map(|_| ())
            .map_err(github_error)
    }
}
