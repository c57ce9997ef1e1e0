//! The `tfgate/apply` check (pure): a PR may be merged when every root it affects has had its
//! plan of the head applied, or that plan changes nothing. Otherwise the check lists the roots
//! left and what each still needs; a PR merged anyway is told the same list.

use crate::model::{ApplyCheckKind, ApplyCheckRoot, ApplyCheckText};
use serde::{Deserialize, Serialize};

use super::record::RunStatus;

/// The check run's name.
pub const CHECK_NAME: &str = "tfgate/apply";

/// A root's latest plan run, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatestPlan {
    pub id: i64,
    pub head_sha: String,
    pub status: Option<RunStatus>,
    /// Resource changes in the plan; `None` when its record does not decode.
    pub changes: Option<u32>,
    /// Another PR's apply changed the root's state after this plan was made
    /// (`run_planner::stale_plans::stale_by`): the PR and when (`YYYY-MM-DD HH:MM UTC`).
    pub stale_by: Option<(i64, String)>,
}

/// What one affected root knows of its runs in this PR.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootRuns {
    pub project: String,
    pub plan: Option<LatestPlan>,
    /// The root's latest apply run (id, status).
    pub apply: Option<(i64, Option<RunStatus>)>,
}

/// What a root still needs before merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RootLeft {
    /// No plan of the head yet (or one is running).
    NotPlanned,
    /// The head's plan failed.
    PlanFailed,
    /// Planned with changes, not applied.
    NotApplied,
    /// An apply of the head's plan failed or was interrupted.
    ApplyFailed,
    /// Planned, but another PR's apply changed the root's state since: plan again.
    Stale,
}

impl RootLeft {
    pub fn label(self) -> &'static str {
        match self {
            RootLeft::NotPlanned => "not planned at the head",
            RootLeft::PlanFailed => "plan failed",
            RootLeft::NotApplied => "planned, not applied",
            RootLeft::ApplyFailed => "apply failed",
            RootLeft::Stale => "plan out of date: another PR applied this root since",
        }
    }
}

/// What `root` still needs at `head`; `None` when it is done.
pub fn root_left(head: &str, root: &RootRuns) -> Option<RootLeft> {
    let Some(plan) = root.plan.as_ref().filter(|p| p.head_sha == head) else {
        return Some(RootLeft::NotPlanned);
    };
    match plan.status {
        Some(RunStatus::Planned) => {}
        Some(RunStatus::PlanFailed) => return Some(RootLeft::PlanFailed),
        _ => return Some(RootLeft::NotPlanned),
    }
    if plan.changes == Some(0) && plan.stale_by.is_none() {
        return None;
    }
    match root.apply {
        Some((id, Some(RunStatus::Applied))) if id > plan.id => None,
        Some((id, Some(RunStatus::ApplyFailed | RunStatus::Interrupted))) if id > plan.id => {
            Some(RootLeft::ApplyFailed)
        }
        _ if plan.stale_by.is_some() => Some(RootLeft::Stale),
        _ => Some(RootLeft::NotApplied),
    }
}

/// Why `root` is left, for the check: a stale plan names the PR that applied the root and
/// what to do.
fn left_text(root: &RootRuns, left: RootLeft) -> String {
    let stale_by = root.plan.as_ref().and_then(|p| p.stale_by.as_ref());
    match (left, stale_by) {
        (RootLeft::Stale, Some((pr, at))) => format!(
            "plan out of date: #{pr} applied this root at {at}; the PR's author or anyone allowed \
             to plan it can comment `/plan -p {}` to plan it again",
            root.project.replace('`', "'")
        ),
        _ => left.label().to_string(),
    }
}

/// The check run of a head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyCheck {
    /// `success` or `action_required`.
    pub conclusion: &'static str,
    /// What the check says (title and summary come from `apply_check.md.j2`).
    pub text: ApplyCheckText,
    /// The roots left, in the order given.
    pub left: Vec<(String, RootLeft)>,
}

