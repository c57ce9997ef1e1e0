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
use crate::model::{PolicyDenial, UnmetRequirement};
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
        /// Why, with what the reply names (`templates/_policy_denial.md.j2` words it).
        denial: Box<PolicyDenial>,
        /// Unmet apply requirements (empty for other denials).
        unmet: Vec<ApplyRequirement>,
    },
}

impl Decision {
    pub fn is_allowed(&self) -> bool {
        matches!(self.outcome, Outcome::Allow)
    }

    /// Why it was denied, for a denial.
    pub fn denial(&self) -> Option<&PolicyDenial> {
        match &self.outcome {
            Outcome::Allow => None,
            Outcome::Deny { denial, .. } => Some(denial),
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

fn deny(rule: &'static str, denial: PolicyDenial, project: Option<&ResolvedProject>) -> Decision {
    Decision {
        outcome: Outcome::Deny {
            denial: Box::new(denial),
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
            PolicyDenial::CommentApplyDisabled { project: name },
            project,
        );
    }
    let rule = match project {
        Some(p) => p.permission_for(command.needs_apply_permission()),
        None if command.needs_apply_permission() => &policy.permissions.apply,
        None => &policy.permissions.plan,
    };
    if let Some(decision) = check_permission(actor, rule, verb, project) {
        return decision;
    }
    if command == PolicyCommand::Apply {
        if let Some(p) = project {
            let specs = policy.specs();
            if !is_project_affected(&p.spec, &facts.changes(), &specs) {
                let project_name = p.id().to_string();
                return deny(
                    "apply.target_not_in_pr",
                    PolicyDenial::TargetNotInPr {
                        project: project_name,
                    },
                    project,
                );
            }
            let unmet = unmet_requirements(facts, policy);
            if let Some(first) = unmet.first().map(|(r, _)| *r) {
                let reqs = unmet.iter().map(|(r, _)| *r).collect();
                let unmet: Vec<UnmetRequirement> = unmet.into_iter().map(|(_, u)| u).collect();
                return Decision {
                    outcome: Outcome::Deny {
                        denial: Box::new(PolicyDenial::RequirementsUnmet {
                            project: p.id().to_string(),
                            unmet,
                        }),
                        unmet: reqs,
                    },
                    rule: requirement_rule(first),
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
        return Some(deny("comment.edited", PolicyDenial::CommentEdited, None));
    }
    if actor.is_bot || actor.login.ends_with("[bot]") {
        return Some(deny("actor.bot", PolicyDenial::Bot, None));
    }
    if facts.state != PrState::Open {
        return Some(deny("pr.closed", PolicyDenial::PrClosed, None));
    }
    if !policy.allows_base(&facts.base_ref, &facts.default_branch) {
        let denial = PolicyDenial::BaseBranch {
            base: facts.base_ref.clone(),
            allowed: policy.base_branches.clone(),
            default_branch: facts.default_branch.clone(),
        };
        return Some(deny("pr.base_branch", denial, None));
    }
    if facts.is_fork && !policy.allow_fork_prs {
        return Some(deny("pr.fork", PolicyDenial::Fork, None));
    }
    None
}

fn resolve_target<'p>(
    command: PolicyCommand,
    target: &Target,
    policy: &'p RepoPolicy,
) -> Result<Option<&'p ResolvedProject>, Decision> {
    let verb = command.name();
    let found = match (&target.project, &target.dir) {
        (None, None) if matches!(command, PolicyCommand::Plan | PolicyCommand::Apply) => {
            let verb = verb.to_string();
            return Err(deny(
                "target.unspecified",
                PolicyDenial::TargetUnspecified { verb },
                None,
            ));
        }
        (None, None) => return Ok(None),
        (Some(name), _) => policy.project(name),
        (None, Some(dir)) => {
            if policy.is_excluded(dir) {
                let dir = dir.clone();
                return Err(deny(
                    "target.excluded",
                    PolicyDenial::TargetExcluded { dir },
                    None,
                ));
            }
            policy.project_at(dir, target.workspace.as_deref().unwrap_or("default"))
        }
    };
    let Some(project) = found else {
        let mut known: Vec<String> = policy.projects.iter().map(|p| p.id().to_string()).collect();
        let more = known.len() > 10;
        known.truncate(10);
        let denial = PolicyDenial::TargetUnknown {
            target: target.describe(),
            known,
            more,
        };
        return Err(deny("target.unknown", denial, None));
    };
    if policy.is_excluded(&project.spec.dir) {
        let dir = project.spec.dir.clone();
        return Err(deny(
            "target.excluded",
            PolicyDenial::TargetExcluded { dir },
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
    verb: &str,
    project: Option<&ResolvedProject>,
) -> Option<Decision> {
    let login = actor.login.clone();
    let (verb, project_name) = (verb.to_string(), project.map(|p| p.id().to_string()));
    if actor.permission < rule.min_permission {
        let denial = PolicyDenial::BelowMinimum {
            login,
            verb,
            project: project_name,
            needed: rule.min_permission.to_string(),
            has: actor.permission.to_string(),
        };
        return Some(deny("permission.below_minimum", denial, project));
    }
    if rule.users.is_empty() && rule.teams.is_empty() {
        return None;
    }
    let normalized = normalize_login(&actor.login);
    let listed = rule.users.iter().any(|u| normalize_login(u) == normalized);
    let in_team = rule.teams.iter().any(|t| {
        actor
            .teams
            .iter()
            .any(|mine| team_slug(mine) == team_slug(t))
    });
    if listed || in_team {
        return None;
    }
    let denial = PolicyDenial::NotListed {
        login,
        verb,
        project: project_name,
        users: rule
            .users
            .iter()
            .map(|u| u.trim_start_matches('@').to_string())
            .collect(),
        teams: rule.teams.clone(),
    };
    Some(deny("permission.not_listed", denial, project))
}

#[cfg(test)]
#[path = "decide_tests.rs"]
pub(crate) mod tests;

#[cfg(test)]
#[path = "decide_pr_tests.rs"]
pub(crate) mod pr_tests;
