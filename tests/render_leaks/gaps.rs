//! Shapes that once reached a PR: an IPv4 address inside a host name, a percent-encoded ARN,
//! an account id glued to letters, a shared input's value after `lower()` / `upper()` /
//! `base64encode()`, and a shared input's value used as a `for_each` key in the drift warning
//! line.

use std::collections::{BTreeMap, BTreeSet};

use base64::Engine;
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::json;
use tfgate::input_drift::{
    fingerprint, plan_drift, redact_drift_warnings, DriftFacts, SharedInputRef,
};
use tfgate::model::view::PlanComment;
use tfgate::redact::Placeholders;
use tfgate::render::from_outcome::plan_root;
use tfgate::terraform::{parse_plan_json, plan_summary};

use crate::checks::{check, hcl_quote, redactor_for, render_err};
use crate::config::{cfg, meta, renderer, root_ident};
use crate::plan_case::{build_plan, plan_markdown, AttrSpec};
use crate::secrets::{account, any_secret, arn, known_value, Plant, Secret, WRAPS};
use crate::targeted::one_resource_plan;

/// An IPv4 address written with dashes in an EC2 host name; the dashed address is a secret
/// of its own, so a host name redacted only in part is still a leak.
fn host_name() -> impl Strategy<Value = Vec<Secret>> {
    (
        any::<[u8; 4]>(),
        select(vec![
            "ip-{}.ec2.internal",
            "ip-{}.us-west-2.compute.internal",
            "ec2-{}.compute-1.amazonaws.com",
            "ip-{}",
        ]),
    )
        .prop_map(|(o, shape)| {
            let dashed = format!("{}-{}-{}-{}", o[0], o[1], o[2], o[3]);
            vec![
                Secret::new("host-ipv4", shape.replace("{}", &dashed)),
                Secret::new("dashed-ipv4", dashed),
            ]
        })
}

/// `:` and `/` percent-encoded (upper or lower case hex), once or twice.
fn encoded_arn() -> impl Strategy<Value = Vec<Secret>> {
    (arn(), any::<bool>(), any::<bool>()).prop_map(|(arn, lower, twice)| {
        let (colon, slash) = if lower {
            ("%3a", "%2f")
        } else {
            ("%3A", "%2F")
        };
        let once = arn.replace(':', colon).replace('/', slash);
        let text = if twice {
            once.replace('%', "%25")
        } else {
            once
        };
        vec![Secret::new("encoded-arn", text)]
    })
}

/// An account id glued to letters on either side.
fn glued_account() -> impl Strategy<Value = Vec<Secret>> {
    (
        account(),
        select(vec!["logs{}", "bucket-{}x", "acct{}prod", "{}abc"]),
    )
        .prop_map(|(digits, shape)| {
            vec![
                Secret::new("glued-account", shape.replace("{}", &digits)),
                Secret::new("account", digits),
            ]
        })
}

/// A shared input's value (given to the redactor) and one of its transformed forms (not).
fn transformed_known() -> impl Strategy<Value = Vec<Secret>> {
    (known_value(), 0usize..6).prop_map(|(value, how)| {
        use base64::engine::general_purpose::{
            STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD,
        };
        let form = match how {
            0 => value.to_lowercase(),
            1 => value.to_uppercase(),
            2 => STANDARD.encode(&value),
            3 => STANDARD_NO_PAD.encode(&value),
            4 => URL_SAFE.encode(&value),
            _ => URL_SAFE_NO_PAD.encode(&value),
        };
        vec![
            Secret::new("known-transformed", form),
            Secret::new("known", value),
        ]
    })
}

/// Plants the first secret of each group into an attribute's text; every secret of the group
/// is checked (the redactor learns only the `known` ones).
fn plan_md_with(groups: &[(Vec<Secret>, usize, usize)]) -> Result<(), TestCaseError> {
    let plants: Vec<Plant> = groups
        .iter()
        .map(|(g, wrap, at)| Plant {
            secret: g[0].clone(),
            wrap: *wrap,
            at: *at,
        })
        .collect();
    let mut case = build_plan(&one_resource_plan(vec![AttrSpec::Text(Vec::new(), plants)]));
    case.secrets
        .extend(groups.iter().flat_map(|(g, _, _)| g.iter().cloned()));
    let (_, md) = plan_markdown(&case)?;
    check(&[md], &case.secrets)
}

const PLAN_VARIABLE: &str = "admin_cidrs";

