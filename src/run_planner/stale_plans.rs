//! Plans made stale by another PR's apply (pure). When PR A's apply of a root changed its
//! state, every other PR whose latest plan of that root finished before that apply started
//! was made against the old state: Terraform would refuse it, so the PR is told at once
//! (banner on the plan comment, `tfgate/apply` check) instead of at `/apply` time.

use super::record::{ApplyRecord, RunStatus};

/// Whether an apply run changed the root's state: it applied, or it failed or was interrupted
/// after completing some resources.
pub fn changed_state(status: Option<RunStatus>, record: Option<&ApplyRecord>) -> bool {
    let done = record.is_some_and(|r| r.counts.done > 0 || !r.completed.is_empty());
    match status {
        Some(RunStatus::Applied) => true,
        Some(RunStatus::ApplyFailed | RunStatus::Interrupted) => done,
        _ => false,
    }
}

/// The apply that changed a root's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateChange {
    pub pr: i64,
    /// When the apply run started (ms).
    pub started_at: i64,
}

/// One stored plan or apply run of the root in some PR, as far as staleness needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootRun {
    pub id: i64,
    pub pr: i64,
    pub job_id: Option<i64>,
    /// The commit it ran at.
    pub head_sha: String,
    pub is_plan: bool,
    pub status: Option<RunStatus>,
    /// When the run finished (ms); `None` while it runs.
    pub finished_at: Option<i64>,
}

/// A PR's plan that the state change made stale.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StalePlan {
    pub pr: i64,
    pub run_id: i64,
    /// The commit it planned.
    pub head_sha: String,
    /// The job that planned it (its result comment is the one to mark).
    pub job_id: Option<i64>,
}

/// The plans `change` made stale among `runs` (the root's runs in every PR, any order): for
/// each other PR, its latest plan run, when it planned successfully, finished before the
/// apply started, and was not applied by its own PR since. In PR order.
pub fn stale_plans(change: &StateChange, runs: &[RootRun]) -> Vec<StalePlan> {
    let mut prs: Vec<i64> = runs
        .iter()
        .map(|r| r.pr)
        .filter(|pr| *pr != change.pr)
        .collect();
    prs.sort_unstable();
    prs.dedup();
    prs.into_iter()
        .filter_map(|pr| {
            let latest = |plan: bool| {
                runs.iter()
                    .filter(|r| r.pr == pr && r.is_plan == plan)
                    .max_by_key(|r| r.id)
            };
            let plan = latest(true)?;
            let made_before = plan.finished_at.is_some_and(|f| f <= change.started_at);
            let own_apply_since = latest(false)
                .is_some_and(|a| a.id > plan.id && a.status == Some(RunStatus::Applied));
            (plan.status == Some(RunStatus::Planned) && made_before && !own_apply_since).then_some(
                StalePlan {
                    pr,
                    run_id: plan.id,
                    head_sha: plan.head_sha.clone(),
                    job_id: plan.job_id,
                },
            )
        })
        .collect()
}

/// The state change (among `applies`, other PRs' applies of the root) that made a plan which
/// finished at `plan_finished_at` stale: the latest one that changed the state and started
/// after the plan finished. `applies` is `(run, changed_state, started_at)`.
pub fn stale_by(
    plan_finished_at: Option<i64>,
    applies: &[(i64, bool, StateChange)],
) -> Option<StateChange> {
    let finished = plan_finished_at?;
    applies
        .iter()
        .filter(|(_, changed, c)| *changed && c.started_at >= finished)
        .max_by_key(|(id, _, _)| *id)
        .map(|(_, _, c)| *c)
}

/// The plan comment `body` with `banner` (which starts with its hidden `marker`) on top;
/// `None` when there is nothing to do: the comment has this root's banner already (a retried
/// job), or it was folded under a newer plan (its body starts with `folded_prefix`).
pub fn with_banner(body: &str, banner: &str, marker: &str, folded_prefix: &str) -> Option<String> {
    if body.contains(marker) || body.starts_with(folded_prefix) {
        return None;
    }
    Some(format!("{banner}\n\n{body}"))
}

