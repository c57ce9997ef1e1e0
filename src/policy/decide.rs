//! Every authorisation decision, in one pure function.
//!
//! Checks run in this order; the first that fails decides (rule ids in [`RULES`]):
//! 1. the comment was edited → deny (an edited comment never executes);
//! 2. the commenter is a bot → deny;
//! 3. the PR is closed or merged → deny (a lock taken now would never be released);
//! 4. the PR's base branch is not in `base_branches` (default: the default branch) → deny;
//! 5. the PR comes from a fork and the policy does not allow forks → deny;
//! 6. the target: none named (plan/apply need one), excluded by `exclude`, or unknown → deny;
//! 7. apply of a `comment_apply: false` root → "this root is applied by an admin, not by comment";
//! 8. the commenter's permission is below `min_permission`, or `users`/`teams` are set and
//!    the commenter is in neither → deny (plan side for plan/unlock/cancel, apply side for
//!    apply/inputs; a project's own `permissions` override the file's);
//! 9. apply of a root the PR does not affect → deny. A plan of such a root is allowed: it
//!    runs the reviewed base code, which is how one checks a root for drift;
//! 10. apply with unmet `apply_requirements` → deny, naming every unmet one;
//! 11. otherwise allow.

use super::facts::{Actor, PolicyCommand, PrFacts, PrState, Target};
use super::model::{RepoPolicy, ResolvedProject};
use super::requirements::{requirement_rule, unmet_requirements};
use super::schema::{ApplyRequirement, CommandPermission};
use crate::project::{is_project_affected, ProjectId};
use serde::Serialize;

/// The result of [`decide`]: what to do, and the stable id of the rule that decided it
/// (for the audit log).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decision {
    pub outcome: Outcome,
    pub rule: &'static str,
    /// The project the target resolved to, when it did.
    pub project: Option<ProjectId>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "result")]
pub enum Outcome {
    Allow,
    Deny {
        /// The exact reply to post on the PR.
        reason: String,
        /// Unmet apply requirements (empty for other denials).
        unmet: Vec<ApplyRequirement>,
    },
}

impl Decision {
    pub fn is_allowed(&self) -> bool {
        matches!(self.outcome, Outcome::Allow)
    }

    /// The reply to post, for a denial.
    pub fn reason(&self) -> Option<&str> {
        match &self.outcome {
            Outcome::Allow => None,
            Outcome::Deny { reason, .. } => Some(reason),
        }
    }
}

/// Every rule id [`decide`] can return, with what it means.
pub const RULES: &[(&str, &str)] = &[
    ("comment.edited", "the command comes from an edited comment"),
    ("actor.bot", "the commenter is a bot account"),
    ("pr.closed", "the PR is closed or merged"),
    (
        "pr.base_branch",
        "the PR's base branch is not one of base_branches",
    ),
    (
        "pr.fork",
        "the PR comes from a fork and allow_fork_prs is false",
    ),
    ("target.unspecified", "plan/apply named no project or dir"),
    ("target.excluded", "the target dir matches `exclude`"),
    (
        "target.unknown",
        "no project has that name or dir+workspace",
    ),
    (
        "apply.comment_apply_disabled",
        "the root has comment_apply: false",
    ),
    (
        "permission.below_minimum",
        "the commenter's permission is below min_permission",
    ),
    (
        "permission.not_listed",
        "users/teams are set and the commenter is in neither",
    ),
    (
        "apply.target_not_in_pr",
        "the PR changes nothing that affects the root",
    ),
    (
        "apply.requires_approval",
        "approved is the first unmet apply requirement",
    ),
    (
        "apply.requires_mergeable",
        "mergeable is the first unmet apply requirement",
    ),
    (
        "apply.requires_up_to_date",
        "up_to_date is the first unmet apply requirement",
    ),
    (
        "apply.requires_checks_passed",
        "checks_passed is the first unmet apply requirement",
    ),
    ("plan.allowed", "plan allowed"),
    ("apply.allowed", "apply allowed"),
    ("unlock.allowed", "unlock allowed"),
    ("cancel.allowed", "cancel allowed"),
    ("inputs.allowed", "input drift acknowledgement allowed"),
];

