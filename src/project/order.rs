//! Apply order between projects and where an interrupted apply resumes.

use super::spec::{ProjectId, ProjectSpec};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use thiserror::Error;

/// Why no order could be computed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum OrderError {
    /// The `depends_on` edges form a cycle; the ids walk it and repeat the first at the end.
    #[error("depends_on forms a cycle: {}", join_ids(.0))]
    Cycle(Vec<ProjectId>),
    /// A selected id is not among the known projects.
    #[error("unknown project `{0}`")]
    UnknownProject(ProjectId),
}

fn join_ids(ids: &[ProjectId]) -> String {
    ids.iter()
        .map(ProjectId::as_str)
        .collect::<Vec<_>>()
        .join(" -> ")
}

/// Orders `selected` so that every project comes after the projects it depends on,
/// directly or through projects that are not selected. Among projects whose dependencies
/// are satisfied, names sort alphabetically, so the order is stable. `depends_on` entries
/// naming unknown projects are ignored here (policy loading reports them).
pub fn order_by_dependencies(
    selected: &[ProjectId],
    all: &[ProjectSpec],
) -> Result<Vec<ProjectId>, OrderError> {
    let known: BTreeSet<&ProjectId> = all.iter().map(|p| &p.id).collect();
    if let Some(unknown) = selected.iter().find(|id| !known.contains(id)) {
        return Err(OrderError::UnknownProject(unknown.clone()));
    }
    if let Some(cycle) = find_cycle(all) {
        return Err(OrderError::Cycle(cycle));
    }
    let mut remaining: BTreeMap<&ProjectId, usize> = BTreeMap::new();
    let mut dependents: BTreeMap<&ProjectId, Vec<&ProjectId>> = BTreeMap::new();
    for p in all {
        let deps: BTreeSet<&ProjectId> =
            p.depends_on.iter().filter(|d| known.contains(d)).collect();
        remaining.insert(&p.id, deps.len());
        for dep in deps {
            dependents.entry(dep).or_default().push(&p.id);
        }
    }
    let mut ready: BTreeSet<&ProjectId> = remaining
        .iter()
        .filter(|(_, n)| **n == 0)
        .map(|(id, _)| *id)
        .collect();
    let wanted: BTreeSet<&ProjectId> = selected.iter().collect();
    let mut order = Vec::new();
    while let Some(next) = ready.pop_first() {
        if wanted.contains(next) {
            order.push(next.clone());
        }
        for dependent in dependents.get(next).into_iter().flatten() {
            let n = remaining.get_mut(dependent).expect("known dependent");
            *n -= 1;
            if *n == 0 {
                ready.insert(dependent);
            }
        }
    }
    Ok(order)
}

/// Finds one `depends_on` cycle, if any: the ids along it, first id repeated at the end.
/// Deterministic: projects are visited by name.
pub(crate) fn find_cycle(all: &[ProjectSpec]) -> Option<Vec<ProjectId>> {
    let edges: BTreeMap<&ProjectId, Vec<&ProjectId>> = all
        .iter()
        .map(|p| (&p.id, p.depends_on.iter().collect()))
        .collect();
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Visiting,
        Done,
    }
    let mut marks: BTreeMap<&ProjectId, Mark> = BTreeMap::new();
    fn visit<'a>(
        id: &'a ProjectId,
        edges: &BTreeMap<&'a ProjectId, Vec<&'a ProjectId>>,
        marks: &mut BTreeMap<&'a ProjectId, Mark>,
        stack: &mut Vec<&'a ProjectId>,
    ) -> Option<Vec<ProjectId>> {
        match marks.get(id) {
            Some(Mark::Done) => return None,
            Some(Mark::Visiting) => {
                let start = stack.iter().position(|s| *s == id).unwrap_or(0);
                let mut cycle: Vec<ProjectId> =
                    stack[start..].iter().map(|s| (*s).clone()).collect();
                cycle.push(id.clone());
                return Some(cycle);
            }
            None => {}
        }
        marks.insert(id, Mark::Visiting);
        stack.push(id);
        let mut next: Vec<&ProjectId> = edges.get(id).cloned().unwrap_or_default();
        next.sort();
        for dep in next {
            if edges.contains_key(dep) {
                if let Some(cycle) = visit(dep, edges, marks, stack) {
                    return Some(cycle);
                }
            }
        }
        stack.pop();
        marks.insert(id, Mark::Done);
        None
    }
    let mut stack = Vec::new();
    for id in edges.keys() {
        if let Some(cycle) = visit(id, &edges, &mut marks, &mut stack) {
            return Some(cycle);
        }
    }
    None
}

/// What happened to one project in the last `/apply` of this PR head.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApplyStatus {
    /// Applied successfully.
    Applied,
    /// The plan had no changes; nothing to apply.
    NoChanges,
    /// The apply started and failed (partially applied resources stay applied).
    Failed,
    /// Not reached (an earlier project failed) or not started.
    NotApplied,
}

impl ApplyStatus {
    fn is_done(self) -> bool {
        matches!(self, ApplyStatus::Applied | ApplyStatus::NoChanges)
    }
}

/// Where the next `/apply` starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResumePoint {
    /// Index into the order of the first project that is not done.
    pub index: usize,
    /// The projects still to apply, in order (done ones after `index` are skipped).
    pub remaining: Vec<ProjectId>,
}