/// The `tfgate/apply` check of `head` over the PR's affected roots. `complete` is false when
/// the roots could not all be found (a module graph or the inputs lock could not be read):
/// then the check never passes, since a root the PR affects may be missing from the list.
pub fn apply_check(head: &str, roots: &[RootRuns], complete: bool) -> ApplyCheck {
    let left: Vec<(String, RootLeft)> = roots
        .iter()
        .filter_map(|r| root_left(head, r).map(|l| (r.project.clone(), l)))
        .collect();
    let rows = roots
        .iter()
        .map(|root| ApplyCheckRoot {
            project: root.project.replace('`', "'"),
            left: left
                .iter()
                .find(|(p, _)| *p == root.project)
                .map(|(_, l)| left_text(root, *l)),
        })
        .collect();
    let (conclusion, kind) = match (roots.is_empty(), left.len()) {
        _ if !complete => ("action_required", ApplyCheckKind::Incomplete),
        (true, _) => ("success", ApplyCheckKind::NoRoot),
        (false, 0) => ("success", ApplyCheckKind::Done),
        (false, _) => ("action_required", ApplyCheckKind::Left),
    };
    ApplyCheck {
        conclusion,
        text: ApplyCheckText {
            kind,
            roots: rows,
            left: left.len(),
        },
        left,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(id: i64, head: &str, status: RunStatus, changes: u32) -> Option<LatestPlan> {
        Some(LatestPlan {
            id,
            head_sha: head.into(),
            status: Some(status),
            changes: Some(changes),
            stale_by: None,
        })
    }

    fn root(plan: Option<LatestPlan>, apply: Option<(i64, RunStatus)>) -> RootRuns {
        RootRuns {
            project: "eks".into(),
            plan,
            apply: apply.map(|(id, s)| (id, Some(s))),
        }
    }

    #[test]
    fn root_left_table() {
        use RunStatus::*;
        let cases = [
            ("no plan", root(None, None), Some(RootLeft::NotPlanned)),
            (
                "planned an older head",
                root(plan(5, "h0", Planned, 1), None),
                Some(RootLeft::NotPlanned),
            ),
            (
                "plan running",
                root(plan(5, "h1", Running, 0), None),
                Some(RootLeft::NotPlanned),
            ),
            (
                "plan failed",
                root(plan(5, "h1", PlanFailed, 0), None),
                Some(RootLeft::PlanFailed),
            ),
            ("no changes", root(plan(5, "h1", Planned, 0), None), None),
            (
                "changes, not applied",
                root(plan(5, "h1", Planned, 2), None),
                Some(RootLeft::NotApplied),
            ),
            (
                "applied after the plan",
                root(plan(5, "h1", Planned, 2), Some((6, Applied))),
                None,
            ),
            (
                "applied an older plan",
                root(plan(5, "h1", Planned, 2), Some((4, Applied))),
                Some(RootLeft::NotApplied),
            ),
            (
                "apply failed",
                root(plan(5, "h1", Planned, 2), Some((6, ApplyFailed))),
                Some(RootLeft::ApplyFailed),
            ),
            (
                "apply interrupted",
                root(plan(5, "h1", Planned, 2), Some((6, Interrupted))),
                Some(RootLeft::ApplyFailed),
            ),
        ];
        for (name, r, want) in cases {
            assert_eq!(root_left("h1", &r), want, "{name}");
        }
        let stale = |changes, apply| {
            let plan = plan(5, "h1", Planned, changes).map(|p| LatestPlan {
                stale_by: Some((12, "2026-12-06 12:03 UTC".into())),
                ..p
            });
            root(plan, apply)
        };
        let stale_cases = [
            ("stale, changes", stale(2, None), Some(RootLeft::Stale)),
            ("stale, no changes", stale(0, None), Some(RootLeft::Stale)),
            ("stale, applied since", stale(2, Some((6, Applied))), None),
            (
                "stale, apply failed",
                stale(2, Some((6, ApplyFailed))),
                Some(RootLeft::ApplyFailed),
            ),
            (
                "stale, older apply",
                stale(2, Some((4, Applied))),
                Some(RootLeft::Stale),
            ),
        ];
        for (name, r, want) in stale_cases {
            assert_eq!(root_left("h1", &r), want, "{name}");
        }
        let check = apply_check("h1", &[stale(2, None)], true);
        assert_eq!(check.conclusion, "action_required");
        assert_eq!(
            check.text.roots[0].left.as_deref(),
            Some(
                "plan out of date: #12 applied this root at 2026-12-06 12:03 UTC; the PR's \
                 author or anyone allowed to plan it can comment `/plan -p eks` to plan it again"
            )
        );
        let unreadable = RootRuns {
            plan: Some(LatestPlan {
                changes: None,
                ..plan(5, "h1", Planned, 0).unwrap()
            }),
            ..root(None, None)
        };
        assert_eq!(root_left("h1", &unreadable), Some(RootLeft::NotApplied));
    }

    #[test]
    fn the_check_lists_every_root_and_passes_only_when_none_is_left() {
        let done = RootRuns {
            project: "network".into(),
            ..root(plan(3, "h1", RunStatus::Planned, 0), None)
        };
        let waiting = root(plan(5, "h1", RunStatus::Planned, 2), None);
        let check = apply_check("h1", &[done.clone(), waiting], true);
        assert_eq!(check.conclusion, "action_required");
        assert_eq!(check.text.kind, ApplyCheckKind::Left);
        assert_eq!(check.text.left, 1);
        assert_eq!(
            check.text.roots,
            [
                ApplyCheckRoot {
                    project: "network".into(),
                    left: None
                },
                ApplyCheckRoot {
                    project: "eks".into(),
                    left: Some("planned, not applied".into())
                },
            ]
        );
        assert_eq!(check.left, [("eks".to_string(), RootLeft::NotApplied)]);
        let check = apply_check("h1", std::slice::from_ref(&done), true);
        assert_eq!(check.conclusion, "success");
        let unsure = apply_check("h1", &[done], false);
        assert_eq!(
            (unsure.conclusion, unsure.text.kind),
            ("action_required", ApplyCheckKind::Incomplete)
        );
        let none = apply_check("h1", &[], true);
        assert_eq!(
            (none.conclusion, none.text.kind),
            ("success", ApplyCheckKind::NoRoot)
        );
    }
}
