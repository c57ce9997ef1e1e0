use super::*;
use crate::terraform::instance_key::InstanceKey;
use crate::terraform::outcome::Action;

fn one(line: &str) -> UiMessage {
    parse_ui_line(line).unwrap().unwrap()
}

#[test]
fn blank_lines_are_skipped() {
    for line in ["", "   ", "\r", "\t\r\n"] {
        assert_eq!(parse_ui_line(line), Ok(None), "{line:?}");
    }
}

#[test]
fn non_json_lines_are_kept_verbatim() {
    for line in [
        "panic: runtime error: index out of range [1] with length 1",
        "goroutine 1 [running]:",
        "{\"truncated\": ",
        "[1,2]",
        "42",
        "{\"@message\": 5, \"type\": \"log\"}",
    ] {
        assert_eq!(
            one(line),
            UiMessage::NonJson {
                line: line.to_string()
            }
        );
    }
}

#[test]
fn crash_output_does_not_fail_the_stream() {
    let text = "{\"@level\":\"info\",\"@message\":\"Terraform 1.5.7\",\"@module\":\"terraform.ui\",\"terraform\":\"1.5.7\",\"type\":\"version\",\"ui\":\"1.1\"}\r\n\
                \r\n\
                panic: boom\r\n\
                {\"@level\":\"info\",\"@message\":\"aws_s3_bucket.b: Creating...\",\"type\":\"apply_start\",\"hook\":{\"resource\":{\"addr\":\"aws_s3_bucket.b\"},\"action\":\"create\"}}\n";
    let stream = parse_ui_stream(text).unwrap();
    assert_eq!(stream.messages.len(), 3);
    assert_eq!(stream.non_json_lines(), 1);
    assert_eq!(
        stream.version.as_ref().unwrap().ui,
        FormatVersion { major: 1, minor: 1 }
    );
    assert!(
        matches!(&stream.messages[2], UiMessage::ApplyStart { hook, .. } if hook.action() == Some(Action::Create))
    );
}

#[test]
fn accepts_every_known_ui_version() {
    for (ui, major, minor) in [
        ("0.1.0", 0, 1),
        ("1.0", 1, 0),
        ("1.1", 1, 1),
        ("1.2", 1, 2),
        ("1.3", 1, 3),
        ("1.9", 1, 9),
    ] {
        let line = format!(
            r#"{{"@message":"Terraform x","terraform":"1.x","type":"version","ui":"{ui}"}}"#
        );
        let UiMessage::Version { version, .. } = one(&line) else {
            panic!("not a version message")
        };
        assert_eq!(version.ui, FormatVersion { major, minor }, "{ui}");
    }
}

