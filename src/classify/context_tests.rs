//! The apply context reaching the classifier: which fresh resource a possible propagation delay
//! is put down to, and that without one the text keeps its base category.

use serde_json::json;

use super::*;
use crate::terraform::{parse_ui_stream, ApplyContext, PlanReferences};

fn complete(addr: &str, id: &str, at: &str) -> String {
    json!({"@level": "info", "@message": "", "@timestamp": at, "type": "apply_complete",
           "hook": {"resource": {"addr": addr}, "action": "create",
                    "id_key": "id", "id_value": id}})
    .to_string()
}

/// `fake_thing.a` (id `fake-a`) created at :10, `aws_iam_role.other` (id `other-role`) at :12.
fn apply(refers_to_a: bool) -> ApplyContext {
    let stream = [
        complete("fake_thing.a", "fake-a", "2026-12-02T09:00:10Z"),
        complete("aws_iam_role.other", "other-role", "2026-12-02T09:00:12Z"),
    ]
    .join("\n");
    let mut refs = PlanReferences::default();
    if refers_to_a {
        refs.refers_to
            .insert("fake_thing.b".into(), vec!["fake_thing.a".into()]);
    }
    ApplyContext::new(&parse_ui_stream(&stream).unwrap(), &refs)
}

const FAILED_AT: Option<&str> = Some("2026-12-02T09:00:13Z");

fn cause(address: &str, seconds: u64) -> Option<FreshCause> {
    Some(FreshCause {
        address: address.into(),
        seconds_earlier: Some(seconds),
    })
}

#[test]
fn context_lists_fresh_resources_referenced_first() {
    let ctx = context_for_failure(&apply(true), "fake_thing.b", FAILED_AT);
    assert!(ctx.refers_to_fresh_resource && ctx.has_address);
    assert_eq!(ctx.fresh_identifiers, ["fake-a", "other-role"]);
    let order: Vec<(&str, bool)> = ctx
        .fresh_resources
        .iter()
        .map(|f| (f.address.as_str(), f.referenced))
        .collect();
    assert_eq!(
        order,
        [("fake_thing.a", true), ("aws_iam_role.other", false)]
    );
    let unrelated = context_for_failure(&apply(false), "fake_thing.b", FAILED_AT);
    assert!(!unrelated.refers_to_fresh_resource);
}

#[test]
fn a_not_found_naming_nothing_fresh_becomes_propagation_only_by_reference() {
    let text =
        "creating Thing: InvalidGroup.NotFound: The security group 'sg-0123456789' does not exist";
    let referenced = classify(
        text,
        &context_for_failure(&apply(true), "fake_thing.b", FAILED_AT),
    );
    assert_eq!(referenced.category, Category::PropagationDelay);
    assert_eq!(referenced.fresh_cause, cause("fake_thing.a", 3));
    // Same text, nothing fresh referred to or named: the base category, no cause.
    let base = classify(
        text,
        &context_for_failure(&apply(false), "fake_thing.b", FAILED_AT),
    );
    assert_eq!(base.category, Category::NotFound);
    assert_eq!(base.fresh_cause, None);
}

#[test]
fn the_resource_whose_id_the_text_names_is_the_cause() {
    let text =
        "creating Thing: InvalidGroup.NotFound: The security group 'other-role' does not exist";
    // Refers to `a` but the text names `other`'s id: `other` is named.
    let c = classify(
        text,
        &context_for_failure(&apply(true), "fake_thing.b", FAILED_AT),
    );
    assert_eq!(c.category, Category::PropagationDelay);
    assert_eq!(c.fresh_cause, cause("aws_iam_role.other", 1));
    // Named by the text only, no configuration reference.
    let c = classify(
        text,
        &context_for_failure(&apply(false), "fake_thing.b", FAILED_AT),
    );
    assert_eq!(c.fresh_cause, cause("aws_iam_role.other", 1));
}

#[test]
fn a_propagation_wording_names_the_fresh_profile() {
    let text = "creating EC2 Instance: InvalidParameterValue: Value (fake-a) for parameter iamInstanceProfile.name is invalid. Invalid IAM Instance Profile name";
    let c = classify(
        text,
        &context_for_failure(&apply(true), "fake_thing.b", FAILED_AT),
    );
    assert_eq!(c.category, Category::PropagationDelay);
    assert_eq!(c.fresh_cause, cause("fake_thing.a", 3));
    // Without context the wording alone still says propagation, but names nothing.
    let c = classify(text, &ClassifyContext::default());
    assert_eq!(c.fresh_cause, None);
}

#[test]
fn other_categories_name_no_fresh_resource() {
    let quota =
        "creating EIP: AddressLimitExceeded: The maximum number of addresses has been reached.";
    let c = classify(
        quota,
        &context_for_failure(&apply(true), "fake_thing.b", FAILED_AT),
    );
    assert_eq!(c.category, Category::QuotaExceeded);
    assert_eq!(c.fresh_cause, None);
    // Failed before anything was created: nothing is fresh.
    let early = context_for_failure(&apply(true), "fake_thing.b", Some("2026-12-02T09:00:05Z"));
    assert!(early.fresh_resources.is_empty() && !early.refers_to_fresh_resource);
}
