//! Properties over arbitrary and command-shaped input.

use super::*;
use crate::command::is_command_candidate;
use proptest::prelude::*;

/// Pieces that exercise every branch of the parser when glued together.
const FRAGMENTS: &[&str] = &[
    "/plan",
    "/apply",
    "/unlock",
    "/cancel",
    "/help",
    "/inputs",
    "/plna",
    "/cc",
    "tfgate ",
    "@tfgate-bot ",
    "@TFGATE-BOT",
    " ",
    "  ",
    "    ",
    "\t",
    "\n",
    "\r\n",
    "-p",
    "--project=",
    "-d",
    "--dir=",
    "-w",
    "--accept-input",
    " ABC",
    " net",
    " ..",
    "../",
    "/etc",
    ".",
    "./",
    "a/b",
    "\\",
    "--",
    " -- ",
    "-target=",
    "-replace=",
    "aws_s3_bucket.b",
    "module.m",
    "[\"k\"]",
    "[0]",
    "\"",
    "-refresh=false",
    "-lock-timeout=",
    "30s",
    "11m",
    "-chdir=",
    "-var",
    ";",
    "|",
    "`",
    "$",
    "```",
    "~~~",
    ">",
    "<!--",
    "-->",
    "\u{0}",
    "\u{1b}",
    "é",
    "\u{a0}",
    "=",
    "x",
];

fn command_shaped() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(FRAGMENTS), 0..40).prop_map(|parts| parts.concat())
}

/// One flag with a value drawn to hit the directory and name rules (dots, slashes, backslashes).
fn flag() -> impl Strategy<Value = String> {
    let spelling = prop::sample::select(&["-d ", "--dir=", "-p ", "-w ", "--accept-input "][..]);
    let value = prop_oneof![
        "[a./]{1,10}",
        "[a.\\\\/~:-]{1,8}",
        prop::sample::select(&["..", "./..", "a/../b", "/etc", "//x", ".", "./", "a//b/"][..])
            .prop_map(str::to_string),
    ];
    (spelling, value).prop_map(|(spelling, value)| format!("{spelling}{value}"))
}

/// One token after `--`, close to the allowlist.
fn terraform_token() -> impl Strategy<Value = String> {
    let flag = prop::sample::select(
        &[
            "-target=",
            "-replace=",
            "-lock-timeout=",
            "-refresh=",
            "-chdir=",
        ][..],
    );
    let value = "[a-z_.0-9\\[\\]\"]{1,16}|[0-9]{1,3}(ms|s|m|h)|false";
    (flag, value).prop_map(|(flag, value)| format!("{flag}{value}"))
}

/// A command line built from the grammar, so many of them are accepted.
fn command_line() -> impl Strategy<Value = String> {
    let prefix = prop::sample::select(
        &[
            "/plan",
            "/apply",
            "tfgate plan",
            "@tfgate-bot apply",
            "/unlock",
            "/cancel",
        ][..],
    );
    let flags = prop::collection::vec(flag(), 0..4);
    let terraform = prop::option::of(prop::collection::vec(terraform_token(), 0..3));
    (prefix, flags, terraform).prop_map(|(prefix, flags, terraform)| {
        let mut line = format!("{prefix} {}", flags.join(" "));
        if let Some(tokens) = terraform {
            line.push_str(" -- ");
            line.push_str(&tokens.join(" "));
        }
        line
    })
}

fn any_body() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[ -~\\n\\t\\r]{0,200}",
        command_shaped(),
        prop::collection::vec(command_line(), 1..4).prop_map(|lines| lines.join("\n")),
    ]
}

fn check_accepted(command: &Command, body: &str) {
    if let Some(dir) = &command.dir {
        assert!(!dir.contains(".."), "{dir:?} from {body:?}");
        assert!(!dir.starts_with('/'), "{dir:?} from {body:?}");
        assert!(
            !dir.contains('\\') && !dir.chars().any(char::is_control),
            "{dir:?}"
        );
        assert!(
            !dir.is_empty() && !dir.ends_with('/') && !dir.starts_with("./"),
            "{dir:?}"
        );
    }
    for arg in &command.terraform_args {
        let cli = arg.to_cli_arg();
        assert!(
            !cli.contains(|ch: char| ";|&$`<>\n".contains(ch) || ch.is_whitespace()),
            "{cli:?}"
        );
    }
    assert!(
        command.line >= 1 && command.line <= body.lines().count(),
        "line {} of {body:?}",
        command.line
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn never_panics_and_accepted_commands_are_safe(body in any_body()) {
        let results = parse(&body);
        for command in results.iter().flatten() {
            check_accepted(command, &body);
        }
        if !results.is_empty() {
            prop_assert!(is_command_candidate(&body, SLUG), "candidate false for {:?}", body);
        }
        for error in results.iter().filter_map(|result| result.as_ref().err()) {
            let reply = error.to_string();
            prop_assert!(!reply.contains('\n') && !reply.chars().any(char::is_control), "{:?}", reply);
        }
    }

    #[test]
    fn lines_are_found_wherever_they_sit(prefix in "[a-z ]{0,20}", lines_before in 0usize..5) {
        let body = format!("{}{prefix}\n\n/plan -p net", "text\n".repeat(lines_before));
        let results = parse(&body);
        let last = results.last().cloned();
        prop_assert_eq!(last, Some(Ok(command(CommandKind::Plan).project("net").on_line(lines_before + 3))));
    }
}
