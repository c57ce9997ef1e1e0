//! `/cancel`: which of a PR's queued runs to drop or to shrink, and the one reply. Pure.
//!
//! A queued `run` job covers one or more projects. `/cancel` (allowed per project by policy)
//! drops a job whose projects are all cancelled and shrinks one where only some are, so that
//! `/cancel -p eks` never cancels the `network` plan queued in the same job.

use crate::model::job::RunJob;
use crate::model::view::{CancelReport, CancelledRun};

/// What `/cancel` does to one queued run job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CancelStep {
    pub job_id: i64,
    /// The job with the projects it keeps; `None` when every one is cancelled and it goes.
    pub keep: Option<RunJob>,
    /// The job's command and the projects it no longer runs (for the reply).
    pub cancelled: (String, Vec<String>),
}

/// The steps that cancel `projects` in the `queued` run jobs (id, payload), oldest first.
pub fn cancel_steps(queued: &[(i64, RunJob)], projects: &[String]) -> Vec<CancelStep> {
    queued
        .iter()
        .filter_map(|(job_id, run)| {
            let (gone, kept): (Vec<String>, Vec<String>) = run
                .projects
                .iter()
                .cloned()
                .partition(|p| projects.contains(p));
            if gone.is_empty() {
                return None;
            }
            let keep = (!kept.is_empty()).then(|| RunJob {
                projects: kept,
                ..run.clone()
            });
            Some(CancelStep {
                job_id: *job_id,
                keep,
                cancelled: (run.command.name().to_string(), gone),
            })
        })
        .collect()
}

/// The one reply to `/cancel` as a view model (rendered by `cancel_report.md.j2`).
/// `cancelled` are the steps' `cancelled` parts of the jobs that were changed, in queue order.
pub fn cancel_report(asked: &[String], cancelled: &[(String, Vec<String>)]) -> CancelReport {
    CancelReport {
        asked: asked.to_vec(),
        cancelled: cancelled
            .iter()
            .map(|(command, projects)| CancelledRun {
                command: command.clone(),
                projects: projects.clone(),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::RepoRef;

    fn run(command: &str, projects: &[&str]) -> RunJob {
        RunJob {
            repo: RepoRef {
                installation_id: 1,
                owner: "o".into(),
                name: "r".into(),
            },
            number: 7,
            command: crate::model::job::RunCommand::parse(command).unwrap(),
            projects: projects.iter().map(|p| p.to_string()).collect(),
            actor: "alice".into(),
            head_sha: "h1".into(),
            plan_runs: Default::default(),
            plan_authors_checked: false,
            terraform_args: vec![],
            accept_inputs: vec![],
            comment_id: None,
            batch: None,
        }
    }

    fn names(ps: &[&str]) -> Vec<String> {
        ps.iter().map(|p| p.to_string()).collect()
    }

    fn step(job_id: i64, keep: Option<RunJob>, command: &str, gone: &[&str]) -> CancelStep {
        CancelStep {
            job_id,
            keep,
            cancelled: (command.to_string(), names(gone)),
        }
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
                    step(1, Some(run("plan", &["network"])), "plan", &["eks"]),
                    step(2, None, "apply", &["eks"]),
                ],
            ),
            (
                &["network", "eks", "argocd"],
                vec![
                    step(1, None, "plan", &["network", "eks"]),
                    step(2, None, "apply", &["eks"]),
                    step(3, None, "plan", &["argocd"]),
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
    fn the_report_names_what_was_cancelled_or_that_nothing_was_queued() {
        use crate::model::view::{Notice, NoticeBody};
        use crate::render::{samples_meta, Renderer};
        let renderer = Renderer::new().unwrap();
        // (asked, cancelled (command, projects))
        type Case = (Vec<String>, Vec<(String, Vec<String>)>);
        let cases: Vec<Case> = vec![
            (
                names(&["eks", "network"]),
                vec![
                    ("plan".into(), names(&["eks", "network"])),
                    ("apply".into(), names(&["eks"])),
                ],
            ),
            (names(&["eks"]), vec![]),
        ];
        let mut texts = Vec::new();
        for (asked, cancelled) in cases {
            let notice = Notice {
                meta: samples_meta(7),
                body: NoticeBody::CancelReport(cancel_report(&asked, &cancelled)),
            };
            texts.push(renderer.render_notice(&notice).unwrap());
        }
        assert!(
            texts[0].starts_with(
                "Cancelled the queued plan of `eks`, `network`; apply of `eks`. A run that has \
             started is never stopped by a comment.\n"
            ),
            "{}",
            texts[0]
        );
        assert!(
            texts[1].starts_with(
                "Nothing to cancel: no queued plan or apply of `eks`. A run that has started is \
             never stopped by a comment.\n"
            ),
            "{}",
            texts[1]
        );
    }
}
