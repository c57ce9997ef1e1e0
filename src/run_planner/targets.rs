//! Accepted commands → policy targets. Pure: which roots a command is about, and how the
//! parser's command maps onto policy's.

use crate::command::{Command, CommandKind};
use crate::policy::{PolicyCommand, PrFacts, RepoPolicy, Target};
use crate::project::affected_projects;

/// The policy command for a parsed command (`/help` never reaches policy).
pub fn policy_command(kind: CommandKind) -> Option<PolicyCommand> {
    match kind {
        CommandKind::Plan => Some(PolicyCommand::Plan),
        CommandKind::Apply => Some(PolicyCommand::Apply),
        CommandKind::Unlock => Some(PolicyCommand::Unlock),
        CommandKind::Cancel => Some(PolicyCommand::Cancel),
        CommandKind::Inputs => Some(PolicyCommand::Inputs),
        // `/ack-deploy` is decided by the GitOps folders' `acknowledge` (`gitops::ack`),
        // `/approve-policies` by the plan policy sets' `owners` (`policy_gate`).
        CommandKind::Help | CommandKind::AckDeploy | CommandKind::ApprovePolicies => None,
    }
}

/// Whether deciding `commands` needs the roots the PR affects (its module graph and changed
/// inputs, which cost a download): a bare `/plan`, `/apply` or `/inputs`, or any `/apply`
/// (only roots the PR affects can be applied).
pub fn needs_affected_roots(commands: &[Command]) -> bool {
    commands.iter().any(|c| match c.kind {
        CommandKind::Apply => true,
        CommandKind::Plan | CommandKind::Inputs => c.project.is_none() && c.dir.is_none(),
        CommandKind::Unlock
        | CommandKind::Cancel
        | CommandKind::Help
        | CommandKind::AckDeploy
        | CommandKind::ApprovePolicies => false,
    })
}

/// A bare command on a PR that changes no declared root (answered with
/// `NoticeBody::NoAffectedRoot`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoAffectedRoot;

/// The targets of a command: the one it names, or every root the PR affects. A bare
/// `/inputs` on a PR that affects no root is about the whole PR (the lock lines can be had on
/// any PR, under the policy's apply permission).
pub fn targets(
    cmd: &Command,
    policy: &RepoPolicy,
    facts: &PrFacts,
) -> Result<Vec<Target>, NoAffectedRoot> {
    if cmd.project.is_some() || cmd.dir.is_some() {
        return Ok(vec![Target {
            project: cmd.project.clone(),
            dir: cmd.dir.clone(),
            workspace: cmd.workspace.clone(),
        }]);
    }
    let affected = affected_projects(&facts.changes(), &policy.specs());
    if affected.is_empty() && cmd.kind == CommandKind::Inputs {
        return Ok(vec![Target::default()]);
    }
    if affected.is_empty() {
        return Err(NoAffectedRoot);
    }
    Ok(affected
        .into_iter()
        .map(|p| Target {
            project: Some(p.0),
            dir: None,
            workspace: cmd.workspace.clone(),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::parse_comment;
    use crate::policy::load_policy;

    const POLICY: &str = "repos: [\"o/r\"]\ndefaults:\n  plan_role: arn:aws:iam::111111111111:role/plan\n  apply_role: arn:aws:iam::111111111111:role/apply\nprojects:\n  - name: network\n    dir: infra/network\n  - name: eks\n    dir: infra/eks\n";

    fn cmd(text: &str) -> Command {
        parse_comment(text, "tfgate").remove(0).unwrap()
    }

    fn facts(files: &[&str]) -> PrFacts {
        PrFacts {
            changed_files: files.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn named_target_wins() {
        let p = load_policy("p.yaml", POLICY).unwrap();
        let t = targets(&cmd("/plan -p eks"), &p, &facts(&["infra/network/main.tf"])).unwrap();
        assert_eq!(t, vec![Target::project("eks")]);
    }

    #[test]
    fn bare_command_targets_affected_roots() {
        let p = load_policy("p.yaml", POLICY).unwrap();
        let t = targets(
            &cmd("/plan"),
            &p,
            &facts(&["infra/eks/main.tf", "README.md"]),
        )
        .unwrap();
        assert_eq!(t, vec![Target::project("eks")]);
        assert_eq!(
            targets(&cmd("/apply"), &p, &facts(&["README.md"])),
            Err(NoAffectedRoot)
        );
    }

    #[test]
    fn inputs_answers_on_any_pr() {
        let p = load_policy("p.yaml", POLICY).unwrap();
        assert_eq!(
            targets(&cmd("/inputs"), &p, &facts(&["README.md"])),
            Ok(vec![Target::default()])
        );
        assert_eq!(
            targets(&cmd("/inputs"), &p, &facts(&["infra/eks/main.tf"])),
            Ok(vec![Target::project("eks")])
        );
    }

    #[test]
    fn a_changed_lock_line_targets_the_roots_consuming_that_input() {
        let policy = format!("{POLICY}    inputs: [ZONE]\ninputs:\n  - name: ZONE\n    variable: zone\n    source: env:ZONE\n");
        let p = load_policy("p.yaml", &policy).unwrap();
        let mut f = facts(&["tfgate.inputs.lock"]);
        assert_eq!(targets(&cmd("/plan"), &p, &f), Err(NoAffectedRoot));
        f.changed_inputs = vec!["ZONE".into()];
        assert_eq!(
            targets(&cmd("/plan"), &p, &f),
            Ok(vec![Target::project("eks")])
        );
    }

    #[test]
    fn only_bare_commands_and_applies_need_the_affected_roots() {
        let cases = [
            ("/plan", true),
            ("/plan -p eks", false),
            ("/plan -d infra/eks", false),
            ("/apply -p eks", true),
            ("/apply", true),
            ("/inputs", true),
            ("/unlock", false),
            ("/cancel", false),
            ("/help", false),
        ];
        for (text, want) in cases {
            assert_eq!(needs_affected_roots(&[cmd(text)]), want, "{text}");
        }
        assert!(!needs_affected_roots(&[]));
        assert!(needs_affected_roots(&[cmd("/unlock"), cmd("/plan")]));
    }

    #[test]
    fn help_has_no_policy_command() {
        assert_eq!(policy_command(CommandKind::Help), None);
        assert_eq!(
            policy_command(CommandKind::Apply),
            Some(PolicyCommand::Apply)
        );
    }
}
