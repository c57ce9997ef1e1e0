//! Whether a run job may start: the PR head must still be the commit the policy decided on,
//! and only roots the policy still declares run. Pure.

use crate::model::job::{RunCommand, RunJob};

/// How a run job starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunStart {
    /// The PR head moved after the command was accepted: nothing runs.
    HeadMoved { authorised: String, current: String },
    /// Run `projects` (declared, in order); `gone` are no longer declared and are reported.
    Run {
        projects: Vec<String>,
        gone: Vec<String>,
    },
}

/// Decide the start of `job` given the PR's current head and which projects are declared.
/// A job queued before runs were bound to a commit (empty `head_sha`) never runs.
pub fn run_start(job: &RunJob, current_head: &str, declared: impl Fn(&str) -> bool) -> RunStart {
    if job.head_sha.is_empty() || job.head_sha != current_head {
        return RunStart::HeadMoved {
            authorised: job.head_sha.clone(),
            current: current_head.to_string(),
        };
    }
    let (projects, gone) = job.projects.iter().cloned().partition(|p| declared(p));
    RunStart::Run { projects, gone }
}

/// What a reclaimed run job does once the runs its dead worker left are marked interrupted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterInterruption {
    /// Run the job (again).
    Run,
    /// Run nothing: the job is recorded `interrupted` (the PR was told what completed).
    EndInterrupted,
}

/// A reclaimed job whose dead worker left an apply running is not run again: applying twice
/// is for a human to decide (the next `/apply` of that plan is refused, see `apply_step`). A
/// reclaimed plan starts over; a job that had no run going simply runs.
pub fn after_interruption(command: RunCommand, interrupted_runs: usize) -> AfterInterruption {
    if interrupted_runs == 0 || command == RunCommand::Plan {
        AfterInterruption::Run
    } else {
        AfterInterruption::EndInterrupted
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::RepoRef;

    fn job(head: &str) -> RunJob {
        RunJob {
            repo: RepoRef {
                installation_id: 1,
                owner: "o".into(),
                name: "r".into(),
            },
            number: 1,
            command: RunCommand::Apply,
            projects: vec!["network".into(), "eks".into(), "old".into()],
            actor: "alice".into(),
            head_sha: head.into(),
            plan_runs: Default::default(),
            plan_authors_checked: false,
            terraform_args: vec![],
            accept_inputs: vec![],
            comment_id: None,
            batch: None,
        }
    }

    #[test]
    fn start_table() {
        let declared = |p: &str| p != "old";
        let cases: Vec<(&str, &str, RunStart)> = vec![
            (
                "h1",
                "h1",
                RunStart::Run {
                    projects: vec!["network".into(), "eks".into()],
                    gone: vec!["old".into()],
                },
            ),
            (
                "h1",
                "h2",
                RunStart::HeadMoved {
                    authorised: "h1".into(),
                    current: "h2".into(),
                },
            ),
            (
                "",
                "h2",
                RunStart::HeadMoved {
                    authorised: "".into(),
                    current: "h2".into(),
                },
            ),
        ];
        for (authorised, current, want) in cases {
            assert_eq!(
                run_start(&job(authorised), current, declared),
                want,
                "{authorised} → {current}"
            );
        }
    }

    #[test]
    fn interrupted_applies_are_not_resumed() {
        use AfterInterruption::*;
        let cases = [
            (RunCommand::Apply, 0, Run),
            (RunCommand::Apply, 1, EndInterrupted),
            (RunCommand::Apply, 3, EndInterrupted),
            (RunCommand::Plan, 0, Run),
            (RunCommand::Plan, 2, Run),
        ];
        for (command, runs, want) in cases {
            assert_eq!(
                after_interruption(command, runs),
                want,
                "{command:?} {runs}"
            );
        }
    }
}
