//! Splitting a `/plan` of several roots into parts that any worker can take, and putting the
//! parts' results back together into the PR's one plan comment. Pure: `worker/run` queues the
//! parts, `worker/publish_batch` posts the merged comment as each root finishes.
//!
//! Roots linked by `depends_on` (directly or through other projects of the policy) stay in one
//! part and plan in order; groups with no path between them are independent and are packed
//! into at most `limit` parts, so no more than `limit` of them plan at once.

use std::collections::BTreeMap;

use crate::model::view::{CommentMeta, PlanComment, PlanningRoot};

/// How many parts of one `/plan` may plan at once: the server's `--max-parallel-roots` and the
/// repository policy's `parallel_plans`, whichever is smaller (at least one).
pub fn parallel_limit(server_max: usize, repo_max: u32) -> usize {
    server_max.min(repo_max as usize).max(1)
}

/// The parts of a `/plan` of `roots` (in the command's order, which is dependency order), given
/// every project's `depends_on`. One part (all roots, as before) when `limit` is 1 or nothing
/// is independent.
pub fn plan_parts(
    roots: &[String],
    depends_on: &BTreeMap<String, Vec<String>>,
    limit: usize,
) -> Vec<Vec<String>> {
    let groups = independent_groups(roots, depends_on);
    if limit <= 1 || groups.len() <= 1 {
        return vec![roots.to_vec()];
    }
    let n = limit.min(groups.len());
    let mut by_size: Vec<&Vec<usize>> = groups.iter().collect();
    by_size.sort_by_key(|g| std::cmp::Reverse(g.len()));
    let mut parts: Vec<Vec<usize>> = vec![Vec::new(); n];
    for g in by_size {
        let least = (0..n).min_by_key(|&i| (parts[i].len(), i)).expect("n >= 1");
        parts[least].extend(g);
    }
    for p in &mut parts {
        p.sort_unstable();
    }
    parts.sort_by_key(|p| p[0]);
    parts
        .into_iter()
        .map(|p| p.into_iter().map(|i| roots[i].clone()).collect())
        .collect()
}

/// Indexes of `roots` grouped by the connected parts of the `depends_on` graph, each group in
/// command order, groups ordered by their first root.
fn independent_groups(
    roots: &[String],
    depends_on: &BTreeMap<String, Vec<String>>,
) -> Vec<Vec<usize>> {
    let mut parent: BTreeMap<&str, &str> = BTreeMap::new();
    fn find<'a>(parent: &mut BTreeMap<&'a str, &'a str>, x: &'a str) -> &'a str {
        let mut r = x;
        while let Some(&p) = parent.get(r) {
            if p == r {
                break;
            }
            r = p;
        }
        parent.insert(x, r);
        r
    }
    for (p, deps) in depends_on {
        parent.entry(p).or_insert(p);
        for d in deps {
            parent.entry(d).or_insert(d);
            let (a, b) = (find(&mut parent, p), find(&mut parent, d));
            if a != b {
                parent.insert(a, b);
            }
        }
    }
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, r) in roots.iter().enumerate() {
        parent.entry(r).or_insert(r);
        let key = find(&mut parent, r).to_string();
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, g)) => g.push(i),
            None => groups.push((key, vec![i])),
        }
    }
    groups.into_iter().map(|(_, g)| g).collect()
}

/// The dependency levels of an `/apply` of `roots` (in the command's order, which is
/// dependency order): indexes of `roots`, level by level. A root is on the level after the
/// last root of the command it depends on, directly or through projects the command does not
/// apply; roots of one level apply concurrently, and a failure stops the levels after it.
pub fn apply_levels(
    roots: &[String],
    depends_on: &BTreeMap<String, Vec<String>>,
) -> Vec<Vec<usize>> {
    let mut level: Vec<usize> = Vec::with_capacity(roots.len());
    for (i, root) in roots.iter().enumerate() {
        let below = needs(root, depends_on);
        let l = (0..i)
            .filter(|&j| below.contains(roots[j].as_str()))
            .map(|j| level[j] + 1)
            .max()
            .unwrap_or(0);
        level.push(l);
    }
    let top = level.iter().copied().max().map_or(0, |m| m + 1);
    (0..top)
        .map(|l| (0..roots.len()).filter(|&i| level[i] == l).collect())
        .collect()
}

/// Every project `root` depends on, directly or not.
fn needs<'a>(
    root: &str,
    depends_on: &'a BTreeMap<String, Vec<String>>,
) -> std::collections::BTreeSet<&'a str> {
    let mut seen = std::collections::BTreeSet::new();
    let mut todo: Vec<&str> = depends_on
        .get(root)
        .map(|d| d.iter().map(String::as_str).collect())
        .unwrap_or_default();
    while let Some(d) = todo.pop() {
        if seen.insert(d) {
            if let Some(next) = depends_on.get(d) {
                todo.extend(next.iter().map(String::as_str));
            }
        }
    }
    seen
}

/// The outbox key of one root's result in a part.
pub fn root_result_key(project: &str) -> String {
    format!("root:{project}")
}

/// The project a part's root result is about, from its outbox key.
pub fn root_of_result_key(key: &str) -> Option<&str> {
    key.strip_prefix("root:")
}

/// The batch's comment so far: the roots that finished, in the command's order, and the rest
/// shown as still planning. `done` holds each finished root's result (its project and the
/// comment model its part recorded); `meta` is the batch comment's.
pub fn merge_batch(
    roots: &[PlanningRoot],
    done: &[(String, PlanComment)],
    meta: CommentMeta,
) -> PlanComment {
    let mut merged = PlanComment {
        meta,
        repo_root_summaries: Vec::new(),
        drift_warnings: Vec::new(),
        denials: Vec::new(),
        notes: Vec::new(),
        still_planning: Vec::new(),
    };
    for root in roots {
        let results: Vec<&PlanComment> = done
            .iter()
            .filter(|(p, _)| *p == root.project)
            .map(|(_, c)| c)
            .collect();
        if results.is_empty() {
            merged.still_planning.push(root.clone());
            continue;
        }
        for c in results {
            merged
                .repo_root_summaries
                .extend(c.repo_root_summaries.iter().cloned());
            merged
                .drift_warnings
                .extend(c.drift_warnings.iter().cloned());
            for d in &c.denials {
                if !merged.denials.contains(d) {
                    merged.denials.push(d.clone());
                }
            }
            for n in &c.notes {
                if !merged.notes.contains(n) {
                    merged.notes.push(n.clone());
                }
            }
        }
    }
    merged
}

#[cfg(test)]
#[path = "plan_split_tests.rs"]
mod tests;
