use std::collections::BTreeMap;

use super::*;
use crate::model::view::{PlanCounts, PlanStatus, RootPlan, RunNote};

fn names(s: &[&str]) -> Vec<String> {
    s.iter().map(|n| n.to_string()).collect()
}

fn deps(edges: &[(&str, &[&str])]) -> BTreeMap<String, Vec<String>> {
    edges
        .iter()
        .map(|(p, d)| (p.to_string(), names(d)))
        .collect()
}

#[test]
fn the_limit_is_the_smaller_of_server_and_repository_and_at_least_one() {
    assert_eq!(parallel_limit(2, 4), 2);
    assert_eq!(parallel_limit(8, 4), 4);
    assert_eq!(parallel_limit(0, 4), 1);
    assert_eq!(parallel_limit(4, 0), 1);
}

#[test]
fn independent_roots_each_get_a_part_up_to_the_limit() {
    let roots = names(&["a", "b", "c", "d"]);
    let parts = plan_parts(&roots, &BTreeMap::new(), 4);
    assert_eq!(
        parts,
        vec![names(&["a"]), names(&["b"]), names(&["c"]), names(&["d"])]
    );
}

#[test]
fn more_independent_roots_than_the_limit_are_packed_into_limit_parts() {
    let roots = names(&["a", "b", "c", "d", "e", "f", "g", "h"]);
    let parts = plan_parts(&roots, &BTreeMap::new(), 3);
    assert_eq!(parts.len(), 3);
    let sizes: Vec<usize> = parts.iter().map(Vec::len).collect();
    assert_eq!(sizes, vec![3, 3, 2]);
    let mut all: Vec<String> = parts.concat();
    all.sort();
    assert_eq!(all, roots, "every root planned exactly once");
}

#[test]
fn a_dependency_chain_stays_in_one_part_in_order() {
    let roots = names(&["network", "eks", "app", "dns"]);
    let graph = deps(&[("eks", &["network"]), ("app", &["eks"])]);
    let parts = plan_parts(&roots, &graph, 4);
    assert_eq!(
        parts,
        vec![names(&["network", "eks", "app"]), names(&["dns"])]
    );
}

#[test]
fn roots_linked_through_a_project_outside_the_command_stay_together() {
    // a and b both depend on `shared`, which the command does not plan.
    let roots = names(&["a", "b", "c"]);
    let graph = deps(&[("a", &["shared"]), ("b", &["shared"])]);
    let parts = plan_parts(&roots, &graph, 4);
    assert_eq!(parts, vec![names(&["a", "b"]), names(&["c"])]);
}

#[test]
fn one_part_when_the_limit_is_one_or_everything_is_linked() {
    let roots = names(&["a", "b"]);
    assert_eq!(plan_parts(&roots, &BTreeMap::new(), 1), vec![roots.clone()]);
    let graph = deps(&[("b", &["a"])]);
    assert_eq!(plan_parts(&roots, &graph, 4), vec![roots.clone()]);
    assert_eq!(
        plan_parts(&names(&["a"]), &BTreeMap::new(), 4),
        vec![names(&["a"])]
    );
}

#[test]
fn apply_levels_follow_dependencies_and_keep_independent_roots_together() {
    let roots = names(&["network", "dns", "eks", "app", "logs"]);
    let graph = deps(&[("eks", &["network"]), ("app", &["eks"]), ("logs", &["dns"])]);
    assert_eq!(
        apply_levels(&roots, &graph),
        vec![vec![0, 1], vec![2, 4], vec![3]]
    );
}

#[test]
fn apply_levels_see_dependencies_through_projects_not_applied() {
    // b needs `mid`, which needs a: b still waits for a.
    let roots = names(&["a", "b"]);
    let graph = deps(&[("b", &["mid"]), ("mid", &["a"])]);
    assert_eq!(apply_levels(&roots, &graph), vec![vec![0], vec![1]]);
    assert_eq!(apply_levels(&roots, &BTreeMap::new()), vec![vec![0, 1]]);
    assert!(apply_levels(&[], &BTreeMap::new()).is_empty());
}

#[test]
fn result_keys_name_their_root() {
    assert_eq!(root_of_result_key(&root_result_key("eks")), Some("eks"));
    assert_eq!(root_of_result_key("result"), None);
}

fn meta() -> CommentMeta {
    CommentMeta {
        pr: 7,
        marker_root: "job-40".into(),
        run_id: "12".into(),
        head_sha_short: Some("abc1234".into()),
        command_by: Some("dev".into()),
        check_run_url: None,
    }
}

fn planning(p: &str) -> PlanningRoot {
    PlanningRoot {
        project: p.into(),
        dir: format!("infra/{p}"),
        workspace: "default".into(),
    }
}

fn finished(p: &str, note: Option<RunNote>) -> (String, PlanComment) {
    let root = RootPlan {
        project: p.into(),
        dir: format!("infra/{p}"),
        workspace: "default".into(),
        status: PlanStatus::NoChanges,
        counts: PlanCounts::default(),
        warnings: vec![],
        resources: vec![],
        errors: vec![],
        advice: vec![],
        denials: vec![],
        pending_enrichment: false,
        policy_checks: Vec::new(),
    };
    let comment = PlanComment {
        meta: meta(),
        repo_root_summaries: vec![root],
        drift_warnings: vec![],
        denials: vec![],
        notes: note.into_iter().collect(),
        still_planning: vec![],
    };
    (p.into(), comment)
}

#[test]
fn the_merged_comment_lists_finished_roots_in_command_order_and_the_rest_as_planning() {
    let roots = [planning("a"), planning("b"), planning("c")];
    let done = [finished("c", None), finished("a", None)];
    let merged = merge_batch(&roots, &done, meta());
    let shown: Vec<&str> = merged
        .repo_root_summaries
        .iter()
        .map(|r| r.project.as_str())
        .collect();
    assert_eq!(shown, ["a", "c"]);
    assert_eq!(merged.still_planning, vec![planning("b")]);
    assert_eq!(merged.meta, meta());
}

#[test]
fn a_root_that_finished_without_a_plan_is_no_longer_planning_and_keeps_its_note() {
    let roots = [planning("a"), planning("b")];
    let note = RunNote::AlreadyApplied {
        project: "b".into(),
    };
    let mut skipped = finished("b", Some(note.clone()));
    skipped.1.repo_root_summaries.clear();
    let merged = merge_batch(
        &roots,
        &[finished("a", None), skipped.clone(), skipped],
        meta(),
    );
    assert!(merged.still_planning.is_empty());
    assert_eq!(merged.repo_root_summaries.len(), 1);
    assert_eq!(
        merged.notes,
        vec![note],
        "a note recorded twice is shown once"
    );
}
