//! `terraform show -json` output → the plan summary a PR sees. Never panics; what the summary
//! hands to an apply is a subset of what it lists.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tfgate::terraform::{attribute_changes, decode_text, parse_plan_json, plan_summary};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = decode_text(data) else {
        return;
    };
    let Ok(plan) = parse_plan_json(&text) else {
        return;
    };
    let summary = plan_summary(&plan);
    let listed: Vec<&str> = summary
        .resources
        .iter()
        .map(|r| r.address.as_str())
        .collect();
    for change in summary.change_refs() {
        assert!(
            listed.contains(&change.address.as_str()),
            "{change:?} not listed"
        );
    }
    let _ = summary.counts.terraform_line();
    for resource in plan.resource_changes.iter().chain(&plan.resource_drift) {
        let _ = attribute_changes(&resource.change);
    }
    let _ = plan.prior_state_value();
    let _ = plan.planned_values_value();
});