/// A plan whose only change is `fake_thing.rule[key]`, its `for_each` read from the shared
/// input's variable.
fn for_each_plan(key: &str) -> String {
    json!({
        "format_version": "1.2",
        "terraform_version": "1.9.0",
        "variables": {PLAN_VARIABLE: {"value": [key]}},
        "resource_changes": [{
            "address": format!("fake_thing.rule[{}]", hcl_quote(key)),
            "mode": "managed",
            "type": "fake_thing",
            "name": "rule",
            "index": key,
            "provider_name": "registry.terraform.io/hashicorp/fake",
            "change": {"actions": ["create"], "before": null, "after": {"size": 1}, "after_unknown": {}}
        }],
        "configuration": {"root_module": {
            "resources": [{
                "address": "fake_thing.rule",
                "mode": "managed",
                "type": "fake_thing",
                "name": "rule",
                "provider_config_key": "fake",
                "expressions": {"size": {"constant_value": 1}},
                "for_each_expression": {"references": [format!("var.{PLAN_VARIABLE}")]}
            }],
            "variables": {PLAN_VARIABLE: {}}
        }}
    })
    .to_string()
}

/// The plan comment of a root whose `for_each` key is a shared input's value: the plan table
/// and the drift warning line, with the redactor and placeholders the worker uses for both.
fn for_each_comment(key: &Secret, known: bool) -> Result<String, TestCaseError> {
    let secrets = BTreeSet::from([if known {
        Secret::new("known", key.text.clone())
    } else {
        key.clone()
    }]);
    let redactor = redactor_for(&secrets);
    let text = for_each_plan(&key.text);
    let plan = parse_plan_json(&text).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let mut ph = Placeholders::new();
    let root = plan_root(&root_ident(), &plan_summary(&plan), &redactor, &mut ph);
    let inputs = vec![SharedInputRef {
        name: "ADMIN_CIDRS".into(),
        variable: PLAN_VARIABLE.into(),
    }];
    let fp = |v: &str| fingerprint(b"k", "ADMIN_CIDRS", v);
    let live = BTreeMap::from([("ADMIN_CIDRS".to_string(), fp(&key.text))]);
    let last = BTreeMap::from([("ADMIN_CIDRS".to_string(), fp("before"))]);
    let facts = DriftFacts {
        shared_inputs: &inputs,
        live: &live,
        missing: &[],
        last_applied: &last,
        lock_text: None,
        pr_files: &[],
        root_dir: "infra/net",
        hcl_files: &[],
    };
    let warnings = plan_drift(&plan, &facts).warnings;
    prop_assert_eq!(warnings.len(), 1, "the change is attributed to the input");
    let shown = redact_drift_warnings(warnings, &redactor, &mut ph);
    let table_address = root.resources[0].address.clone();
    let comment = PlanComment {
        meta: meta(),
        repo_root_summaries: vec![root],
        drift_warnings: shown,
        denials: vec![],
        notes: vec![],
        still_planning: Vec::new(),
    };
    let md = renderer().render_plan(&comment).map_err(render_err)?;
    prop_assert!(md.contains("Changes this PR does not explain"), "{}", md);
    let run = renderer().check_run_plan(&comment).map_err(render_err)?;
    let texts = vec![md, run.title, run.summary, run.text];
    check(&texts, &BTreeSet::from([key.clone()]))?;
    prop_assert_eq!(&comment.drift_warnings[0].address, &table_address);
    Ok(texts.join("\n"))
}

#[test]
fn the_drift_line_of_a_cidr_key_shows_the_tables_placeholder() {
    let md = for_each_comment(&Secret::new("cidr", "203.0.113.9/32".into()), false).unwrap();
    assert!(md.contains("<cidr-1>"), "{md}");
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn ipv4_addresses_inside_host_names_are_redacted(
        groups in prop::collection::vec((host_name(), 0..WRAPS.len(), any::<usize>()), 1..4),
    ) {
        plan_md_with(&groups)?;
    }

    #[test]
    fn percent_encoded_arns_are_redacted(
        groups in prop::collection::vec((encoded_arn(), 0..WRAPS.len(), any::<usize>()), 1..4),
    ) {
        plan_md_with(&groups)?;
    }

    #[test]
    fn account_ids_glued_to_letters_are_redacted(
        groups in prop::collection::vec((glued_account(), 0..WRAPS.len(), any::<usize>()), 1..4),
    ) {
        plan_md_with(&groups)?;
    }

    #[test]
    fn lower_upper_and_base64_forms_of_shared_input_values_are_redacted(
        groups in prop::collection::vec((transformed_known(), 0..WRAPS.len(), any::<usize>()), 1..4),
    ) {
        plan_md_with(&groups)?;
    }

    #[test]
    fn a_shared_input_value_as_for_each_key_never_reaches_the_drift_line(
        key in prop_oneof![
            any_secret().prop_map(|s| (s, false)),
            known_value().prop_map(|v| (Secret::new("known", v), true)),
        ],
    ) {
        for_each_comment(&key.0, key.1)?;
    }
}
