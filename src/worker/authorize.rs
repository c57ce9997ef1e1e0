//! Accepted commands → policy decisions, with facts read live from GitHub. Every decision is
//! written to the audit log; each denial gets its exact reply.

use std::sync::Arc;

use octocrab::Octocrab;

use super::github_error;
use super::layout::policy_for_pr;
use crate::command::Command;
use crate::db::audit::{self, AuditEvent};
use crate::github::{api, facts};
use crate::jobs::JobError;
use crate::policy::{decide, not_enabled_reply, Actor, RepoPolicy, Target};
use crate::project::layout_problems_reply;
use crate::run_planner::targets::{policy_command, targets};
use crate::state::AppState;
use crate::webhook::event::CommentJob;

/// A command target that policy allowed.
#[derive(Debug, Clone)]
pub struct AllowedTarget {
    pub command: Command,
    pub target: Target,
    pub project: Option<String>,
    pub head_sha: String,
}

const NOT_ENABLED_RULE: &str = "repo.not_enabled";

async fn audit(
    state: &AppState,
    comment: &CommentJob,
    action: &str,
    rule: &str,
    result: &str,
    detail: Option<String>,
) -> Result<(), JobError> {
    audit::record(
        &state.db,
        &AuditEvent {
            actor: comment.author.clone(),
            repo: Some(comment.repo.full_name()),
            pr: Some(comment.number),
            action: action.to_string(),
            rule: Some(rule.to_string()),
            result: result.to_string(),
            detail,
        },
    )
    .await
    .map_err(JobError::Transient)
}

async fn reply(gh: &Octocrab, comment: &CommentJob, body: &str) -> Result<(), JobError> {
    api::create_comment(gh, &comment.repo, comment.number, body)
        .await
        .map(|_| ())
        .map_err(github_error)
}

/// What policy allowed, and the policy (with the base branch's layout) it was decided under.
pub struct Authorized {
    pub policy: RepoPolicy,
    pub allowed: Vec<AllowedTarget>,
}

/// Decide every accepted command; `None` when the repository has no policy.
pub async fn authorize(
    state: &Arc<AppState>,
    gh: &Octocrab,
    comment: &CommentJob,
    commands: Vec<Command>,
) -> Result<Option<Authorized>, JobError> {
    let repo = comment.repo.full_name();
    let set = state.policies.current();
    let policy = match set.select(&repo) {
        Ok(Some(p)) => p,
        other => {
            if let Err(ambiguous) = other {
                tracing::error!(repo = %repo, problem = %ambiguous, "two policies tie for this repository");
            }
            let already: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM (SELECT 1 FROM audit_events \
                 WHERE repo = $1 AND rule = $2 LIMIT 1) AS seen",
            )
            .bind(&repo)
            .bind(NOT_ENABLED_RULE)
            .fetch_one(&state.db.pool)
            .await
            .map_err(|e| JobError::Transient(e.into()))?;
            if already == 0 {
                reply(gh, comment, &not_enabled_reply(&repo)).await?;
            }
            audit(state, comment, "command", NOT_ENABLED_RULE, "ignored", None).await?;
            return Ok(None);
        }
    };
    let pr_facts = facts::pr_facts(gh, &comment.repo, comment.number)
        .await
        .map_err(github_error)?;
    let (merged, layout_problems) =
        policy_for_pr(gh, &comment.repo, policy, &pr_facts.base_ref).await?;
    if !layout_problems.is_empty() {
        reply(
            gh,
            comment,
            &layout_problems_reply(&pr_facts.base_ref, &layout_problems),
        )
        .await?;
    }
    let policy = &merged;
    let permission = facts::user_permission(gh, &comment.repo, &comment.author)
        .await
        .map_err(github_error)?;
    // Team membership, for the teams the policy names (members: read).
    let mut named_teams: Vec<&String> = policy
        .permissions
        .plan
        .teams
        .iter()
        .chain(policy.permissions.apply.teams.iter())
        .chain(policy.projects.iter().flat_map(|p| {
            p.permissions
                .plan
                .teams
                .iter()
                .chain(p.permissions.apply.teams.iter())
        }))
        .collect();
    named_teams.sort();
    named_teams.dedup();
    let mut teams = Vec::new();
    for team in named_teams {
        if api::team_member(gh, &comment.repo.owner, team, &comment.author)
            .await
            .map_err(github_error)?
        {
            teams.push(team.clone());
        }
    }
    let actor = Actor {
        login: comment.author.clone(),
        permission,
        teams,
        is_bot: comment.author_is_bot,
    };
    let mut allowed = Vec::new();
    for cmd in commands {
        let Some(pc) = policy_command(cmd.kind) else {
            continue;
        };
        let targets = match targets(&cmd, policy, &pr_facts) {
            Ok(t) => t,
            Err(msg) => {
                audit(
                    state,
                    comment,
                    pc.name(),
                    "target.none_affected",
                    "deny",
                    None,
                )
                .await?;
                reply(gh, comment, msg).await?;
                continue;
            }
        };
        for target in targets {
            let decision = decide(&actor, pc, &target, &pr_facts, policy);
            let project = decision.project.as_ref().map(|p| p.0.clone());
            let result = if decision.is_allowed() {
                "allow"
            } else {
                "deny"
            };
            audit(
                state,
                comment,
                pc.name(),
                decision.rule,
                result,
                project.clone(),
            )
            .await?;
            match decision.reason() {
                Some(reason) => reply(gh, comment, reason).await?,
                None => allowed.push(AllowedTarget {
                    command: cmd.clone(),
                    target,
                    project,
                    head_sha: pr_facts.head_sha.clone(),
                }),
            }
        }
    }
    Ok(Some(Authorized {
        policy: merged,
        allowed,
    }))
}