fn deny(rule: &'static str, reason: String, project: Option<&ResolvedProject>) -> Decision {
    Decision {
        outcome: Outcome::Deny {
            reason,
            unmet: Vec::new(),
        },
        rule,
        project: project.map(|p| p.id().clone()),
    }
}

/// Decides whether `actor` may run `command` on `target` of the PR described by `facts`,
/// under `policy` (with the repo layout already merged, see `project::merge_layout`).
pub fn decide(
    actor: &Actor,
    command: PolicyCommand,
    target: &Target,
    facts: &PrFacts,
    policy: &RepoPolicy,
) -> Decision {
    let verb = command.name();
    if let Some(decision) = refuse_before_target(actor, facts, policy) {
        return decision;
    }
    let project = match resolve_target(command, target, policy) {
        Ok(project) => project,
        Err(decision) => return decision,
    };
    if command == PolicyCommand::Apply && project.is_some_and(|p| !p.comment_apply) {
        let name = project.map(|p| p.id().to_string()).unwrap_or_default();
        return deny(
            "apply.comment_apply_disabled",
            format!("`{name}`: this root is applied by an admin, not by comment."),
            project,
        );
    }
    let rule = match project {
        Some(p) => p.permission_for(command.needs_apply_permission()),
        None if command.needs_apply_permission() => &policy.permissions.apply,
        None => &policy.permissions.plan,
    };
    let what = project
        .map(|p| format!("{verb} `{}`", p.id()))
        .unwrap_or_else(|| verb.to_string());
    if let Some(decision) = check_permission(actor, rule, &what, project) {
        return decision;
    }
    if command == PolicyCommand::Apply {
        if let Some(p) = project {
            let specs = policy.specs();
            if !is_project_affected(&p.spec, &facts.changes(), &specs) {
                return deny("apply.target_not_in_pr", format!("`{}` is not changed by this pull request, so it cannot be applied from here.", p.id()), project);
            }
            let unmet = unmet_requirements(facts, policy);
            if let Some((first, _)) = unmet.first() {
                let lines: Vec<String> = unmet
                    .iter()
                    .map(|(req, why)| format!("- {}: {why}", req.name()))
                    .collect();
                return Decision {
                    outcome: Outcome::Deny {
                        reason: format!("Cannot apply `{}` yet:\n{}", p.id(), lines.join("\n")),
                        unmet: unmet.iter().map(|(r, _)| *r).collect(),
                    },
                    rule: requirement_rule(*first),
                    project: Some(p.id().clone()),
                };
            }
        }
    }
    Decision {
        outcome: Outcome::Allow,
        rule: command.allow_rule(),
        project: project.map(|p| p.id().clone()),
    }
}

/// The refusals that do not depend on the target: an edited comment, a bot, a closed PR, a
/// base branch commands may not run on, a fork.
fn refuse_before_target(actor: &Actor, facts: &PrFacts, policy: &RepoPolicy) -> Option<Decision> {
    if facts.comment_edited {
        return Some(deny(
            "comment.edited",
            "Edited comments are never executed. Post the command in a new comment.".into(),
            None,
        ));
    }
    if actor.is_bot || actor.login.ends_with("[bot]") {
        return Some(deny(
            "actor.bot",
            "Commands from bot accounts are not executed.".into(),
            None,
        ));
    }
    if facts.state != PrState::Open {
        return Some(deny(
            "pr.closed",
            "This pull request is closed; tfgate does not run commands on it.".into(),
            None,
        ));
    }
    if !policy.allows_base(&facts.base_ref, &facts.default_branch) {
        return Some(deny(
            "pr.base_branch",
            base_branch_reply(facts, policy),
            None,
        ));
    }
    if facts.is_fork && !policy.allow_fork_prs {
        return Some(deny("pr.fork", "This pull request comes from a fork; tfgate does not run commands on fork pull requests in this repository.".into(), None));
    }
    None
}

