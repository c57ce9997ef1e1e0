//! Text that must never run: code blocks, quotes, HTML comments, mid-line mentions, `/cc`.

use super::*;
use crate::command::CommandKind::*;

#[test]
fn ignored_bodies_give_nothing() {
    let ignored = [
        // Mid-line mentions.
        "please run /plan",
        "can someone /apply this?",
        "I think tfgate plan is broken",
        "ping @tfgate-bot plan",
        "- /plan",
        "# /plan",
        "| /plan | x |",
        "`/plan`",
        "**/plan**",
        // Bare slash words that are not commands.
        "/cc @alice",
        "/shrug",
        "/approve",
        "/deploy",
        "/lgtm",
        "/path/to/file.tf is wrong",
        "/plan, please",
        "/",
        "tfgate",
        "tfgate,",
        "Tfgate plan",
        "@tfgate-botx plan",
        "@someone-else plan",
        // Fenced code blocks, any length, either marker, indented.
        "```\n/plan\n```",
        "```sh\n/apply\n```",
        "````\n/apply\n```\n/apply\n````",
        "~~~\n/apply\n~~~",
        "~~~~~ text\n/apply\n~~~~~",
        "  ```\n  /apply\n  ```",
        "- list\n\n      ```\n      /apply\n      ```",
        "```\nunclosed\n/apply",
        // Indented code blocks.
        "    /apply",
        "text\n\n    /apply",
        "\t/apply",
        "    code\n\n    /apply",
        // Block quotes.
        "> /apply",
        ">/apply",
        "   > /apply",
        "> > /apply",
        "> I ran\n/apply",
        "> ```\n> /apply",
        // HTML comments.
        "<!-- /apply -->",
        "<!--\n/apply\n-->",
        "text <!--\n/apply\n-->",
        "<!-- start\n\n/apply\n\nend -->",
    ];
    for body in ignored {
        assert_eq!(parse(body), vec![], "{body:?}");
    }
}

#[test]
fn commands_after_ignored_blocks_still_count() {
    let cases: Vec<(&str, Vec<Command>)> = vec![
        ("```\n/apply\n```\n/plan", vec![command(Plan).on_line(4)]),
        ("~~~\n```\n~~~\n/plan", vec![command(Plan).on_line(4)]),
        ("> quoted /apply\n\n/plan", vec![command(Plan).on_line(3)]),
        ("> quoted\n>\n/plan", vec![command(Plan).on_line(3)]),
        ("<!-- /apply -->\n/plan", vec![command(Plan).on_line(2)]),
        ("<!--\n/apply\n-->\n/plan", vec![command(Plan).on_line(4)]),
        ("<!-- note --> /plan", vec![command(Plan)]),
        ("/plan <!-- because -->", vec![command(Plan)]),
        (
            "/plan -p net <!-- multi\nline --> ",
            vec![command(Plan).project("net")],
        ),
        (
            "`<!--` is how comments start\n/plan",
            vec![command(Plan).on_line(2)],
        ),
        ("    code\n\n/plan", vec![command(Plan).on_line(3)]),
        ("```a`b```\n/plan", vec![command(Plan).on_line(2)]),
    ];
    for (body, expected) in cases {
        let expected: Vec<Result<Command, ParseError>> = expected.into_iter().map(Ok).collect();
        assert_eq!(parse(body), expected, "{body:?}");
    }
}

#[test]
fn a_realistic_review_comment() {
    let body = "\
Thanks! Reviewed the plan.\r
\r
> /apply -p net\r
> (from the previous comment)\r
\r
To re-run it yourself:\r
```console\r
/apply -p net\r
```\r
<!-- bot: do not /apply before Friday -->\r
/apply -p net --accept-input ADMIN_CIDRS\r
/cc @security-team\r
";
    assert_eq!(
        parse(body),
        vec![Ok(command(Apply)
            .project("net")
            .accept("ADMIN_CIDRS")
            .on_line(11))]
    );
}

#[test]
fn typo_suggestions_apply_to_bare_slash_words() {
    assert_eq!(
        parse("/pla -p net"),
        vec![Err(ParseError::UnknownCommand {
            written: "/pla".into(),
            suggestion: Some("/plan".into())
        })]
    );
    assert_eq!(
        parse("/Inptus"),
        vec![Err(ParseError::UnknownCommand {
            written: "/Inptus".into(),
            suggestion: Some("/inputs".into())
        })]
    );
}

#[test]
fn candidate_check_is_cheap_but_not_blind() {
    use crate::command::is_command_candidate;
    let not_candidates = [
        "",
        "Looks good to me",
        "please run /plan",
        "ask @tfgate-bot later",
        "> quoted",
        "Tfgate is great",
    ];
    for body in not_candidates {
        assert!(!is_command_candidate(body, SLUG), "{body:?}");
    }
    let candidates = [
        "/plan",
        "hi\n  /cc @x",
        "tfgate plan",
        "tfgate",
        "@TFGATE-BOT",
        "<!-- note --> /plan",
        "<!-- a --><!-- b -->tfgate plan",
        "<!--\nx -->/plan",
    ];
    for body in candidates {
        assert!(is_command_candidate(body, SLUG), "{body:?}");
    }
    assert!(
        !is_command_candidate("@tfgate-bot plan", ""),
        "empty slug matches no mention"
    );
}
