use serde_json::json;

use super::*;
use crate::terraform::parse_plan_json;

/// A root with a role, a profile referring to it through a module input, a module output and
/// `depends_on` of a module call; instances with `count` / `for_each` keys.
fn plan() -> String {
    let change = |address: &str, actions: &[&str], after: serde_json::Value| {
        json!({"address": address, "mode": "managed", "type": "t", "name": "n",
               "change": {"actions": actions, "after": after,
                          "after_sensitive": {"secret_name": true}}})
    };
    json!({
        "format_version": "1.0",
        "resource_changes": [
            change("aws_iam_role.lambda", &["create"],
                   json!({"name": "lambda-role", "secret_name": "hush-hush", "tags": {}})),
            change("module.app.aws_iam_instance_profile.p[0]", &["create"],
                   json!({"name": "app profile with spaces", "role": null})),
            change("module.app.aws_instance.i[\"a\"]", &["create"], json!({"ami": "ami-1"})),
            change("aws_lambda_function.f", &["update"], json!({"function_name": "fn-1"})),
            change("aws_s3_bucket.gone", &["delete"], json!(null)),
            change("aws_sns_topic.t", &["create"], json!({"name": "t"})),
        ],
        "configuration": {"root_module": {
            "resources": [
                {"address": "aws_iam_role.lambda", "mode": "managed", "type": "aws_iam_role",
                 "name": "lambda", "expressions": {"name": {"constant_value": "lambda-role"}}},
                {"address": "aws_lambda_function.f", "mode": "managed",
                 "type": "aws_lambda_function", "name": "f",
                 "expressions": {"role": {"references": ["module.app.profile_arn", "module.app"]},
                                 "environment": [{"variables": {"references": ["data.aws_x.y.id", "local.z"]}}]}},
                {"address": "aws_sns_topic.t", "mode": "managed", "type": "aws_sns_topic",
                 "name": "t", "depends_on": ["aws_lambda_function.f"]}
            ],
            "module_calls": {"app": {
                "source": "./app",
                "expressions": {"role_name": {"references": ["aws_iam_role.lambda.name", "aws_iam_role.lambda"]}},
                "depends_on": ["aws_sns_topic.t"],
                "module": {
                    "outputs": {"profile_arn": {"expression": {"references": ["aws_iam_instance_profile.p[0].arn", "aws_iam_instance_profile.p"]}}},
                    "resources": [
                        {"address": "aws_iam_instance_profile.p", "mode": "managed",
                         "type": "aws_iam_instance_profile", "name": "p",
                         "count_expression": {"constant_value": 1},
                         "expressions": {"role": {"references": ["var.role_name"]}}},
                        {"address": "aws_instance.i", "mode": "managed", "type": "aws_instance",
                         "name": "i",
                         "for_each_expression": {"references": ["var.names"]},
                         "expressions": {"iam_instance_profile": {"references": ["aws_iam_instance_profile.p[0].name", "aws_iam_instance_profile.p"]},
                                         "ami": {"references": ["aws_instance.i"]}}}
                    ]
                }
            }}
        }}
    })
    .to_string()
}

#[test]
fn references_follow_module_inputs_outputs_and_depends_on() {
    let text = plan();
    let refs = plan_references(&parse_plan_json(&text).unwrap());
    let get = |a: &str| refs.refers_to.get(a).cloned().unwrap_or_default();
    let want: &[(&str, &[&str])] = &[
        // A module input leads to the root's role; the call's `depends_on` applies too.
        (
            "module.app.aws_iam_instance_profile.p[0]",
            &["aws_iam_role.lambda", "aws_sns_topic.t"],
        ),
        // Instance keys dropped; a reference to its own block is left out.
        (
            "module.app.aws_instance.i[\"a\"]",
            &["aws_sns_topic.t", "module.app.aws_iam_instance_profile.p"],
        ),
        // A module output, and the whole module; data sources and locals lead nowhere.
        (
            "aws_lambda_function.f",
            &[
                "module.app.aws_iam_instance_profile.p",
                "module.app.aws_instance.i",
            ],
        ),
        ("aws_sns_topic.t", &["aws_lambda_function.f"]),
        ("aws_iam_role.lambda", &[]),
        ("aws_s3_bucket.gone", &[]),
    ];
    for (address, expected) in want {
        assert_eq!(get(address), *expected, "{address}");
    }
}

#[test]
fn known_names_are_plain_names_of_created_objects_only() {
    let text = plan();
    let refs = plan_references(&parse_plan_json(&text).unwrap());
    let names: Vec<(&str, Vec<String>)> = refs
        .known_names
        .iter()
        .map(|(a, n)| (a.as_str(), n.clone()))
        .collect();
    // Sensitive, spaced, too short and updated objects' names are not kept.
    assert_eq!(
        names,
        vec![("aws_iam_role.lambda", vec!["lambda-role".to_string()])]
    );
}

#[test]
fn a_plan_without_configuration_refers_to_nothing_and_round_trips() {
    let text = r#"{"format_version":"1.0","resource_changes":[
        {"address":"a.b","mode":"managed","change":{"actions":["create"],"after":{"name":"abc"}}}]}"#;
    let refs = plan_references(&parse_plan_json(text).unwrap());
    assert!(refs.refers_to.is_empty());
    assert_eq!(refs.known_names["a.b"], vec!["abc"]);
    let back: PlanReferences =
        serde_json::from_str(&serde_json::to_string(&refs).unwrap()).unwrap();
    assert_eq!(back, refs);
    let mut filtered = refs.clone();
    filtered.retain_names(|n| n != "abc");
    assert!(filtered.known_names.is_empty() && filtered.is_empty());
    assert_eq!(
        serde_json::from_str::<PlanReferences>("{}").unwrap(),
        PlanReferences::default()
    );
}

#[test]
fn config_addresses_drop_instance_keys() {
    let cases = [
        ("aws_x.y", Some("aws_x.y")),
        ("module.m[0].aws_x.y[\"k\"]", Some("module.m.aws_x.y")),
        (
            "module.a.module.b.aws_x.y[1]",
            Some("module.a.module.b.aws_x.y"),
        ),
        ("module.m", None),
    ];
    for (instance, want) in cases {
        assert_eq!(config_address(instance).as_deref(), want, "{instance}");
    }
}
