use serde_json::json;

use super::*;
use crate::terraform::plan_json::parse_plan_json;
use crate::terraform::test_fixtures::fixture;

fn summary_of(name: &str) -> PlanSummary {
    plan_summary(&parse_plan_json(fixture(name)).unwrap())
}

fn counts(add: usize, change: usize, destroy: usize, replace: usize, read: usize) -> PlanCounts {
    PlanCounts {
        add,
        change,
        destroy,
        replace,
        read,
        ..PlanCounts::default()
    }
}

#[test]
fn counts_of_real_plans() {
    let cases = [
        (
            "bridgecrewio-checkov__plan_with_hcl_for_enrichment__tfplan.json",
            counts(3, 0, 0, 0, 0),
        ),
        (
            "hashicorp-terraform-json__013_module_depends_on__plan.json",
            counts(2, 0, 0, 0, 1),
        ),
        (
            "hashicorp-terraform-json__120_basic__plan.json",
            counts(7, 0, 0, 0, 0),
        ),
        (
            "hashicorp-terraform-json__action_reason__plan.json",
            counts(0, 0, 0, 1, 0),
        ),
        (
            "hashicorp-terraform-json__basic__plan.json",
            counts(7, 0, 0, 0, 1),
        ),
        (
            "hashicorp-terraform-json__has_checks__plan.json",
            counts(2, 0, 0, 0, 0),
        ),
        (
            "hashicorp-terraform__equivalence-drift_relevant_attributes__plan.json",
            counts(0, 2, 0, 0, 0),
        ),
        (
            "hashicorp-terraform__plan-json-full__plan-unredacted.json",
            counts(2, 0, 0, 0, 0),
        ),
        (
            "hashicorp-terraform__show-json-plan-error__output.json",
            counts(0, 0, 0, 0, 0),
        ),
    ];
    for (name, want) in cases {
        let summary = summary_of(name);
        assert_eq!(summary.counts, want, "{name}");
        assert!(summary.unrecognized.is_empty(), "{name}");
    }
    assert!(summary_of("hashicorp-terraform__show-json-plan-error__output.json").errored);
}

#[test]
fn replace_counts_like_terraform_in_its_own_line() {
    let summary = summary_of("hashicorp-terraform-json__action_reason__plan.json");
    assert_eq!(summary.counts.terraform_line(), (1, 0, 1));
    let r = &summary.resources[0];
    assert_eq!(
        (r.action, r.action_reason.as_deref()),
        (Action::Replace, Some("replace_because_tainted"))
    );
    assert_eq!(
        summary.change_refs(),
        vec![PlannedChangeRef {
            address: "null_resource.example".into(),
            action: Action::Replace
        }]
    );
}

#[test]
fn drift_plan_reports_drift_and_changed_strings() {
    let summary =
        summary_of("hashicorp-terraform__equivalence-drift_relevant_attributes__plan.json");
    assert_eq!(summary.drift.len(), 1);
    let drift = &summary.drift[0];
    assert_eq!(drift.action, Some(Action::Update));
    let drifted: Vec<String> = drift
        .changed_attributes
        .iter()
        .map(|c| crate::terraform::display_path(&c.path))
        .collect();
    assert_eq!(drifted, vec!["number", "string"]);
    let dependent = &summary.resources[1];
    assert_eq!(dependent.address, "tfcoremock_simple_resource.dependent");
    assert_eq!(dependent.changed_attributes.len(), 1);
    assert_eq!(
        dependent.changed_attributes[0].after,
        Some(json!("Hello, change!"))
    );
}

#[test]
fn sensitive_output_changes_are_flagged() {
    let summary = summary_of("hashicorp-terraform-json__120_basic__plan.json");
    let flagged: Vec<(&str, bool)> = summary
        .outputs
        .iter()
        .map(|o| (o.name.as_str(), o.sensitive))
        .collect();
    assert_eq!(flagged[0], ("foo", true));
    assert!(flagged[1..].iter().all(|(_, sensitive)| !sensitive));
    assert!(summary
        .outputs
        .iter()
        .all(|o| o.action == Some(Action::Create)));
}

