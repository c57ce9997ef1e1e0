use serde_json::json;

use super::*;
use crate::terraform::plan_json::parse_plan_json;

/// Builds a one-change plan from JSON snippets and diffs it.
fn diff(change: serde_json::Value) -> Vec<AttributeChange> {
    let text = json!({"format_version": "1.2",
        "resource_changes": [{"address": "a.b", "change": change}]})
    .to_string();
    let plan = parse_plan_json(&text).unwrap();
    attribute_changes(&plan.resource_changes[0].change)
}

fn path(steps: serde_json::Value) -> Vec<PathStep> {
    serde_json::from_value(steps).unwrap()
}

fn change(
    p: serde_json::Value,
    before: Option<serde_json::Value>,
    after: Option<serde_json::Value>,
) -> AttributeChange {
    AttributeChange {
        path: path(p),
        before,
        after,
        after_unknown: false,
        sensitive: false,
    }
}

#[test]
fn update_reports_only_changed_leaves() {
    let got = diff(json!({"actions": ["update"],
        "before": {"id": "x", "string": "Hello, world!", "number": 1, "tags": {"a": "1", "b": "2"}},
        "after": {"id": "x", "string": "Hello, change!", "number": 1, "tags": {"a": "1", "c": "3"}},
        "after_unknown": {}, "before_sensitive": {}, "after_sensitive": {}}));
    assert_eq!(
        got,
        vec![
            change(
                json!(["string"]),
                Some(json!("Hello, world!")),
                Some(json!("Hello, change!"))
            ),
            change(json!(["tags", "b"]), Some(json!("2")), None),
            change(json!(["tags", "c"]), None, Some(json!("3"))),
        ]
    );
}

#[test]
fn create_lists_values_and_unknowns_but_not_nulls() {
    let got = diff(json!({"actions": ["create"], "before": null,
        "after": {"triggers": null, "name": "n", "list": [], "map": {}},
        "after_unknown": {"id": true, "triggers": true, "list": [], "map": {}}}));
    let mut id = change(json!(["id"]), None, None);
    id.after_unknown = true;
    let mut triggers = change(json!(["triggers"]), None, None);
    triggers.after_unknown = true;
    assert_eq!(
        got,
        vec![
            id,
            change(json!(["name"]), None, Some(json!("n"))),
            triggers
        ]
    );
}

#[test]
fn lists_are_diffed_by_position() {
    let got = diff(json!({"actions": ["update"],
        "before": {"rules": [{"port": 80}, {"port": 443}]},
        "after": {"rules": [{"port": 80}, {"port": 8443}, {"port": 22}]},
        "after_unknown": {"rules": [{}, {}, {}]}}));
    assert_eq!(
        got,
        vec![
            change(
                json!(["rules", 1, "port"]),
                Some(json!(443)),
                Some(json!(8443))
            ),
            change(json!(["rules", 2, "port"]), None, Some(json!(22))),
        ]
    );
}

#[test]
fn sensitive_paths_keep_no_values_and_are_not_descended() {
    let got = diff(json!({"actions": ["update"],
        "before": {"password": "old", "secret_map": {"k": "v1"}, "plain": "a"},
        "after": {"password": "new", "secret_map": {"k": "v2", "k2": "x"}, "plain": "a"},
        "before_sensitive": {"password": true},
        "after_sensitive": {"password": true, "secret_map": true}}));
    let sensitive = |p| AttributeChange {
        path: path(p),
        before: None,
        after: None,
        after_unknown: false,
        sensitive: true,
    };
    assert_eq!(
        got,
        vec![
            sensitive(json!(["password"])),
            sensitive(json!(["secret_map"]))
        ]
    );
    let text = serde_json::to_string(&got).unwrap();
    assert!(!text.contains("old") && !text.contains("v2") && !text.contains("k2"));
}

#[test]
fn unchanged_sensitive_value_is_not_reported() {
    let got = diff(json!({"actions": ["update"],
        "before": {"password": "same", "n": 1}, "after": {"password": "same", "n": 2},
        "before_sensitive": {"password": true}, "after_sensitive": {"password": true}}));
    assert_eq!(
        got,
        vec![change(json!(["n"]), Some(json!(1)), Some(json!(2)))]
    );
}

#[test]
fn whole_resource_sensitive_or_unknown() {
    let got = diff(
        json!({"actions": ["update"], "before": {"a": 1}, "after": {"a": 2},
        "before_sensitive": true, "after_sensitive": true}),
    );
    assert_eq!(got.len(), 1);
    assert!(got[0].sensitive && got[0].path.is_empty() && got[0].before.is_none());
    let got =
        diff(json!({"actions": ["read"], "before": null, "after": null, "after_unknown": true}));
    assert_eq!(got.len(), 1);
    assert!(got[0].after_unknown && got[0].path.is_empty());
}

#[test]
fn nested_unknown_under_known_parent_keeps_before() {
    let got = diff(json!({"actions": ["update"],
        "before": {"cfg": {"arn": "old", "name": "n"}},
        "after": {"cfg": {"name": "n"}},
        "after_unknown": {"cfg": {"arn": true}}}));
    let mut arn = change(json!(["cfg", "arn"]), Some(json!("old")), None);
    arn.after_unknown = true;
    assert_eq!(got, vec![arn]);
}

#[test]
fn type_changes_are_leaves() {
    let got = diff(json!({"actions": ["update"],
        "before": {"v": "1", "w": {"a": 1}, "x": [1]},
        "after": {"v": 1, "w": "flat", "x": {"0": 1}}}));
    assert_eq!(
        got,
        vec![
            change(json!(["v"]), Some(json!("1")), Some(json!(1))),
            change(json!(["w"]), Some(json!({"a": 1})), Some(json!("flat"))),
            change(json!(["x"]), Some(json!([1])), Some(json!({"0": 1}))),
        ]
    );
}

#[test]
fn delete_lists_every_old_leaf() {
    let got = diff(
        json!({"actions": ["delete"], "before": {"id": "i", "tags": {"t": "v"}}, "after": null}),
    );
    assert_eq!(
        got,
        vec![
            change(json!(["id"]), Some(json!("i")), None),
            change(json!(["tags", "t"]), Some(json!("v")), None),
        ]
    );
}

#[test]
fn null_to_non_empty_container_descends() {
    let got = diff(
        json!({"actions": ["update"], "before": {"triggers": null}, "after": {"triggers": {"foo": "bar"}}}),
    );
    assert_eq!(
        got,
        vec![change(json!(["triggers", "foo"]), None, Some(json!("bar")))]
    );
}

#[test]
fn no_op_has_no_changes() {
    let v = json!({"a": [1, {"b": null}], "c": {}});
    assert!(diff(json!({"actions": ["no-op"], "before": v, "after": v})).is_empty());
}
