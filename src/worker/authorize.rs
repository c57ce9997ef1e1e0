//! Accepted commands → policy decisions, on the PR snapshot read live from GitHub once. Every decision is
//! written to the audit log; each denial gets its exact reply. The decisions themselves are
//! `run_planner::decisions`.

use std::sync::Arc;

use crate::github::InstallationClient;

use super::github_error;
use super::pr_snapshot::{changes_notice, read_snapshot, Reading};
use super::replies::Replies;
use crate::command::Command;
use crate::db::audit::{self, AuditEvent};
use crate::github::{api, facts};
use crate::jobs::JobError;
use crate::model::view::NoticeBody;
use crate::policy::PrSnapshot;
use crate::policy::{not_enabled_notice, Actor, GitHubPermission, RepoPolicy};
use crate::repo_layout::layout_problems_notice;
use crate::run_planner::decisions::{
    allowed_targets, decide_commands, teams_named, AllowedTarget, CommandDecision,
};
use crate::run_planner::targets::needs_affected_roots;
use crate::state::AppState;
use crate::webhook::event::CommentJob;

const NOT_ENABLED_RULE: &str = "repo.not_enabled";

/// What policy allowed, and the PR as it was read for the decision: its facts (head
/// included) and the policy with the base branch's layout.
pub struct Authorized {
    pub allowed: Vec<AllowedTarget>,
    pub snapshot: PrSnapshot,
}

pub(super) async fn audit(
    state: &AppState,
    comment: &CommentJob,
    action: &str,
    rule: &str,
    result: &str,
    detail: Option<String>,
) -> Result<(), JobError> {
    let event = AuditEvent {
        actor: comment.author.clone(),
        repo: Some(comment.repo.full_name()),
        pr: Some(comment.number),
        action: action.to_string(),
        rule: Some(rule.to_string()),
        result: result.to_string(),
        detail,
    };
    audit::record(&state.db, &event)
        .await
        .map_err(JobError::Transient)
}

/// Decide every accepted command under `policy` (the admin's, before the base layout).
pub async fn authorize(
    state: &Arc<AppState>,
    gh: &InstallationClient,
    comment: &CommentJob,
    policy: &RepoPolicy,
    permission: GitHubPermission,
    commands: &[Command],
    replies: &mut Replies,
) -> Result<Authorized, JobError> {
    let how = Reading {
        mergeable_wait: facts::MERGEABLE_WAIT,
        pushes: true,
        changes: needs_affected_roots(commands),
    };
    let snapshot = read_snapshot(state, gh, (&comment.repo, comment.number), policy, how).await?;
    if let Some(notice) = changes_notice(snapshot.changes) {
        replies.push(notice);
    }
    if !snapshot.layout_problems.is_empty() {
        replies.push(layout_problems_notice(
            &snapshot.facts.default_branch,
            &snapshot.layout_problems,
        ));
    }
    let actor = commenter(gh, comment, &snapshot.policy, permission).await?;
    let decisions = decide_commands(&actor, commands, &snapshot.policy, &snapshot.facts);
    record_decisions(state, comment, &decisions, replies).await?;
    Ok(Authorized {
        allowed: allowed_targets(&decisions),
        snapshot,
    })
}

/// The admin policy of the repository. Without one, the PR is told once how an admin enables
/// tfgate, and the command is audited as ignored.
pub async fn repo_policy(
    state: &AppState,
    comment: &CommentJob,
    replies: &mut Replies,
) -> Result<Option<RepoPolicy>, JobError> {
    let repo = comment.repo.full_name();
    if state.policies.awaiting_first_read() {
        // Retried with backoff; after the last attempt the PR is told the job failed.
        return Err(JobError::Transient(anyhow::anyhow!(
            "the admin repository's policies have not been read yet"
        )));
    }
    let set = state.policies.current();
    match set.select(&repo) {
        Ok(Some(p)) => return Ok(Some(p.clone())),
        Ok(None) => {}
        Err(ambiguous) => {
            tracing::error!(repo = %repo, problem = %ambiguous, "two policies tie for this repository")
        }
    }
    let told = audit::has_rule(&state.db, &repo, NOT_ENABLED_RULE)
        .await
        .map_err(JobError::Transient)?;
    if !told {
        replies.push(not_enabled_notice(&repo));
    }
    audit(state, comment, "command", NOT_ENABLED_RULE, "ignored", None).await?;
    Ok(None)
}

/// The commenter as policy sees them: permission, and membership of the teams it names.
async fn commenter(
    gh: &InstallationClient,
    comment: &CommentJob,
    policy: &RepoPolicy,
    permission: GitHubPermission,
) -> Result<Actor, JobError> {
    let teams = policy_teams_of(gh, &comment.repo.owner, policy, &comment.author).await?;
    Ok(Actor {
        login: comment.author.clone(),
        permission,
        teams,
        is_bot: comment.author_is_bot,
    })
}

/// The teams `policy` names (under `owner`) that `login` belongs to.
pub(super) async fn policy_teams_of(
    gh: &InstallationClient,
    owner: &str,
    policy: &RepoPolicy,
    login: &str,
) -> Result<Vec<String>, JobError> {
    let mut teams = Vec::new();
    for team in teams_named(policy) {
        if api::team_member(gh, owner, &team, login)
            .await
            .map_err(github_error)?
        {
            teams.push(team);
        }
    }
    Ok(teams)
}

/// Audit every decision and post every denial, in order.
async fn record_decisions(
    state: &AppState,
    comment: &CommentJob,
    decisions: &[CommandDecision],
    replies: &mut Replies,
) -> Result<(), JobError> {
    for d in decisions {
        match d {
            CommandDecision::NoTarget { command } => {
                audit(
                    state,
                    comment,
                    command.name(),
                    "target.none_affected",
                    "deny",
                    None,
                )
                .await?;
                replies.push(NoticeBody::NoAffectedRoot);
            }
            CommandDecision::Decided {
                policy_command,
                decision,
                ..
            } => {
                let project = decision.project.as_ref().map(|p| p.0.clone());
                let result = if decision.is_allowed() {
                    "allow"
                } else {
                    "deny"
                };
                audit(
                    state,
                    comment,
                    policy_command.name(),
                    decision.rule,
                    result,
                    project,
                )
                .await?;
                if let Some(denial) = decision.denial() {
                    replies.push(NoticeBody::PolicyDenied {
                        denial: denial.clone(),
                        rule: decision.rule.to_string(),
                    });
                }
            }
        }
    }
    Ok(())
}