fn base_branch_reply(facts: &PrFacts, policy: &RepoPolicy) -> String {
    let allowed = if policy.base_branches.is_empty() {
        format!("the default branch `{}`", facts.default_branch)
    } else {
        let list: Vec<String> = policy
            .base_branches
            .iter()
            .map(|b| format!("`{b}`"))
            .collect();
        list.join(", ")
    };
    format!(
        "This pull request targets `{}`; tfgate runs commands only on pull requests into {allowed}.",
        facts.base_ref
    )
}

fn resolve_target<'p>(
    command: PolicyCommand,
    target: &Target,
    policy: &'p RepoPolicy,
) -> Result<Option<&'p ResolvedProject>, Decision> {
    let verb = command.name();
    let found = match (&target.project, &target.dir) {
        (None, None) if matches!(command, PolicyCommand::Plan | PolicyCommand::Apply) => {
            return Err(deny(
                "target.unspecified",
                format!("Name the project or directory to {verb}."),
                None,
            ));
        }
        (None, None) => return Ok(None),
        (Some(name), _) => policy.project(name),
        (None, Some(dir)) => {
            if policy.is_excluded(dir) {
                return Err(deny(
                    "target.excluded",
                    format!("`{dir}` is excluded from tfgate by the admin policy."),
                    None,
                ));
            }
            policy.project_at(dir, target.workspace.as_deref().unwrap_or("default"))
        }
    };
    let Some(project) = found else {
        let mut known: Vec<&str> = policy.projects.iter().map(|p| p.id().as_str()).collect();
        let more = known.len() > 10;
        known.truncate(10);
        let list = if known.is_empty() {
            "none".to_string()
        } else {
            known.join(", ") + if more { ", …" } else { "" }
        };
        return Err(deny(
            "target.unknown",
            format!(
                "`{}` is not a project tfgate knows in this repository. Known projects: {list}.",
                target.describe()
            ),
            None,
        ));
    };
    if policy.is_excluded(&project.spec.dir) {
        return Err(deny(
            "target.excluded",
            format!(
                "`{}` is excluded from tfgate by the admin policy.",
                project.spec.dir
            ),
            Some(project),
        ));
    }
    Ok(Some(project))
}

fn normalize_login(s: &str) -> String {
    s.trim_start_matches('@').to_lowercase()
}

fn team_slug(s: &str) -> String {
    normalize_login(s.rsplit('/').next().unwrap_or(s))
}

fn check_permission(
    actor: &Actor,
    rule: &CommandPermission,
    what: &str,
    project: Option<&ResolvedProject>,
) -> Option<Decision> {
    let who = format!("@{}", actor.login);
    if actor.permission < rule.min_permission {
        return Some(deny(
            "permission.below_minimum",
            format!(
                "{who} cannot {what}: it needs {} permission on this repository ({who} has {}).",
                rule.min_permission, actor.permission
            ),
            project,
        ));
    }
    if rule.users.is_empty() && rule.teams.is_empty() {
        return None;
    }
    let login = normalize_login(&actor.login);
    let listed = rule.users.iter().any(|u| normalize_login(u) == login);
    let in_team = rule.teams.iter().any(|t| {
        actor
            .teams
            .iter()
            .any(|mine| team_slug(mine) == team_slug(t))
    });
    if listed || in_team {
        return None;
    }
    let mut allowed = Vec::new();
    if !rule.users.is_empty() {
        allowed.push(format!(
            "users {}",
            rule.users
                .iter()
                .map(|u| format!("@{}", u.trim_start_matches('@')))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !rule.teams.is_empty() {
        allowed.push(format!("teams {}", rule.teams.join(", ")));
    }
    Some(deny(
        "permission.not_listed",
        format!("{who} cannot {what}: only {} may.", allowed.join(" and ")),
        project,
    ))
}

#[cfg(test)]
#[path = "decide_tests.rs"]
pub(crate) mod tests;

#[cfg(test)]
#[path = "decide_pr_tests.rs"]
pub(crate) mod pr_tests;
