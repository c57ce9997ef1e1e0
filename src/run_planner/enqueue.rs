//! Allowed commands → what to do: run jobs (one per command and argument list, roots in
//! dependency order, bound to the authorised head), locks to release, runs to cancel, and
//! whether to answer `/inputs`. Pure.

use std::collections::BTreeMap;

use crate::command::CommandKind;
use crate::model::job::{RunCommand, RunJob};
use crate::model::RepoRef;
use crate::project::{order_by_dependencies, ProjectId, ProjectSpec};

use super::decisions::AllowedTarget;

/// Who asked, where, and the PR head the policy decided on.
#[derive(Debug, Clone)]
pub struct CommandRequest<'a> {
    pub repo: &'a RepoRef,
    pub number: i64,
    pub actor: &'a str,
    pub head_sha: &'a str,
    pub comment_id: i64,
}

/// Everything a comment's allowed commands ask for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandActions {
    /// `/unlock` targets: a project, or `None` for every lock of the PR.
    pub unlock: Vec<Option<String>>,
    /// Projects whose queued runs `/cancel` drops, once each.
    pub cancel: Vec<String>,
    /// `/inputs` was asked (answered once).
    pub inputs: bool,
    pub runs: Vec<RunJob>,
}

/// The run command of a parsed command kind; `None` for commands that run nothing.
pub fn run_command(kind: CommandKind) -> Option<RunCommand> {
    match kind {
        CommandKind::Plan => Some(RunCommand::Plan),
        CommandKind::Apply => Some(RunCommand::Apply),
        _ => None,
    }
}

/// The projects allowed `/apply`, whose current plan run the apply job names.
pub fn apply_projects(allowed: &[AllowedTarget]) -> Vec<String> {
    let mut out: Vec<String> = allowed
        .iter()
        .filter(|a| a.command.kind == CommandKind::Apply)
        .filter_map(|a| a.project.clone())
        .collect();
    out.sort();
    out.dedup();
    out
}

type RunGroup = (RunCommand, Vec<String>, Vec<String>, Vec<ProjectId>);

/// Group the allowed commands. `plan_runs`: the current plan run of each project (for
/// `/apply`), each one's author and flags already checked (`plan_author`); the apply job says
/// so. Fails only when the policy's dependencies form a cycle.
pub fn command_actions(
    req: &CommandRequest<'_>,
    allowed: &[AllowedTarget],
    specs: &[ProjectSpec],
    plan_runs: &BTreeMap<String, i64>,
) -> Result<CommandActions, String> {
    let mut actions = CommandActions::default();
    // (command, terraform args, accepted inputs, projects): one run job each.
    let mut groups: Vec<RunGroup> = Vec::new();
    for a in allowed {
        match (a.command.kind, run_command(a.command.kind)) {
            (_, Some(command)) => {
                let Some(project) = &a.project else { continue };
                let args: Vec<String> = a
                    .command
                    .terraform_args
                    .iter()
                    .map(|t| t.to_cli_arg())
                    .collect();
                let group = match groups
                    .iter_mut()
                    .position(|g| g.0 == command && g.1 == args)
                {
                    Some(i) => &mut groups[i],
                    None => {
                        groups.push((command, args, a.command.accept_inputs.clone(), Vec::new()));
                        groups.last_mut().expect("just pushed")
                    }
                };
                if !group.3.iter().any(|p| &p.0 == project) {
                    group.3.push(ProjectId::new(project.clone()));
                }
            }
            (CommandKind::Unlock, None) => actions.unlock.push(a.project.clone()),
            (CommandKind::Cancel, None) => {
                if let Some(p) = a.project.as_ref().filter(|p| !actions.cancel.contains(p)) {
                    actions.cancel.push(p.clone());
                }
            }
            (CommandKind::Inputs, None) => actions.inputs = true,
            _ => {}
        }
    }
    for (command, terraform_args, accept_inputs, projects) in groups {
        let ordered = order_by_dependencies(&projects, specs)
            .map_err(|e| format!("ordering projects: {e}"))?;
        let projects: Vec<String> = ordered.into_iter().map(|p| p.0).collect();
        let plan_runs = match command {
            RunCommand::Apply => projects
                .iter()
                .filter_map(|p| plan_runs.get(p).map(|id| (p.clone(), *id)))
                .collect(),
            RunCommand::Plan => BTreeMap::new(),
        };
        actions.runs.push(RunJob {
            repo: req.repo.clone(),
            number: req.number,
            command,
            projects,
            actor: req.actor.to_string(),
            head_sha: req.head_sha.to_string(),
            plan_authors_checked: command == RunCommand::Apply,
            plan_runs,
            terraform_args,
            accept_inputs,
            comment_id: Some(req.comment_id),
            batch: None,
        });
    }
    Ok(actions)
}

