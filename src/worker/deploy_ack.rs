//! `/ack-deploy` (effects): who may acknowledge is decided by `gitops::ack` (pure); here the
//! head's `tfgate/deploy` check is read, the preview recomputed for the same commits and posted
//! again as `success`, acknowledged, and the decision audited. A new push gets a new preview,
//! so an acknowledgement never carries over to a commit nobody has looked at.

use super::authorize::audit;
use super::github_error;
use super::gitops_check::{compute, post, word, Preview, CHECK_NAME};
use super::replies::Replies;
use crate::github::api;
use crate::github::lists;
use crate::github::{GitHubApp, InstallationClient};
use crate::gitops::ack::{ack_result, may_acknowledge};
use crate::jobs::JobError;
use crate::model::view::AckResult;
use crate::model::view::NoticeBody;
use crate::model::{short_sha, DeployAcknowledged};
use crate::policy::{GitHubPermission, RepoPolicy};
use crate::state::AppState;
use crate::webhook::event::CommentJob;

const RULE: &str = "gitops.acknowledge";

/// Answers one `/ack-deploy`.
pub(super) async fn acknowledge(
    state: &AppState,
    app: &GitHubApp,
    gh: &InstallationClient,
    comment: &CommentJob,
    policy: &RepoPolicy,
    permission: GitHubPermission,
    replies: &mut Replies,
) -> Result<(), JobError> {
    if let Err(refusal) = may_acknowledge(&policy.gitops, permission) {
        let denial = refusal.denial();
        // The audit line keeps the reply's wording.
        let reason = state
            .renderer
            .render_policy_denial(&denial)
            .map_err(|e| JobError::Permanent(anyhow::anyhow!("rendering a denial: {e}")))?;
        audit(
            state,
            comment,
            "ack-deploy",
            RULE,
            "deny",
            Some(reason.clone()),
        )
        .await?;
        replies.push(NoticeBody::PolicyDenied {
            denial,
            rule: RULE.into(),
        });
        return Ok(());
    }
    let info = api::get_pull_request(gh, &comment.repo, comment.number)
        .await
        .map_err(github_error)?;
    let head = info.head.sha.clone();
    let listed = lists::check_runs(gh, &comment.repo, &head)
        .await
        .map_err(github_error)?;
    let shown = listed
        .iter()
        .filter(|c| c.name == CHECK_NAME)
        .filter(|c| c.app.as_ref().and_then(|a| a.slug.as_deref()) == Some(app.slug.as_str()))
        .max_by_key(|c| c.id);
    let mut result = ack_result(shown.and_then(|c| c.conclusion.as_deref()));
    if result == AckResult::Acknowledged {
        let preview = compute(state, app, policy, &comment.repo, &info.base.sha, &head).await?;
        result = ack_result(Some(preview.conclusion));
        let output = shown.and_then(|c| c.output.clone()).unwrap_or_default();
        let worded = word(&state.renderer, &preview)?;
        let same = output.title.as_deref() == Some(worded.title.as_str())
            && output.summary.as_deref() == Some(worded.summary.as_str());
        if result == AckResult::Acknowledged && !same {
            // What would be accepted is not what was shown: show it, accept nothing.
            result = AckResult::PreviewChanged;
            post(gh, &state.renderer, &comment.repo, &head, &preview).await?;
        } else if result == AckResult::Acknowledged {
            post(
                gh,
                &state.renderer,
                &comment.repo,
                &head,
                &acknowledged(preview, &comment.author, &head),
            )
            .await?;
        }
    }
    let decision = match result {
        AckResult::Acknowledged => "allow",
        _ => "ignored",
    };
    let detail = format!("{}: {result:?}", short_sha(&head));
    audit(state, comment, "ack-deploy", RULE, decision, Some(detail)).await?;
    replies.push(NoticeBody::DeployAck {
        result,
        head_sha_short: short_sha(&head).to_string(),
        user: comment.author.clone(),
    });
    Ok(())
}

/// The preview as `success`, saying who accepted it for which commit.
fn acknowledged(preview: Preview, user: &str, head: &str) -> Preview {
    let mut text = preview.text;
    text.acknowledged = Some(DeployAcknowledged {
        user: user.to_string(),
        commit_short: short_sha(head).to_string(),
    });
    Preview {
        conclusion: "success",
        text,
        annotations: preview.annotations,
    }
}
