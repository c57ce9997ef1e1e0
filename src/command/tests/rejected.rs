//! Every rejection, with the exact reply text a PR reader gets.

use super::*;
use crate::command::CommandKind::*;
use crate::command::DirProblem;

/// (comment line, exact reply).
const REPLIES: &[(&str, &str)] = &[
    // Forbidden Terraform flags, after or before `--`, with one or two dashes.
    ("/plan -- -chdir=/etc", "`-chdir` is not allowed: tfgate runs Terraform in the project's directory; use `-d DIR`."),
    ("/plan -chdir=x", "`-chdir` is not allowed: tfgate runs Terraform in the project's directory; use `-d DIR`."),
    ("/plan -- --chdir x", "`--chdir` is not allowed: tfgate runs Terraform in the project's directory; use `-d DIR`."),
    ("/plan -- -plugin-dir=/tmp", "`-plugin-dir` is not allowed: tfgate installs providers from its own mirror."),
    ("/plan -- -state=x.tfstate", "`-state` is not allowed: tfgate uses the project's configured backend; state paths are not set from comments."),
    ("/plan -- -state-out=x", "`-state-out` is not allowed: tfgate uses the project's configured backend; state paths are not set from comments."),
    ("/apply -- -backup=x", "`-backup` is not allowed: tfgate uses the project's configured backend; state paths are not set from comments."),
    ("/plan -- -var-file=prod.tfvars", "`-var-file` is not allowed: variables come from the repository and tfgate's configuration, not from comments."),
    ("/plan -- -var x=1", "`-var` is not allowed: variables come from the repository and tfgate's configuration, not from comments."),
    ("/plan -- -lock=false", "`-lock` is not allowed: tfgate always locks the state; use `-lock-timeout=` to wait longer."),
    ("/plan -- -out=p", "`-out` is not allowed: tfgate saves the plan itself."),
    ("/apply -- -auto-approve", "`-auto-approve` is not allowed: `/apply` always applies the plan saved by `/plan`."),
    ("/plan -- -destroy", "`-destroy` is not allowed: destroying from a comment is not supported."),
    // Anything else after `--`.
    ("/plan -- -parallelism=50", "`-parallelism` is not allowed after `--`; tfgate accepts only `-target=`, `-replace=`, `-refresh=false` and `-lock-timeout=`."),
    ("/plan -- plan.out", "`plan.out` is not allowed after `--`; tfgate accepts only `-target=`, `-replace=`, `-refresh=false` and `-lock-timeout=`."),
    ("/plan -- -refresh=true", "`-refresh=true` is not allowed after `--`; tfgate accepts only `-target=`, `-replace=`, `-refresh=false` and `-lock-timeout=`."),
    ("/plan -- --target=a.b", "`--target` is not allowed after `--`; tfgate accepts only `-target=`, `-replace=`, `-refresh=false` and `-lock-timeout=`."),
    ("/plan -- -- -target=a.b", "`--` is not allowed after `--`; tfgate accepts only `-target=`, `-replace=`, `-refresh=false` and `-lock-timeout=`."),
    ("/plan -- -target aws_s3_bucket.b", "`-target` takes its value after `=`, like `-target=aws_s3_bucket.logs`."),
    ("/plan -- -lock-timeout", "`-lock-timeout` takes its value after `=`, like `-lock-timeout=5m`."),
    ("/plan -- -lock-timeout=11m", "`-lock-timeout` takes a duration of at most 10m, like `30s` or `5m`; `11m` is not one."),
    ("/plan -- -target=aws_s3_bucket", "`-target` needs a resource or module address, like `-target=module.net.aws_subnet.a[\"x\"]`; `aws_s3_bucket` is not one."),
    ("/plan -- -target=\"aws_s3_bucket.b\"", "`-target` needs a resource or module address, like `-target=module.net.aws_subnet.a[\"x\"]`; `\"aws_s3_bucket.b\"` is not one."),
    ("/plan -- -replace=module.net", "`-replace` needs a resource address, like `-replace=aws_s3_bucket.logs`; `module.net` is not one."),
    // Plan-only Terraform flags on /apply.
    ("/apply -- -target=aws_s3_bucket.b", "`/apply` does not take `-target`: targets belong to the plan; run `/plan -- -target=...` first."),
    ("/apply -- -replace=aws_s3_bucket.b", "`/apply` does not take `-replace`: replacements belong to the plan; run `/plan -- -replace=...` first."),
    ("/apply -- -refresh=false", "`/apply` does not take `-refresh=false`: refreshing is decided by the plan; run `/plan -- -refresh=false` first."),
    // Terraform flags written before `--`, or given to commands that take none.
    ("/plan -target=aws_s3_bucket.b", "`-target=aws_s3_bucket.b` is a Terraform flag: put it after `--`, like `/plan -- -target=aws_s3_bucket.b`."),
    ("/plan -lock-timeout=99m", "`-lock-timeout` takes a duration of at most 10m, like `30s` or `5m`; `99m` is not one."),
    ("/apply -target=aws_s3_bucket.b", "`/apply` does not take `-target`: targets belong to the plan; run `/plan -- -target=...` first."),
    ("/apply -refresh=false", "`/apply` does not take `-refresh=false`: refreshing is decided by the plan; run `/plan -- -refresh=false` first."),
    ("/unlock -target=aws_s3_bucket.b", "`/unlock` does not take Terraform flags."),
    ("/unlock -- -lock-timeout=5m", "`/unlock` does not take Terraform flags."),
    ("/help --", "`/help` does not take Terraform flags."),
    ("/cancel -- -chdir=x", "`/cancel` does not take Terraform flags."),
    // Shell metacharacters, quotes, control characters.
    ("/plan -- -target=a.b;rm", "`;` in `-target=a.b;rm` is not allowed: tfgate passes arguments to Terraform directly, never through a shell."),
    ("/plan -p net|x", "`|` in `net|x` is not allowed: tfgate passes arguments to Terraform directly, never through a shell."),
    ("/plan -p a&b", "`&` in `a&b` is not allowed: tfgate passes arguments to Terraform directly, never through a shell."),
    ("/plan -d $HOME", "`$` in `$HOME` is not allowed: tfgate passes arguments to Terraform directly, never through a shell."),
    ("/plan -d `id`", "a backtick in `id` is not allowed: tfgate passes arguments to Terraform directly, never through a shell."),
    ("/plan -- -target=a.b>x", "`>` in `-target=a.b>x` is not allowed: tfgate passes arguments to Terraform directly, never through a shell."),
    ("/plan -- -target=<x", "`<` in `-target=<x` is not allowed: tfgate passes arguments to Terraform directly, never through a shell."),
    ("/plan -p \"my proj\"", "unbalanced `\"` in `\"my`: tfgate does not use shell quoting; write values without spaces."),
    ("/plan -p a\u{1b}[31m", "a control character in `a[31m` is not allowed."),
    // Directories.
    ("/plan -d ../secrets", "`../secrets` is not a valid directory: `..` is not allowed."),
    ("/plan -d infra/../../x", "`infra/../../x` is not a valid directory: `..` is not allowed."),
    ("/plan -d /etc", "`/etc` is not a valid directory: use a path relative to the repository root."),
    ("/plan -d ~/x", "`~/x` is not a valid directory: use a path relative to the repository root."),
    ("/plan -d infra\\net", "`infra\\net` is not a valid directory: use `/` between directories."),
    ("/plan -d a*b", "`a*b` is not a valid directory: use only letters, digits, `/`, `.`, `_`, `-`, `+`, `@`, `=` and `,`."),
    // Names.
    ("/plan -p ../x", "`../x` is not a valid project name: use 1 to 64 letters, digits, `.`, `_` or `-`, not starting with `-`."),
    ("/plan -w ..", "`..` is not a valid workspace name: use 1 to 64 letters, digits, `.`, `_` or `-`, not starting with `-`."),
    ("/plan -w ../..", "`../..` is not a valid workspace name: use 1 to 64 letters, digits, `.`, `_` or `-`, not starting with `-`."),
    ("/plan -w /etc", "`/etc` is not a valid workspace name: use 1 to 64 letters, digits, `.`, `_` or `-`, not starting with `-`."),
    ("/plan -p net/x", "`net/x` is not a valid project name: use 1 to 64 letters, digits, `.`, `_` or `-`, not starting with `-`."),
    ("/apply --accept-input 1X", "`1X` is not a valid input name: use letters, digits and `_`, not starting with a digit."),
    // Duplicates and missing values.
    ("/plan -p a -p b", "`-p` is given twice; give it once."),
    ("/plan -p a --project=b", "`--project` is given twice; give it once."),
    ("/plan -d a -d a", "`-d` is given twice; give it once."),
    ("/plan -- -refresh=false -refresh=false", "`-refresh=false` is given twice; give it once."),
    ("/plan -- -lock-timeout=1m -lock-timeout=2m", "`-lock-timeout` is given twice; give it once."),
    ("/plan -p", "`-p` needs a value, like `-p NAME`."),
    ("/plan -p -d x", "`-p` needs a value, like `-p NAME`."),
    ("/plan --project=", "`--project` needs a value, like `--project NAME`."),
    ("/plan -d -- -refresh=false", "`-d` needs a value, like `-d DIR`."),
    ("/apply --accept-input", "`--accept-input` needs a value, like `--accept-input INPUT_NAME`."),
    // Unknown flags, flags a command does not take, stray words.
    ("/plan -x", "`/plan` does not know `-x`; comment `/help` for its flags."),
    ("/plan --projcet=net", "`/plan` does not know `--projcet`; comment `/help` for its flags."),
    ("/plan --accept-input X", "`/plan` does not take `--accept-input`; comment `/help` for its flags."),
    ("/unlock --accept-input X", "`/unlock` does not take `--accept-input`; comment `/help` for its flags."),
    ("/cancel -d infra", "`/cancel` does not take `-d`; comment `/help` for its flags."),
    ("/cancel -w prod", "`/cancel` does not take `-w`; comment `/help` for its flags."),
    ("/help -p net", "`/help` does not take `-p`; comment `/help` for its flags."),
    ("/inputs -p net", "`/inputs` does not take `-p`; comment `/help` for its flags."),
    ("/plan please", "unexpected `please` after `/plan`; comment `/help` for its usage."),
    ("/help plan", "unexpected `plan` after `/help`; comment `/help` for its usage."),
    // Unknown commands.
    ("/plna", "unknown command `/plna`; did you mean `/plan`?"),
    ("/aply -p x", "unknown command `/aply`; did you mean `/apply`?"),
    ("/lock", "unknown command `/lock`; did you mean `/unlock`?"),
    ("/cancle", "unknown command `/cancle`; did you mean `/cancel`?"),
    ("tfgate foo", "unknown command `tfgate foo`; comment `/help` to list the commands."),
    ("tfgate plna", "unknown command `tfgate plna`; did you mean `tfgate plan`?"),
    ("@tfgate-bot deploy now", "unknown command `@tfgate-bot deploy`; comment `/help` to list the commands."),
    ("@TFGATE-BOT aply", "unknown command `@tfgate-bot aply`; did you mean `@tfgate-bot apply`?"),
    ("@tfgate-bot", "`@tfgate-bot` needs a command, like `@tfgate-bot plan`; comment `/help` to list them."),
];