/// How often a run job may be tried: an apply never runs twice on its own (a failure is
/// reported and a human decides); a plan is retried like any job.
pub fn max_attempts(command: RunCommand, configured: i64) -> i64 {
    match command {
        RunCommand::Apply => 1,
        RunCommand::Plan => configured,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::parse_comment;
    use crate::policy::{load_policy, Target};

    const POLICY: &str = "repos: [\"o/r\"]\ndefaults:\n  plan_role: arn:aws:iam::111111111111:role/plan\n  apply_role: arn:aws:iam::111111111111:role/apply\nprojects:\n  - name: app\n    dir: infra/app\n    depends_on: [network]\n  - name: network\n    dir: infra/network\n";

    fn repo() -> RepoRef {
        RepoRef {
            owner: "o".into(),
            name: "r".into(),
            installation_id: 1,
        }
    }

    fn allowed(text: &str, projects: &[&str]) -> Vec<AllowedTarget> {
        let mut out = Vec::new();
        for cmd in parse_comment(text, "tfgate")
            .into_iter()
            .map(Result::unwrap)
        {
            for p in projects {
                out.push(AllowedTarget {
                    command: cmd.clone(),
                    target: Target::project(p),
                    project: Some(p.to_string()),
                });
            }
        }
        out
    }

    fn actions(text: &str, projects: &[&str], plans: &[(&str, i64)]) -> CommandActions {
        let policy = load_policy("p.yaml", POLICY).unwrap();
        let req = CommandRequest {
            repo: &repo(),
            number: 7,
            actor: "alice",
            head_sha: "h1",
            comment_id: 5,
        };
        let plans = plans.iter().map(|(p, id)| (p.to_string(), *id)).collect();
        command_actions(&req, &allowed(text, projects), &policy.specs(), &plans).unwrap()
    }

    #[test]
    fn one_plan_job_in_dependency_order_bound_to_the_head() {
        let a = actions("/plan", &["app", "network"], &[]);
        assert_eq!(a.runs.len(), 1);
        let run = &a.runs[0];
        assert_eq!(run.command, RunCommand::Plan);
        assert_eq!(run.projects, vec!["network", "app"]);
        assert_eq!(run.head_sha, "h1");
        assert!(run.plan_runs.is_empty());
    }

    #[test]
    fn apply_names_the_plan_run_of_each_project_it_has() {
        let a = actions("/apply", &["app", "network"], &[("network", 41)]);
        let run = &a.runs[0];
        assert_eq!(run.command, RunCommand::Apply);
        assert_eq!(run.plan_runs.get("network"), Some(&41));
        assert_eq!(run.plan_runs.get("app"), None);
    }

    #[test]
    fn different_arguments_make_different_jobs() {
        let a = actions("/plan -- -target=a.b\n/plan", &["app"], &[]);
        assert_eq!(a.runs.len(), 2);
        assert_eq!(a.runs[0].terraform_args, vec!["-target=a.b"]);
        assert!(a.runs[1].terraform_args.is_empty());
    }

    #[test]
    fn plan_and_apply_in_one_comment_are_two_jobs() {
        let a = actions("/plan\n/apply", &["app"], &[]);
        let commands: Vec<RunCommand> = a.runs.iter().map(|r| r.command).collect();
        assert_eq!(commands, vec![RunCommand::Plan, RunCommand::Apply]);
    }

    #[test]
    fn unlock_cancel_and_inputs_run_nothing() {
        let a = actions("/unlock\n/cancel\n/cancel\n/inputs", &["app"], &[]);
        assert!(a.runs.is_empty());
        assert_eq!(a.unlock, vec![Some("app".to_string())]);
        assert_eq!(a.cancel, vec!["app"]);
        assert!(a.inputs);
    }

    #[test]
    fn apply_is_tried_once() {
        assert_eq!(max_attempts(RunCommand::Apply, 5), 1);
        assert_eq!(max_attempts(RunCommand::Plan, 5), 5);
    }

    #[test]
    fn apply_projects_are_listed_once() {
        let list = allowed("/apply\n/plan", &["app", "network"]);
        assert_eq!(apply_projects(&list), vec!["app", "network"]);
    }
}
