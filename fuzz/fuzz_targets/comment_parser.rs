//! A comment body → commands. Never panics; every value that reaches a run is validated; every
//! reply is safe to post (no control characters, balanced code spans, short).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tfgate::command::{parse_comment_located, Command, TerraformArg};

const APP_SLUG: &str = "tfgate-app";

fuzz_target!(|data: &[u8]| {
    let Ok(body) = std::str::from_utf8(data) else {
        return;
    };
    let lines = body.lines().count().max(1);
    let mut previous_line = 0;
    for parsed in parse_comment_located(body, APP_SLUG) {
        assert!(
            parsed.line > previous_line && parsed.line <= lines,
            "line {} after {previous_line} in a body of {lines} lines",
            parsed.line
        );
        previous_line = parsed.line;
        match parsed.result {
            Ok(command) => {
                assert_eq!(command.line, parsed.line);
                check_command(&command);
            }
            Err(error) => check_reply(&error.to_string()),
        }
    }
});

fn check_command(command: &Command) {
    for name in [&command.project, &command.workspace].into_iter().flatten() {
        let allowed = |ch: char| ch.is_ascii_alphanumeric() || matches!(ch, '.' | '_' | '-');
        assert!(
            !name.is_empty() && name.len() <= 64 && name.chars().all(allowed),
            "name {name:?}"
        );
        assert!(
            !name.starts_with('-') && !name.chars().all(|ch| ch == '.'),
            "name {name:?}"
        );
    }
    if let Some(dir) = &command.dir {
        let normal = dir == "."
            || dir
                .split('/')
                .all(|c| !c.is_empty() && c != "." && c != "..");
        assert!(
            normal && !dir.contains("..") && !dir.contains('\\'),
            "dir {dir:?}"
        );
        assert!(
            !dir.starts_with('/') && !dir.chars().any(char::is_control),
            "dir {dir:?}"
        );
    }
    for input in &command.accept_inputs {
        let first_ok = input.starts_with(|ch: char| ch.is_ascii_alphabetic() || ch == '_');
        let rest_ok = input
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || ch == '_');
        assert!(first_ok && rest_ok, "input {input:?}");
    }
    for arg in &command.terraform_args {
        if let TerraformArg::Target(address) | TerraformArg::Replace(address) = arg {
            let starts = address.starts_with(|ch: char| ch.is_ascii_alphabetic() || ch == '_');
            assert!(starts, "address {address:?}");
            assert!(
                !address.chars().any(char::is_control),
                "address {address:?}"
            );
        }
        let cli = arg.to_cli_arg();
        assert!(
            cli.starts_with('-') && !cli.contains('\n'),
            "argument {cli:?}"
        );
    }
}

fn check_reply(reply: &str) {
    assert!(!reply.chars().any(char::is_control), "reply {reply:?}");
    assert!(
        reply.matches('`').count() % 2 == 0,
        "unbalanced code span: {reply:?}"
    );
    assert!(
        reply.chars().count() <= 600,
        "reply of {} chars",
        reply.chars().count()
    );
}
