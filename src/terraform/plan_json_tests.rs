use super::*;
use crate::terraform::outcome::Action;

#[test]
fn minimal_plans_of_each_known_version_parse() {
    for version in ["0.1", "0.2", "1.0", "1.1", "1.2", "1.9"] {
        let text = format!(r#"{{"format_version":"{version}"}}"#);
        let plan = parse_plan_json(&text).unwrap();
        assert_eq!(plan.format.to_string(), version);
        assert!(plan.resource_changes.is_empty() && plan.configuration.is_none());
        assert!(!plan.errored);
    }
}

#[test]
fn unknown_major_version_is_rejected_even_when_shape_changed() {
    for text in [
        r#"{"format_version":"2.0","resource_changes":[]}"#,
        r#"{"format_version":"2.0","resource_changes":{"new":"shape"}}"#,
    ] {
        let err = parse_plan_json(text).unwrap_err();
        assert!(
            matches!(&err, PlanJsonError::UnsupportedFormatVersion { version } if version == "2.0"),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "unsupported plan JSON format version 2.0 (supported: 0.x and 1.x)"
        );
    }
}

#[test]
fn missing_version_is_an_error() {
    for text in ["{}", r#"{"format_version":""}"#] {
        assert!(matches!(
            parse_plan_json(text),
            Err(PlanJsonError::MissingFormatVersion)
        ));
    }
}

#[test]
fn malformed_error_message_does_not_quote_content() {
    let text = "{\"format_version\":\"1.2\",\n\"resource_changes\":[{\"address\":\"arn:aws:iam::123456789012:role/x\",\"change\":7}]}";
    let err = parse_plan_json(text).unwrap_err();
    let message = err.to_string();
    assert!(
        message.starts_with("plan JSON is malformed (line 2"),
        "{message}"
    );
    assert!(!message.contains("arn:aws"), "{message}");
    assert!(!message.contains("123456789012"), "{message}");
    let truncated = parse_plan_json("{\"format_version\":\"1.2\",").unwrap_err();
    assert!(matches!(truncated, PlanJsonError::Malformed { .. }));
}

#[test]
fn bom_and_escapes_are_handled() {
    let text = "\u{feff}{\"format_version\":\"1.2\",\"resource_changes\":[{\"address\":\"a.b[\\\"k\\u003e\\\"]\",\"change\":{\"actions\":[\"update\"],\"before\":{\"v\":\"\\u003e 1\"},\"after\":{\"v\":\"2\"}}}]}";
    let plan = parse_plan_json(text).unwrap();
    let rc = &plan.resource_changes[0];
    assert_eq!(rc.address, "a.b[\"k>\"]");
    assert_eq!(rc.change.action(), Some(Action::Update));
    assert_eq!(rc.change.before_value().unwrap()["v"], "> 1");
}

#[test]
fn null_and_bare_bool_values() {
    let text = r#"{"format_version":"1.2","resource_changes":[{"address":"a.b","change":{"actions":["delete"],"before":{"x":1},"after":null,"after_unknown":false,"before_sensitive":false,"after_sensitive":false}}]}"#;
    let plan = parse_plan_json(text).unwrap();
    let change = &plan.resource_changes[0].change;
    assert!(change.after.is_none());
    assert_eq!(change.after_value(), None);
    assert_eq!(change.after_unknown_value(), Some(Value::Bool(false)));
    assert_eq!(change.before_sensitive.unwrap().get(), "false");
}

#[test]
fn opentofu_plan_without_applyable_and_complete() {
    let text = r#"{"format_version":"1.2","terraform_version":"1.8.1","errored":false,
        "resource_changes":[{"address":"aws_s3_bucket.b","mode":"managed","type":"aws_s3_bucket","name":"b",
          "provider_name":"registry.opentofu.org/hashicorp/aws",
          "change":{"actions":["create","delete"],"before":{},"after":{},"replace_paths":[["bucket"],["tags",0]]},
          "action_reason":"replace_because_cannot_update"}]}"#;
    let plan = parse_plan_json(text).unwrap();
    assert_eq!((plan.applyable, plan.complete), (None, None));
    let rc = &plan.resource_changes[0];
    assert_eq!(rc.change.action(), Some(Action::Replace));
    assert_eq!(
        rc.change.replace_paths,
        vec![
            vec![PathStep::Key("bucket".into())],
            vec![PathStep::Key("tags".into()), PathStep::Index(0)]
        ]
    );
}