#[test]
fn every_rejection_has_its_exact_reply() {
    for (body, reply) in REPLIES {
        let error = parse_one(body).expect_err(body);
        assert_eq!(error.to_string(), *reply, "{body:?}");
    }
}

#[test]
fn every_reply_is_one_line() {
    for (body, _) in REPLIES {
        let reply = parse_one(body).expect_err(body).to_string();
        assert!(
            !reply.contains('\n') && reply.len() < 300,
            "{body:?}: {reply}"
        );
    }
}

#[test]
fn rejections_carry_what_callers_branch_on() {
    assert_eq!(
        parse_one("/plan -d ../x"),
        Err(ParseError::InvalidDir {
            value: "../x".into(),
            problem: DirProblem::ParentComponent
        })
    );
    assert_eq!(
        parse_one("/cancel -d x"),
        Err(ParseError::FlagNotAllowed {
            command: Cancel,
            flag: "-d".into()
        })
    );
    assert_eq!(
        parse_one("tfgate plna"),
        Err(ParseError::UnknownCommand {
            written: "tfgate plna".into(),
            suggestion: Some("tfgate plan".into())
        })
    );
}

#[test]
fn long_tokens_are_truncated_in_replies() {
    let long = "x".repeat(500);
    let reply = parse_one(&format!("/plan {long}")).unwrap_err().to_string();
    assert_eq!(
        reply,
        format!(
            "unexpected `{}…` after `/plan`; comment `/help` for its usage.",
            "x".repeat(60)
        )
    );
}

#[test]
fn replies_echo_only_the_offending_token() {
    let reply = parse_one("/plan -p net -- -var secret_token=hunter2")
        .unwrap_err()
        .to_string();
    assert!(
        !reply.contains("hunter2") && !reply.contains("net"),
        "{reply}"
    );
    let reply = parse_one("/plan -- -chdir=/home/runner/secrets")
        .unwrap_err()
        .to_string();
    assert!(!reply.contains("/home"), "{reply}");
}

#[test]
fn the_first_bad_token_decides() {
    assert_eq!(
        parse_one("/plan -x -p ../y"),
        Err(ParseError::UnknownFlag {
            command: Plan,
            flag: "-x".into()
        })
    );
}

#[test]
fn one_bad_line_does_not_hide_the_others() {
    let results = parse("/plan -p a\n/plan -p a -p b\n/unlock");
    assert_eq!(results.len(), 3);
    assert!(
        results[0].is_ok() && results[1].is_err() && results[2].is_ok(),
        "{results:?}"
    );
}