/// Whether a stale plan is planned again by tfgate (`replan_on_apply`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replan {
    /// Queue a plan of the root now.
    Now,
    /// PR `.0` holds the root's lock (the applying PR keeps it until it is merged, closed or
    /// `/unlock`ed): plan again when it releases it.
    AfterRelease(i64),
    /// Not asked for, the PR's head moved since (the new head was never authorised to be
    /// planned), or a plan of the root is queued already.
    No,
}

/// The facts a re-plan is decided on.
#[derive(Debug, Clone, Copy)]
pub struct ReplanFacts {
    /// The policy sets `replan_on_apply`.
    pub wanted: bool,
    /// The PR's head is the commit the stale plan planned.
    pub same_head: bool,
    /// The PR holding the root's lock, if any.
    pub lock_holder: Option<i64>,
    /// A queued run job of the PR plans the root already.
    pub queued: bool,
}

pub fn replan(pr: i64, facts: ReplanFacts) -> Replan {
    if !facts.wanted || !facts.same_head || facts.queued {
        return Replan::No;
    }
    match facts.lock_holder {
        Some(holder) if holder != pr => Replan::AfterRelease(holder),
        _ => Replan::Now,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::view::ApplyCounts;
    use RunStatus::*;

    fn plan(id: i64, pr: i64, status: RunStatus, finished_at: Option<i64>) -> RootRun {
        RootRun {
            id,
            pr,
            job_id: Some(id * 10),
            head_sha: "h1".into(),
            is_plan: true,
            status: Some(status),
            finished_at,
        }
    }

    fn apply(id: i64, pr: i64, status: RunStatus) -> RootRun {
        RootRun {
            is_plan: false,
            ..plan(id, pr, status, Some(0))
        }
    }

    #[test]
    fn which_plans_an_apply_makes_stale() {
        let change = StateChange {
            pr: 1,
            started_at: 1000,
        };
        let cases: Vec<(&str, Vec<RootRun>, Vec<i64>)> = vec![
            (
                "another PR's plan made before",
                vec![plan(2, 2, Planned, Some(900))],
                vec![2],
            ),
            (
                "finished exactly when the apply started",
                vec![plan(2, 2, Planned, Some(1000))],
                vec![2],
            ),
            (
                "made after the apply started",
                vec![plan(2, 2, Planned, Some(1001))],
                vec![],
            ),
            ("still running", vec![plan(2, 2, Running, None)], vec![]),
            (
                "the applying PR's own plan",
                vec![plan(2, 1, Planned, Some(900))],
                vec![],
            ),
            (
                "a failed plan",
                vec![plan(2, 2, PlanFailed, Some(900))],
                vec![],
            ),
            (
                "only the latest plan of a PR counts",
                vec![
                    plan(2, 2, Planned, Some(900)),
                    plan(3, 2, Planned, Some(1100)),
                ],
                vec![],
            ),
            (
                "a newer stale plan after an older one",
                vec![
                    plan(2, 2, Planned, Some(500)),
                    plan(3, 2, Planned, Some(900)),
                ],
                vec![3],
            ),
            (
                "applied by its own PR since",
                vec![plan(2, 2, Planned, Some(900)), apply(3, 2, Applied)],
                vec![],
            ),
            (
                "its own apply failed",
                vec![plan(2, 2, Planned, Some(900)), apply(3, 2, ApplyFailed)],
                vec![2],
            ),
            (
                "an own apply before the plan",
                vec![apply(2, 2, Applied), plan(3, 2, Planned, Some(900))],
                vec![3],
            ),
            (
                "several PRs, in PR order",
                vec![
                    plan(5, 4, Planned, Some(900)),
                    plan(2, 3, Planned, Some(800)),
                ],
                vec![2, 5],
            ),
        ];
        for (name, runs, want) in cases {
            let got: Vec<i64> = stale_plans(&change, &runs)
                .iter()
                .map(|s| s.run_id)
                .collect();
            assert_eq!(got, want, "{name}");
        }
        let got = stale_plans(&change, &[plan(2, 2, Planned, Some(900))]);
        assert_eq!(
            got,
            [StalePlan {
                pr: 2,
                run_id: 2,
                head_sha: "h1".into(),
                job_id: Some(20)
            }]
        );
    }

    #[test]
    fn which_applies_change_the_state() {
        let partial = ApplyRecord {
            counts: ApplyCounts {
                done: 1,
                failed: 1,
                not_reached: 0,
            },
            ..ApplyRecord::default()
        };
        let crashed = ApplyRecord {
            completed: vec!["aws_s3_bucket.a".into()],
            ..ApplyRecord::default()
        };
        let nothing = ApplyRecord::default();
        let cases = [
            (Some(Applied), None, true),
            (Some(ApplyFailed), Some(&partial), true),
            (Some(ApplyFailed), Some(&nothing), false),
            (Some(ApplyFailed), None, false),
            (Some(Interrupted), Some(&crashed), true),
            (Some(Interrupted), Some(&nothing), false),
            (Some(Running), Some(&partial), false),
            (Some(Planned), None, false),
            (None, None, false),
        ];
        for (status, record, want) in cases {
            assert_eq!(changed_state(status, record), want, "{status:?} {record:?}");
        }
    }

    #[test]
    fn the_latest_state_change_after_the_plan_names_the_pr() {
        let at = |pr, started_at| StateChange { pr, started_at };
        let applies = [
            (4, true, at(1, 1000)),
            (7, true, at(3, 2000)),
            (9, false, at(5, 3000)),
        ];
        assert_eq!(stale_by(Some(900), &applies), Some(at(3, 2000)));
        assert_eq!(stale_by(Some(1500), &applies), Some(at(3, 2000)));
        assert_eq!(stale_by(Some(2500), &applies), None);
        assert_eq!(stale_by(None, &applies), None);
        assert_eq!(stale_by(Some(0), &[]), None);
    }

    #[test]
    fn the_banner_goes_on_top_once_and_never_on_a_folded_comment() {
        let (banner, marker, folded) = ("<!-- m -->\n> stale", "<!-- m -->", "<details>");
        let body = "## tfgate plan\n\nbody";
        let marked = with_banner(body, banner, marker, folded).unwrap();
        assert_eq!(marked, "<!-- m -->\n> stale\n\n## tfgate plan\n\nbody");
        assert_eq!(with_banner(&marked, banner, marker, folded), None);
        assert_eq!(
            with_banner("<details><summary>x", banner, marker, folded),
            None
        );
        // Another root's banner does not count as this one's.
        let other = with_banner(&marked, "<!-- n -->\n> stale", "<!-- n -->", folded);
        assert!(other.unwrap().starts_with("<!-- n -->"));
    }

    #[test]
    fn when_a_stale_plan_is_planned_again() {
        let facts = |wanted, same_head, lock_holder, queued| ReplanFacts {
            wanted,
            same_head,
            lock_holder,
            queued,
        };
        let cases = [
            ("not asked for", facts(false, true, None, false), Replan::No),
            ("head moved", facts(true, false, None, false), Replan::No),
            ("free root", facts(true, true, None, false), Replan::Now),
            (
                "a plan is queued",
                facts(true, true, None, true),
                Replan::No,
            ),
            ("own lock", facts(true, true, Some(2), false), Replan::Now),
            (
                "locked by the applier",
                facts(true, true, Some(1), false),
                Replan::AfterRelease(1),
            ),
        ];
        for (name, f, want) in cases {
            assert_eq!(replan(2, f), want, "{name}");
        }
    }
}
