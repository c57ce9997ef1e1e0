use serde_json::json;

use super::*;
use crate::terraform::parse_ui_stream;

fn hook(kind: &str, addr: &str, action: &str, at: &str, id: Option<&str>) -> String {
    let mut hook = json!({"resource": {"addr": addr}, "action": action});
    if let Some(id) = id {
        hook["id_key"] = json!("id");
        hook["id_value"] = json!(id);
    }
    json!({"@level": "info", "@message": "", "@timestamp": at, "type": kind, "hook": hook})
        .to_string()
}

fn diagnostic(addr: &str, at: &str) -> String {
    json!({"@level": "error", "@message": "Error: x", "@timestamp": at, "type": "diagnostic",
           "diagnostic": {"severity": "error", "summary": "x", "detail": "", "address": addr}})
    .to_string()
}

/// `a` created, `u` updated, then `b` (referring to `a`) fails; `c` is created after the
/// failure; `module.m.r[0]` created first.
fn stream() -> UiStream {
    let lines = [
        hook(
            "apply_start",
            "module.m.aws_r.r[0]",
            "create",
            "2026-12-02T09:00:00Z",
            None,
        ),
        hook(
            "apply_complete",
            "module.m.aws_r.r[0]",
            "create",
            "2026-12-02T09:00:01Z",
            Some("r-0"),
        ),
        hook(
            "apply_complete",
            "aws_a.a",
            "create",
            "2026-12-02T09:00:10.500+00:00",
            Some("a-id"),
        ),
        hook(
            "apply_complete",
            "aws_u.u",
            "update",
            "2026-12-02T09:00:11Z",
            Some("u-id"),
        ),
        hook(
            "apply_start",
            "aws_b.b",
            "create",
            "2026-12-02T09:00:11Z",
            None,
        ),
        hook(
            "apply_errored",
            "aws_b.b",
            "create",
            "2026-12-02T09:00:14Z",
            None,
        ),
        diagnostic("aws_b.b", "2026-12-02T09:00:14Z"),
        hook(
            "apply_complete",
            "aws_c.c",
            "create",
            "2026-12-02T09:00:20Z",
            Some("c-id"),
        ),
    ];
    parse_ui_stream(&lines.join("\n")).unwrap()
}

fn references() -> PlanReferences {
    let mut refs = PlanReferences::default();
    refs.refers_to
        .insert("aws_b.b".into(), vec!["aws_a.a".into()]);
    refs.refers_to
        .insert("aws_d.d".into(), vec!["module.m.aws_r.r".into()]);
    refs.known_names
        .insert("aws_a.a".into(), vec!["a-name".into(), "a-id".into()]);
    refs
}

#[test]
fn fresh_resources_are_creates_with_their_ids_names_and_times() {
    let ctx = ApplyContext::new(&stream(), &references());
    type Row<'a> = (&'a str, Option<&'a str>, &'a [String], Option<i64>);
    let fresh: Vec<Row<'_>> = ctx
        .fresh
        .iter()
        .map(|f| {
            (
                f.address.as_str(),
                f.config_address.as_deref(),
                f.identifiers.as_slice(),
                f.completed_ms,
            )
        })
        .collect();
    assert_eq!(fresh.len(), 3, "the update is not fresh: {fresh:?}");
    assert_eq!(fresh[0].1, Some("module.m.aws_r.r"));
    assert_eq!(fresh[1].0, "aws_a.a");
    assert_eq!(fresh[1].2, ["a-id", "a-name"]);
    assert_eq!(
        fresh[1].3.unwrap() + 3500,
        timestamp_ms("2026-12-02T09:00:14Z").unwrap()
    );
}

#[test]
fn a_failure_sees_what_completed_before_it_referenced_first() {
    let ctx = ApplyContext::new(&stream(), &references());
    let seen = ctx.fresh_before("aws_b.b", Some("2026-12-02T09:00:14Z"));
    let got: Vec<(&str, bool, Option<u64>)> = seen
        .iter()
        .map(|f| (f.resource.address.as_str(), f.referenced, f.seconds_earlier))
        .collect();
    // `aws_c.c` completed after the failure; 3.5 s count as 3.
    assert_eq!(
        got,
        vec![
            ("aws_a.a", true, Some(3)),
            ("module.m.aws_r.r[0]", false, Some(13)),
        ]
    );
}

#[test]
fn instance_keys_and_missing_times_are_handled() {
    let ctx = ApplyContext::new(&stream(), &references());
    // Refers to the block `module.m.aws_r.r`: its instance `[0]` is fresh. No failure in the
    // stream and no time: everything fresh counts, without seconds.
    let seen = ctx.fresh_before("aws_d.d", None);
    assert_eq!(seen[0].resource.address, "module.m.aws_r.r[0]");
    assert!(seen[0].referenced);
    assert_eq!(seen[0].seconds_earlier, None);
    assert_eq!(seen.len(), 3);
    // A resource never sees itself.
    assert!(ctx
        .fresh_before("aws_a.a", None)
        .iter()
        .all(|f| f.resource.address != "aws_a.a"));
    assert!(ApplyContext::default().fresh_before("x.y", None).is_empty());
}
