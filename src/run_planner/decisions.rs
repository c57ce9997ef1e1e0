//! Accepted commands → one policy decision per target. Pure: the worker gathers the facts
//! (PR, permission, teams), records each decision in the audit log and posts each denial.

use crate::command::Command;
use crate::policy::{decide, Actor, Decision, PolicyCommand, PrFacts, RepoPolicy, Target};

use super::targets::{policy_command, targets};

/// The policy's answer to one command (or one of its targets).
#[derive(Debug, Clone)]
pub enum CommandDecision {
    /// A bare command on a PR that affects no declared root.
    NoTarget { command: PolicyCommand },
    /// The decision for one target of the command.
    Decided {
        command: Box<Command>,
        policy_command: PolicyCommand,
        target: Target,
        decision: Decision,
    },
}

/// A command target that policy allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowedTarget {
    pub command: Command,
    pub target: Target,
    /// The declared project the target resolved to (`None` for whole-PR unlock/cancel).
    pub project: Option<String>,
}

/// Decide every command against every target it names or the PR affects, in order.
pub fn decide_commands(
    actor: &Actor,
    commands: &[Command],
    policy: &RepoPolicy,
    facts: &PrFacts,
) -> Vec<CommandDecision> {
    let mut out = Vec::new();
    for cmd in commands {
        let Some(pc) = policy_command(cmd.kind) else {
            continue;
        };
        match targets(cmd, policy, facts) {
            Err(_) => out.push(CommandDecision::NoTarget { command: pc }),
            Ok(list) => out.extend(list.into_iter().map(|target| CommandDecision::Decided {
                decision: decide(actor, pc, &target, facts, policy),
                command: Box::new(cmd.clone()),
                policy_command: pc,
                target,
            })),
        }
    }
    out
}

/// The allowed targets among the decisions, in order.
pub fn allowed_targets(decisions: &[CommandDecision]) -> Vec<AllowedTarget> {
    decisions
        .iter()
        .filter_map(|d| match d {
            CommandDecision::Decided {
                command,
                target,
                decision,
                ..
            } if decision.is_allowed() => Some(AllowedTarget {
                command: (**command).clone(),
                target: target.clone(),
                project: decision.project.as_ref().map(|p| p.0.clone()),
            }),
            _ => None,
        })
        .collect()
}

/// The teams whose membership the policy's permissions depend on (sorted, once each).
pub fn teams_named(policy: &RepoPolicy) -> Vec<String> {
    let project_perms = policy.projects.iter().map(|p| &p.permissions);
    let mut teams: Vec<String> = std::iter::once(&policy.permissions)
        .chain(project_perms)
        .flat_map(|perms| perms.plan.teams.iter().chain(perms.apply.teams.iter()))
        .cloned()
        .collect();
    teams.sort();
    teams.dedup();
    teams
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::parse_comment;
    use crate::policy::{load_policy, GitHubPermission};

    const POLICY: &str = "repos: [\"o/r\"]\ndefaults:\n  plan_role: arn:aws:iam::111111111111:role/plan\n  apply_role: arn:aws:iam::111111111111:role/apply\npermissions:\n  apply:\n    teams: [sre, ops]\nprojects:\n  - name: network\n    dir: infra/network\n  - name: eks\n    dir: infra/eks\n    permissions:\n      plan:\n        teams: [ops, dev]\n";

    fn commands(text: &str) -> Vec<Command> {
        parse_comment(text, "tfgate")
            .into_iter()
            .map(Result::unwrap)
            .collect()
    }

    fn actor(permission: GitHubPermission) -> Actor {
        Actor {
            login: "alice".into(),
            permission,
            teams: vec![],
            is_bot: false,
        }
    }

    fn facts(files: &[&str]) -> PrFacts {
        PrFacts {
            head_sha: "h1".into(),
            changed_files: files.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn a_bare_plan_decides_each_affected_root_and_allows_per_root() {
        let p = load_policy("p.yaml", POLICY).unwrap();
        let d = decide_commands(
            &actor(GitHubPermission::Write),
            &commands("/plan"),
            &p,
            &facts(&["infra/eks/main.tf", "infra/network/x.tf"]),
        );
        assert_eq!(d.len(), 2);
        let allowed = allowed_targets(&d);
        let projects: Vec<_> = allowed.iter().map(|a| a.project.clone()).collect();
        // eks lets only its teams plan; alice is in none.
        assert_eq!(projects, vec![Some("network".to_string())]);
    }

    #[test]
    fn no_affected_root_is_its_own_decision() {
        let p = load_policy("p.yaml", POLICY).unwrap();
        let d = decide_commands(
            &actor(GitHubPermission::Write),
            &commands("/plan"),
            &p,
            &facts(&["README.md"]),
        );
        assert!(matches!(
            d.as_slice(),
            [CommandDecision::NoTarget {
                command: PolicyCommand::Plan,
            }]
        ));
        assert!(allowed_targets(&d).is_empty());
    }

    #[test]
    fn denied_targets_are_not_allowed() {
        let p = load_policy("p.yaml", POLICY).unwrap();
        let d = decide_commands(
            &actor(GitHubPermission::Read),
            &commands("/plan -p eks"),
            &p,
            &facts(&[]),
        );
        assert_eq!(d.len(), 1);
        assert!(allowed_targets(&d).is_empty());
    }

    #[test]
    fn help_reaches_no_decision() {
        let p = load_policy("p.yaml", POLICY).unwrap();
        let d = decide_commands(
            &actor(GitHubPermission::Admin),
            &commands("/help"),
            &p,
            &facts(&[]),
        );
        assert!(d.is_empty());
    }

    #[test]
    fn teams_are_collected_once_sorted() {
        let p = load_policy("p.yaml", POLICY).unwrap();
        assert_eq!(teams_named(&p), vec!["dev", "ops", "sre"]);
    }
}