#[test]
fn rejects_unknown_major_or_garbled_version() {
    let cases = [
        (
            r#"{"type":"version","terraform":"2.0.0","ui":"2.0"}"#,
            "2.0",
        ),
        (
            r#"{"type":"version","terraform":"9.0.0","ui":"10.1"}"#,
            "10.1",
        ),
        (r#"{"type":"version","terraform":"1.0.0"}"#, "(empty)"),
        (r#"{"type":"version","ui":"one"}"#, "one"),
    ];
    for (line, version) in cases {
        assert_eq!(
            parse_ui_line(line),
            Err(UiError::UnsupportedVersion {
                version: version.to_string()
            }),
            "{line}"
        );
    }
    let text = format!("{}\n{}", cases[0].0, r#"{"type":"log","@message":"x"}"#);
    let err = parse_ui_stream(&text).unwrap_err();
    assert_eq!(
        err.to_string(),
        "unsupported Terraform JSON UI version 2.0 (supported: 0.1 and 1.x)"
    );
}

#[test]
fn opentofu_stream() {
    let text = r#"{"@level":"info","@message":"OpenTofu 1.8.0","@module":"tofu.ui","@timestamp":"2024-08-01T10:00:00.000000Z","tofu":"1.8.0","type":"version","ui":"1.2"}
{"@level":"info","@message":"ephemeral.random_password.p: Opening...","@module":"tofu.ui","hook":{"Msg":"Opening...","resource":{"addr":"ephemeral.random_password.p","implied_provider":"random","module":"","resource":"ephemeral.random_password.p","resource_key":null,"resource_name":"p","resource_type":"random_password"}},"type":"ephemeral_action_started"}
{"@level":"info","@message":"ephemeral.random_password.p: Open complete","@module":"tofu.ui","hook":{"Msg":"Open complete","resource":{"addr":"ephemeral.random_password.p","implied_provider":"random","module":"","resource":"ephemeral.random_password.p","resource_key":null,"resource_name":"p","resource_type":"random_password"}},"type":"ephemeral_action_complete"}
{"@level":"info","@message":"aws_s3_bucket.b[\"logs\"]: Plan to create","@module":"tofu.ui","change":{"resource":{"addr":"aws_s3_bucket.b[\"logs\"]","module":"","resource":"aws_s3_bucket.b[\"logs\"]","implied_provider":"aws","resource_type":"aws_s3_bucket","resource_name":"b","resource_key":"logs"},"action":"create"},"type":"planned_change"}
{"@level":"info","@message":"Plan: 1 to add, 0 to change, 0 to destroy.","@module":"tofu.ui","changes":{"add":1,"change":0,"import":0,"remove":0,"operation":"plan"},"type":"change_summary"}"#;
    let stream = parse_ui_stream(text).unwrap();
    let version = stream.version.as_ref().unwrap();
    assert_eq!(version.program, Program::OpenTofu);
    assert_eq!(version.program_version, "1.8.0");
    assert_eq!(version.ui, FormatVersion { major: 1, minor: 2 });
    let UiMessage::Ephemeral { phase, hook, meta } = &stream.messages[1] else {
        panic!("expected an ephemeral message: {:?}", stream.messages[1])
    };
    assert_eq!(*phase, EphemeralPhase::Start);
    assert_eq!(hook.msg.as_deref(), Some("Opening..."));
    assert_eq!(hook.action, None);
    assert_eq!(meta.module.as_deref(), Some("tofu.ui"));
    assert!(matches!(
        &stream.messages[2],
        UiMessage::Ephemeral {
            phase: EphemeralPhase::Complete,
            ..
        }
    ));
    let UiMessage::PlannedChange { change, .. } = &stream.messages[3] else {
        panic!("expected planned_change")
    };
    assert_eq!(
        change.resource.resource_key,
        Some(InstanceKey::Str("logs".into()))
    );
    assert_eq!(stream.change_summary().unwrap().add, 1);
}

#[test]
fn terraform_ephemeral_ops() {
    let line = r#"{"@level":"info","@message":"x","type":"ephemeral_op_errored","hook":{"resource":{"addr":"ephemeral.aws_secretsmanager_secret_version.s"},"action":"open","elapsed_seconds":0.25}}"#;
    let UiMessage::Ephemeral { phase, hook, .. } = one(line) else {
        panic!("expected ephemeral")
    };
    assert_eq!(phase, EphemeralPhase::Errored);
    assert_eq!(hook.action.as_deref(), Some("open"));
    assert_eq!(hook.elapsed_seconds, Some(0.25));
}

#[test]
fn unknown_types_and_keys_become_other_or_are_ignored() {
    let cases = [
        (
            r#"{"@level":"info","@message":"t","type":"test_run","test_run":{"path":"a"}}"#,
            "test_run",
        ),
        (
            r#"{"@level":"info","@message":"a","type":"action_start","hook":{}}"#,
            "action_start",
        ),
        (r#"{"@level":"info","@message":"no type at all"}"#, ""),
        // Known type, payload missing or with an unexpected shape.
        (
            r#"{"@level":"info","@message":"m","type":"apply_start"}"#,
            "apply_start",
        ),
        (
            r#"{"@level":"info","@message":"m","type":"planned_change","change":{"action":"create"}}"#,
            "planned_change",
        ),
        (
            r#"{"@level":"error","@message":"m","type":"diagnostic","diagnostic":"oops"}"#,
            "diagnostic",
        ),
    ];
    for (line, type_) in cases {
        match one(line) {
            UiMessage::Other { type_: got, meta } => {
                assert_eq!(got, type_, "{line}");
                assert!(!meta.message.is_empty());
            }
            other => panic!("{line}: {other:?}"),
        }
    }
    let with_extra = one(
        r#"{"@level":"info","@message":"x","@new":"y","type":"apply_complete","hook":{"resource":{"addr":"a.b","new_field":1},"action":"update","elapsed_seconds":3,"extra":[1]}}"#,
    );
    let UiMessage::ApplyComplete { hook, .. } = with_extra else {
        panic!("extra keys must be ignored")
    };
    assert_eq!(hook.elapsed_seconds, Some(3.0));
}

#[test]
fn log_message_keeps_envelope() {
    let message = one(
        r#"{"@level":"info","@message":"Apply cancelled.","@module":"terraform.ui","@timestamp":"2024-01-01T00:00:00Z","type":"log"}"#,
    );
    assert_eq!(
        message.meta(),
        Some(&UiMeta {
            level: Some("info".into()),
            message: "Apply cancelled.".into(),
            module: Some("terraform.ui".into()),
            timestamp: Some("2024-01-01T00:00:00Z".into()),
        })
    );
    assert!(matches!(message, UiMessage::Log { .. }));
}

#[test]
fn first_version_line_wins_and_bom_is_ignored() {
    let text = "\u{feff}{\"type\":\"version\",\"terraform\":\"1.4.0\",\"ui\":\"1.1\"}\n{\"type\":\"version\",\"terraform\":\"1.6.0\",\"ui\":\"1.2\"}";
    let stream = parse_ui_stream(text).unwrap();
    assert_eq!(stream.version.unwrap().program_version, "1.4.0");
    assert_eq!(stream.messages.len(), 2);
}

#[test]
fn stream_without_version_line() {
    let stream = parse_ui_stream(r#"{"type":"log","@message":"x"}"#).unwrap();
    assert_eq!(stream.version, None);
    assert_eq!(stream.messages.len(), 1);
}