#[test]
fn no_op_import_move_forget_and_unknown_actions() {
    let text = json!({"format_version": "1.2", "resource_changes": [
        {"address": "a.noop", "type": "a", "change": {"actions": ["no-op"], "before": {"x": 1}, "after": {"x": 1}}},
        {"address": "a.imported", "type": "a", "change": {"actions": ["no-op"], "before": {"x": 1}, "after": {"x": 1}, "importing": {"id": "i-1"}}},
        {"address": "a.moved_new", "previous_address": "a.moved_old", "type": "a", "change": {"actions": ["no-op"], "before": {}, "after": {}}},
        {"address": "a.moved_and_updated", "previous_address": "a.old", "type": "a", "change": {"actions": ["update"], "before": {"x": 1}, "after": {"x": 2}}},
        {"address": "a.forgotten", "type": "a", "change": {"actions": ["forget"], "before": {"x": 1}, "after": null}},
        {"address": "a.swapped", "type": "a", "change": {"actions": ["create", "forget"], "before": {"x": 1}, "after": {"x": 1}}},
        {"address": "a.deposed", "type": "a", "deposed": "00000001", "change": {"actions": ["delete"], "before": {"x": 1}, "after": null}},
        {"address": "a.future", "type": "a", "change": {"actions": ["teleport"]}}
    ]})
    .to_string();
    let summary = plan_summary(&parse_plan_json(&text).unwrap());
    assert_eq!(
        summary.counts,
        PlanCounts {
            change: 1,
            destroy: 1,
            add: 1,
            forget: 2,
            import: 1,
            move_: 2,
            no_op: 1,
            ..PlanCounts::default()
        }
    );
    let listed: Vec<(&str, Action)> = summary
        .resources
        .iter()
        .map(|r| (r.address.as_str(), r.action))
        .collect();
    assert_eq!(
        listed,
        vec![
            ("a.imported", Action::Import),
            ("a.moved_new", Action::Move),
            ("a.moved_and_updated", Action::Update),
            ("a.forgotten", Action::Forget),
            ("a.swapped", Action::CreateThenForget),
            ("a.deposed", Action::Delete),
        ]
    );
    assert_eq!(summary.unrecognized, vec!["a.future"]);
    // The deposed object is not an apply target of its own.
    assert_eq!(summary.change_refs().len(), 5);
}

#[test]
fn shallow_summary_differs_only_by_attributes() {
    for (name, _) in crate::terraform::test_fixtures::ALL {
        if crate::terraform::test_fixtures::is_ui_stream(name) {
            continue;
        }
        let plan = parse_plan_json(fixture(name)).unwrap();
        let mut full = plan_summary(&plan);
        let shallow = plan_summary_shallow(&plan);
        assert!(shallow
            .resources
            .iter()
            .all(|r| r.changed_attributes.is_empty()));
        full.resources
            .iter_mut()
            .for_each(|r| r.changed_attributes.clear());
        assert_eq!(full, shallow, "{name}");
    }
}

#[test]
fn snapshot_drift_plan() {
    insta::assert_yaml_snapshot!(summary_of(
        "hashicorp-terraform__equivalence-drift_relevant_attributes__plan.json"
    ));
}

#[test]
fn snapshot_nested_blocks_plan() {
    insta::assert_yaml_snapshot!(summary_of(
        "hashicorp-terraform__plan-json-full__plan-unredacted.json"
    ));
}

#[test]
fn snapshot_checks_plan_with_sensitive_attribute() {
    insta::assert_yaml_snapshot!(summary_of(
        "hashicorp-terraform-json__has_checks__plan.json"
    ));
}

#[test]
fn snapshot_basic_plan_with_read_module_and_count() {
    insta::assert_yaml_snapshot!(summary_of("hashicorp-terraform-json__basic__plan.json"));
}

#[test]
fn snapshot_replace_plan() {
    insta::assert_yaml_snapshot!(summary_of(
        "hashicorp-terraform-json__action_reason__plan.json"
    ));
}

#[test]
fn attribute_diffs_beyond_the_budget_are_counted_not_kept() {
    let per_resource = 10;
    let resources = ATTRIBUTE_BUDGET / per_resource + 200;
    let changes: Vec<serde_json::Value> = (0..resources)
        .map(|i| {
            let after: serde_json::Map<String, serde_json::Value> = (0..per_resource)
                .map(|a| (format!("a{a}"), json!(format!("v{i}-{a}"))))
                .collect();
            json!({
                "address": format!("null_resource.r{i}"), "mode": "managed",
                "type": "null_resource", "name": format!("r{i}"),
                "change": {"actions": ["create"], "before": null, "after": after, "after_unknown": {}}
            })
        })
        .collect();
    let text = json!({"format_version": "1.0", "resource_changes": changes}).to_string();
    let s = plan_summary(&parse_plan_json(&text).unwrap());
    let kept: usize = s.resources.iter().map(|r| r.changed_attributes.len()).sum();
    let omitted: usize = s.resources.iter().map(|r| r.omitted_attributes).sum();
    assert_eq!(kept, ATTRIBUTE_BUDGET);
    assert_eq!(kept + omitted, resources * per_resource);
    // Kept in plan order: the first resources whole, the last ones only counted.
    assert_eq!(s.resources[0].changed_attributes.len(), per_resource);
    let last = s.resources.last().unwrap();
    assert_eq!(
        (last.changed_attributes.len(), last.omitted_attributes),
        (0, per_resource)
    );
    assert_eq!(s.counts.add, resources);
}