/// The next `/apply` resumes at the first project, in `order`, that failed or was not
/// applied (projects missing from `last_results` count as not applied). `None` when every
/// project in the order is done.
pub fn resume_point(
    order: &[ProjectId],
    last_results: &BTreeMap<ProjectId, ApplyStatus>,
) -> Option<ResumePoint> {
    let done = |id: &ProjectId| last_results.get(id).is_some_and(|s| s.is_done());
    let index = order.iter().position(|id| !done(id))?;
    let remaining = order[index..]
        .iter()
        .filter(|id| !done(id))
        .cloned()
        .collect();
    Some(ResumePoint { index, remaining })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str, deps: &[&str]) -> ProjectSpec {
        let mut p = ProjectSpec::simple(name, name);
        p.depends_on = deps.iter().map(|d| ProjectId::new(*d)).collect();
        p
    }

    fn ids(list: &[&str]) -> Vec<ProjectId> {
        list.iter().map(|s| ProjectId::new(*s)).collect()
    }

    /// Two environments on a shared network: network → ops/cluster → dev/cluster →
    /// ops/platform → dev/platform.
    fn two_environments() -> Vec<ProjectSpec> {
        vec![
            spec("dev-platform", &["dev-cluster", "ops-platform"]),
            spec("ops-platform", &["ops-cluster"]),
            spec("dev-cluster", &["network", "ops-cluster"]),
            spec("ops-cluster", &["network"]),
            spec("network", &[]),
        ]
    }

    #[test]
    fn orders_two_environment_roots() {
        let all = two_environments();
        let selected: Vec<ProjectId> = all.iter().map(|p| p.id.clone()).collect();
        let got = order_by_dependencies(&selected, &all).unwrap();
        assert_eq!(
            got,
            ids(&[
                "network",
                "ops-cluster",
                "dev-cluster",
                "ops-platform",
                "dev-platform"
            ])
        );
    }

    #[test]
    fn orders_through_unselected_projects() {
        let all = vec![spec("a", &["b"]), spec("b", &["c"]), spec("c", &[])];
        let got = order_by_dependencies(&ids(&["a", "c"]), &all).unwrap();
        assert_eq!(got, ids(&["c", "a"]));
    }

    #[test]
    fn independent_projects_sort_by_name() {
        let all = vec![
            spec("zeta", &[]),
            spec("alpha", &[]),
            spec("mid", &["zeta"]),
        ];
        let got = order_by_dependencies(&ids(&["mid", "zeta", "alpha"]), &all).unwrap();
        assert_eq!(got, ids(&["alpha", "zeta", "mid"]));
    }

    #[test]
    fn detects_cycles() {
        let all = vec![
            spec("a", &["b"]),
            spec("b", &["c"]),
            spec("c", &["a"]),
            spec("d", &[]),
        ];
        let err = order_by_dependencies(&ids(&["d"]), &all).unwrap_err();
        assert_eq!(err, OrderError::Cycle(ids(&["a", "b", "c", "a"])));
        assert_eq!(
            err.to_string(),
            "depends_on forms a cycle: a -> b -> c -> a"
        );
    }

    #[test]
    fn detects_self_dependency() {
        let all = vec![spec("a", &["a"])];
        assert_eq!(find_cycle(&all), Some(ids(&["a", "a"])));
    }

    #[test]
    fn unknown_selected_is_an_error() {
        let err = order_by_dependencies(&ids(&["x"]), &[spec("a", &[])]).unwrap_err();
        assert_eq!(err, OrderError::UnknownProject(ProjectId::new("x")));
    }

    #[test]
    fn resume_table() {
        use ApplyStatus::*;
        let order = ids(&["network", "eks", "platform"]);
        type Case<'a> = (&'a [(&'a str, ApplyStatus)], Option<(usize, &'a [&'a str])>);
        let cases: &[Case] = &[
            (&[], Some((0, &["network", "eks", "platform"]))),
            (
                &[
                    ("network", Applied),
                    ("eks", Failed),
                    ("platform", NotApplied),
                ],
                Some((1, &["eks", "platform"])),
            ),
            (
                &[("network", NoChanges), ("eks", Applied)],
                Some((2, &["platform"])),
            ),
            (
                &[("network", Failed), ("eks", Applied)],
                Some((0, &["network", "platform"])),
            ),
            (
                &[
                    ("network", Applied),
                    ("eks", Applied),
                    ("platform", NoChanges),
                ],
                None,
            ),
        ];
        for (results, want) in cases {
            let map: BTreeMap<ProjectId, ApplyStatus> = results
                .iter()
                .map(|(n, s)| (ProjectId::new(*n), *s))
                .collect();
            let got = resume_point(&order, &map);
            let want = want.map(|(index, rest)| ResumePoint {
                index,
                remaining: ids(rest),
            });
            assert_eq!(got, want, "{results:?}");
        }
    }

    proptest::proptest! {
        /// Random DAGs (edges only to lower indices): the order respects every edge.
        #[test]
        fn order_respects_dependencies(edges in proptest::collection::vec((0usize..8, 0usize..8), 0..20)) {
            let mut all: Vec<ProjectSpec> = (0..8).map(|i| spec(&format!("p{i}"), &[])).collect();
            for (a, b) in edges {
                if a > b {
                    all[a].depends_on.push(ProjectId::new(format!("p{b}")));
                }
            }
            let selected: Vec<ProjectId> = all.iter().map(|p| p.id.clone()).collect();
            let order = order_by_dependencies(&selected, &all).unwrap();
            proptest::prop_assert_eq!(order.len(), 8);
            for p in &all {
                let at = order.iter().position(|id| *id == p.id).unwrap();
                for dep in &p.depends_on {
                    proptest::prop_assert!(order.iter().position(|id| id == dep).unwrap() < at);
                }
            }
        }
    }
}
