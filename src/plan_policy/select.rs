//! Which plan policy sets apply to a project.

use crate::model::PlanPolicySet;

/// The sets whose `projects` globs match `project` (a set naming no project applies to every
/// project), in the policy file's order.
pub fn sets_for_project<'a>(sets: &'a [PlanPolicySet], project: &str) -> Vec<&'a PlanPolicySet> {
    sets.iter()
        .filter(|set| {
            set.projects.is_empty()
                || set.projects.iter().any(|g| {
                    glob::Pattern::new(g).is_ok_and(|p| p.matches(project)) || g == project
                })
        })
        .collect()
}
