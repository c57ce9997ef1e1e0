//! `/cancel`: which of a PR's queued runs to drop or to shrink, and the one reply. Pure.
//!
//! A queued `run` job covers one or more projects. `/cancel` (allowed per project by policy)
//! drops a job whose projects are all cancelled and shrinks one where only some are, so that
//! `/cancel -p eks` never cancels the `network` plan queued in the same job.

use crate::webhook::run_job::RunJob;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CancelStep {
    /// Every project of the job is cancelled: the job goes.
    Drop { job_id: i64 },
    /// Some of its projects are: the job keeps the others.
    Shrink { job_id: i64, keep: RunJob },
}

/// The steps that cancel `projects` in the `queued` run jobs (id, payload), oldest first.
pub fn cancel_steps(queued: &[(i64, RunJob)], projects: &[String]) -> Vec<CancelStep> {
    queued
        .iter()
        .filter(|(_, run)| run.projects.iter().any(|p| projects.contains(p)))
        .map(|(job_id, run)| {
            let kept: Vec<String> = run
                .projects
                .iter()
                .filter(|p| !projects.contains(p))
                .cloned()
                .collect();
            if kept.is_empty() {
                CancelStep::Drop { job_id: *job_id }
            } else {
                let mut keep = run.clone();
                keep.projects = kept;
                CancelStep::Shrink {
                    job_id: *job_id,
                    keep,
                }
            }
        })
        .collect()
}

/// What a step cancelled: the command and the projects it no longer runs.
pub fn cancelled_by(step: &CancelStep, queued: &[(i64, RunJob)]) -> Option<(String, Vec<String>)> {
    let (id, keep) = match step {
        CancelStep::Drop { job_id } => (*job_id, None),
        CancelStep::Shrink { job_id, keep } => (*job_id, Some(keep)),
    };
    let (_, run) = queued.iter().find(|(j, _)| *j == id)?;
    let gone = run
        .projects
        .iter()
        .filter(|p| !matches!(keep, Some(k) if k.projects.contains(p)))
        .cloned()
        .collect();
    Some((run.command.clone(), gone))
}

const NEVER_STOPS_A_RUN: &str = "A run that has started is never stopped by a comment.";

/// The one reply to `/cancel`: what was cancelled (command and projects, in queue order), or
/// that nothing was queued for the projects asked about.
pub fn cancel_reply(asked: &[String], cancelled: &[(String, Vec<String>)]) -> String {
    let names = |ps: &[String]| {
        ps.iter()
            .map(|p| format!("`{p}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if cancelled.is_empty() {
        return format!(
            "Nothing to cancel: no queued plan or apply of {}. {NEVER_STOPS_A_RUN}",
            names(asked)
        );
    }
    let list = cancelled
        .iter()
        .map(|(command, projects)| format!("{command} of {}", names(projects)))
        .collect::<Vec<_>>()
        .join("; ");
    format!("Cancelled the queued {list}. {NEVER_STOPS_A_RUN}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::webhook::event::RepoRef;

    fn run(command: &str, projects: &[&str]) -> RunJob {
        RunJob {
            repo: RepoRef {
                installation_id: 1,
                owner: "o".into(),
                name: "r".into(),
            },
            number: 7,
            command: command.into(),
            projects: projects.iter().map(|p| p.to_string()).collect(),
            actor: "alice".into(),
            terraform_args: vec![],
            accept_inputs: vec![],
        }
    }

    fn names(ps: &[&str]) -> Vec<String> {
        ps.iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn steps_drop_whole_jobs_shrink_shared_ones_and_leave_the_rest() {
        let queued = vec![
            (1, run("plan", &["network", "eks"])),
            (2, run("apply", &["eks"])),
            (3, run("plan", &["argocd"])),
        ];
        let cases: Vec<(&[&str], Vec<CancelStep>)> = vec![
            (
                &["eks"],
                vec![
                    CancelStep::Shrink {
                        job_id: 1,
                        keep: run("plan", &["network"]),
                    },
                    CancelStep::Drop { job_id: 2 },
                ],
            ),
            (
                &["network", "eks", "argocd"],
                vec![
                    CancelStep::Drop { job_id: 1 },
                    CancelStep::Drop { job_id: 2 },
                    CancelStep::Drop { job_id: 3 },
                ],
            ),
            (&["vpc"], vec![]),
            (&[], vec![]),
        ];
        for (asked, want) in cases {
            assert_eq!(cancel_steps(&queued, &names(asked)), want, "{asked:?}");
        }
    }

    #[test]
    fn a_step_says_which_projects_it_cancelled() {
        let queued = vec![
            (1, run("plan", &["network", "eks"])),
            (2, run("apply", &["eks"])),
        ];
        let steps = cancel_steps(&queued, &names(&["eks"]));
        let done: Vec<_> = steps
            .iter()
            .filter_map(|s| cancelled_by(s, &queued))
            .collect();
        assert_eq!(
            done,
            vec![
                ("plan".to_string(), names(&["eks"])),
                ("apply".to_string(), names(&["eks"]))
            ]
        );
    }

    #[test]
    fn one_reply_names_what_was_cancelled_or_that_nothing_was_queued() {
        assert_eq!(
            cancel_reply(
                &names(&["eks", "network"]),
                &[
                    ("plan".into(), names(&["eks", "network"])),
                    ("apply".into(), names(&["eks"]))
                ]
            ),
            "Cancelled the queued plan of `eks`, `network`; apply of `eks`. A run that has \
             started is never stopped by a comment."
        );
        assert_eq!(
            cancel_reply(&names(&["eks"]), &[]),
            "Nothing to cancel: no queued plan or apply of `eks`. A run that has started is \
             never stopped by a comment."
        );
    }
}
