//! Every accepted form: prefixes, flag spellings, Terraform flags, several commands, line endings.

use super::*;
use crate::command::{is_command_candidate, parse_comment_located, CommandKind::*};

fn target(address: &str) -> TerraformArg {
    TerraformArg::Target(address.to_string())
}

#[test]
fn every_accepted_form() {
    let cases: Vec<(&str, Command)> = vec![
        // Prefix styles.
        ("/plan", command(Plan)),
        ("tfgate plan", command(Plan)),
        ("@tfgate-bot plan", command(Plan)),
        ("@TFGate-Bot plan", command(Plan)),
        ("@tfgate-bot /plan", command(Plan)),
        ("tfgate /apply", command(Apply)),
        ("/Plan", command(Plan)),
        ("/APPLY", command(Apply)),
        ("/apply", command(Apply)),
        ("/unlock", command(Unlock)),
        ("/cancel", command(Cancel)),
        ("/help", command(Help)),
        ("/inputs", command(Inputs)),
        ("tfgate inputs", command(Inputs)),
        ("@tfgate-bot help", command(Help)),
        // Leading and trailing whitespace.
        ("   /plan", command(Plan)),
        ("  /plan \t ", command(Plan)),
        ("/plan\t-p\tnet", command(Plan).project("net")),
        // Flag spellings.
        ("/plan -p net", command(Plan).project("net")),
        ("/plan --project net", command(Plan).project("net")),
        ("/plan --project=net", command(Plan).project("net")),
        ("/plan -p=net", command(Plan).project("net")),
        ("/plan -d infra/net", command(Plan).dir("infra/net")),
        ("/plan --dir infra/net", command(Plan).dir("infra/net")),
        ("/plan --dir=./infra/net/", command(Plan).dir("infra/net")),
        ("/plan -d .", command(Plan).dir(".")),
        ("/plan -d ./", command(Plan).dir(".")),
        ("/plan -w prod", command(Plan).workspace("prod")),
        ("/plan --workspace prod", command(Plan).workspace("prod")),
        ("/plan --workspace=prod", command(Plan).workspace("prod")),
        (
            "@tfgate-bot apply -p net -d envs/prod -w prod.eu_1",
            command(Apply)
                .project("net")
                .dir("envs/prod")
                .workspace("prod.eu_1"),
        ),
        (
            "/apply --accept-input ADMIN_CIDRS",
            command(Apply).accept("ADMIN_CIDRS"),
        ),
        (
            "/apply --accept-input=A --accept-input B --accept-input A",
            command(Apply).accept("A").accept("B"),
        ),
        (
            "/unlock -p net -d infra -w default",
            command(Unlock)
                .project("net")
                .dir("infra")
                .workspace("default"),
        ),
        ("/cancel -p net", command(Cancel).project("net")),
        // Terraform flags after `--`.
        ("/plan --", command(Plan)),
        (
            "/plan -- -target=aws_s3_bucket.b",
            command(Plan).tf(target("aws_s3_bucket.b")),
        ),
        (
            r#"/plan -- -target=aws_s3_bucket.b["k"] -target=module.net"#,
            command(Plan)
                .tf(target(r#"aws_s3_bucket.b["k"]"#))
                .tf(target("module.net")),
        ),
        (
            "/plan -- -replace=module.net.aws_instance.a[0]",
            command(Plan).tf(TerraformArg::Replace("module.net.aws_instance.a[0]".into())),
        ),
        (
            "/plan -- -refresh=false",
            command(Plan).tf(TerraformArg::RefreshFalse),
        ),
        (
            "/plan -- -lock-timeout=30s",
            command(Plan).tf(TerraformArg::LockTimeout("30s".into())),
        ),
        (
            "/apply -- -lock-timeout=10m",
            command(Apply).tf(TerraformArg::LockTimeout("10m".into())),
        ),
        (
            "tfgate plan -p net -- -refresh=false -lock-timeout=1m30s -target=data.aws_ami.x",
            command(Plan)
                .project("net")
                .tf(TerraformArg::RefreshFalse)
                .tf(TerraformArg::LockTimeout("1m30s".into()))
                .tf(target("data.aws_ami.x")),
        ),
    ];
    for (body, expected) in cases {
        assert_eq!(parse_one(body), Ok(expected), "{body:?}");
        assert!(is_command_candidate(body, SLUG), "{body:?}");
    }
}

#[test]
fn several_commands_in_order_with_their_lines() {
    let body = "Looks good.\n/plan -p net\n\nthen\n  tfgate apply -p net\n@tfgate-bot unlock\n";
    assert_eq!(
        parse(body),
        vec![
            Ok(command(Plan).project("net").on_line(2)),
            Ok(command(Apply).project("net").on_line(5)),
            Ok(command(Unlock).on_line(6)),
        ]
    );
}

#[test]
fn crlf_line_endings() {
    let body = "hi\r\n/plan -p net\r\n/apply -p net\r\n";
    assert_eq!(
        parse(body),
        vec![
            Ok(command(Plan).project("net").on_line(2)),
            Ok(command(Apply).project("net").on_line(3)),
        ]
    );
}

#[test]
fn located_results_keep_line_numbers_of_errors() {
    let located = parse_comment_located("/plan\n/plan -x\n", SLUG);
    let lines: Vec<(usize, bool)> = located
        .iter()
        .map(|parsed| (parsed.line, parsed.result.is_ok()))
        .collect();
    assert_eq!(lines, vec![(1, true), (2, false)]);
}

#[test]
fn indented_command_continuing_a_paragraph_is_a_command() {
    assert_eq!(
        parse("please:\n    /plan"),
        vec![Ok(command(Plan).on_line(2))]
    );
}

#[test]
fn commands_serialise_to_json_and_back() {
    let original = command(Apply)
        .project("net")
        .dir("infra")
        .accept("ADMIN_CIDRS")
        .tf(TerraformArg::LockTimeout("5m".into()))
        .tf(TerraformArg::RefreshFalse);
    let json = serde_json::to_value(&original).unwrap();
    assert_eq!(json["kind"], "apply");
    assert_eq!(json["terraform_args"][0]["lock_timeout"], "5m");
    assert_eq!(json["terraform_args"][1], "refresh_false");
    let back: Command = serde_json::from_value(json).unwrap();
    assert_eq!(back, original);
}

#[test]
fn kinds_are_named_and_found_by_name() {
    for kind in CommandKind::ALL {
        assert_eq!(CommandKind::from_name(kind.name()), Some(kind));
        assert_eq!(kind.slash_form(), format!("/{kind}"));
    }
    assert_eq!(CommandKind::from_name("plna"), None);
}
