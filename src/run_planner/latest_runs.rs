//! Which of a PR's stored runs the `tfgate/apply` check looks at: each affected root's latest
//! plan and latest apply (same project and workspace), and how many resources that plan
//! changes. Pure; the worker reads the runs (oldest first) and posts the check.

use super::apply_status::{LatestPlan, RootRuns};
use super::record::{PlanRecord, RunStatus};

/// What a stored run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunKind {
    Plan,
    Apply,
}

/// One stored run of the PR, as far as the check needs it.
#[derive(Debug, Clone, Copy)]
pub struct StoredRun<'a> {
    pub id: i64,
    pub project: &'a str,
    pub workspace: &'a str,
    /// `None` for a command the check does not count.
    pub kind: Option<RunKind>,
    pub head_sha: &'a str,
    pub status: Option<RunStatus>,
    /// The run's record (`PlanRecord` JSON for a plan).
    pub outcome: Option<&'a str>,
}

/// An affected root: its project and workspace.
#[derive(Debug, Clone, Copy)]
pub struct AffectedRoot<'a> {
    pub project: &'a str,
    pub workspace: &'a str,
}

/// The latest plan and apply of each root among `runs` (oldest first), in the roots' order.
pub fn latest_runs(runs: &[StoredRun<'_>], roots: &[AffectedRoot<'_>]) -> Vec<RootRuns> {
    roots
        .iter()
        .map(|root| {
            let latest = |kind: RunKind| {
                runs.iter().rev().find(|r| {
                    r.project == root.project
                        && r.workspace == root.workspace
                        && r.kind == Some(kind)
                })
            };
            RootRuns {
                project: root.project.to_string(),
                plan: latest(RunKind::Plan).map(|r| LatestPlan {
                    id: r.id,
                    head_sha: r.head_sha.to_string(),
                    status: r.status,
                    changes: r.outcome.and_then(PlanRecord::decode).map(|rec| {
                        rec.counts.add + rec.counts.change + rec.counts.destroy + rec.counts.replace
                    }),
                    stale_by: None,
                }),
                apply: latest(RunKind::Apply).map(|r| (r.id, r.status)),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use RunKind::*;
    use RunStatus::*;

    fn run<'a>(
        id: i64,
        (project, workspace): (&'a str, &'a str),
        kind: Option<RunKind>,
        status: RunStatus,
        outcome: Option<&'a str>,
    ) -> StoredRun<'a> {
        StoredRun {
            id,
            project,
            workspace,
            kind,
            head_sha: "h1",
            status: Some(status),
            outcome,
        }
    }

    const PLAN_3: &str = r#"{"counts":{"add":1,"change":1,"destroy":0,"replace":1,"read":4}}"#;

    #[test]
    fn each_root_gets_its_latest_plan_and_apply() {
        let app = ("app", "default");
        let runs = [
            run(1, app, Some(Plan), Planned, Some(PLAN_3)),
            run(2, app, Some(Apply), ApplyFailed, None),
            run(3, app, Some(Plan), Planned, Some("not json")),
            run(4, ("app", "prod"), Some(Plan), PlanFailed, None),
            run(5, app, None, Planned, None),
            run(6, ("net", "default"), Some(Apply), Applied, None),
        ];
        let roots = |project, workspace| AffectedRoot { project, workspace };
        let got = latest_runs(
            &runs,
            &[
                roots("app", "default"),
                roots("app", "prod"),
                roots("net", "default"),
                roots("db", "default"),
            ],
        );
        let plan = |id, status, changes| {
            Some(LatestPlan {
                id,
                head_sha: "h1".into(),
                status: Some(status),
                changes,
                stale_by: None,
            })
        };
        let want = [
            // The latest plan, whose record does not decode: its changes are unknown.
            ("app", plan(3, Planned, None), Some((2, Some(ApplyFailed)))),
            ("app", plan(4, PlanFailed, None), None),
            ("net", None, Some((6, Some(Applied)))),
            ("db", None, None),
        ];
        let want: Vec<RootRuns> = want
            .into_iter()
            .map(|(project, plan, apply)| RootRuns {
                project: project.into(),
                plan,
                apply,
            })
            .collect();
        assert_eq!(got, want);
        // A plan's changes: adds, changes, destroys and replaces (reads do not count).
        let one = latest_runs(&runs[..1], &[roots("app", "default")]);
        assert_eq!(one[0].plan.as_ref().unwrap().changes, Some(3));
    }
}
