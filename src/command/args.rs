//! The arguments of one command: tfgate's own flags, then Terraform flags after `--`.

use super::error::{echo, ParseError};
use super::terraform_args::{misplaced_terraform_flag, parse_terraform_arg};
use super::values::{validate_dir, validate_input_name, validate_name};
use super::{Command, CommandKind, TerraformArg};

/// One of tfgate's own flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flag {
    Project,
    Dir,
    Workspace,
    AcceptInput,
    PolicySet,
}

impl Flag {
    const ALL: [Flag; 5] = [
        Flag::Project,
        Flag::Dir,
        Flag::Workspace,
        Flag::AcceptInput,
        Flag::PolicySet,
    ];

    fn spellings(self) -> &'static [&'static str] {
        match self {
            Flag::Project => &["-p", "--project"],
            Flag::Dir => &["-d", "--dir"],
            Flag::Workspace => &["-w", "--workspace"],
            Flag::AcceptInput => &["--accept-input"],
            Flag::PolicySet => &["--set"],
        }
    }

    fn value_example(self) -> &'static str {
        match self {
            Flag::Project | Flag::Workspace => "NAME",
            Flag::Dir => "DIR",
            Flag::AcceptInput => "INPUT_NAME",
            Flag::PolicySet => "SET_NAME",
        }
    }

    fn from_spelling(written: &str) -> Option<Flag> {
        Flag::ALL
            .into_iter()
            .find(|flag| flag.spellings().contains(&written))
    }

    /// Whether `command` takes this flag.
    fn accepted_by(self, command: CommandKind) -> bool {
        match command {
            CommandKind::Plan | CommandKind::Unlock => {
                !matches!(self, Flag::AcceptInput | Flag::PolicySet)
            }
            CommandKind::Apply => self != Flag::PolicySet,
            CommandKind::Cancel => self == Flag::Project,
            CommandKind::ApprovePolicies => matches!(self, Flag::Project | Flag::PolicySet),
            CommandKind::Help | CommandKind::Inputs | CommandKind::AckDeploy => false,
        }
    }
}

/// Whether `command` takes Terraform flags after `--`.
fn takes_terraform_args(command: CommandKind) -> bool {
    match command {
        CommandKind::Plan | CommandKind::Apply => true,
        CommandKind::Unlock
        | CommandKind::Cancel
        | CommandKind::Help
        | CommandKind::Inputs
        | CommandKind::AckDeploy
        | CommandKind::ApprovePolicies => false,
    }
}

/// Parses the tokens after the command word into a [`Command`] found on `line`.
pub(super) fn parse_args(
    kind: CommandKind,
    tokens: &[&str],
    line: usize,
) -> Result<Command, ParseError> {
    let (own, terraform) = match tokens.iter().position(|token| *token == "--") {
        Some(at) => (&tokens[..at], Some(&tokens[at + 1..])),
        None => (tokens, None),
    };
    let mut command = Command::bare(kind, line);
    parse_own_flags(&mut command, own)?;
    if let Some(terraform) = terraform {
        if !takes_terraform_args(kind) {
            return Err(ParseError::TerraformArgsNotAllowed { command: kind });
        }
        for token in terraform {
            let arg = parse_terraform_arg(token)?;
            add_terraform_arg(&mut command, arg)?;
        }
    }
    Ok(command)
}

fn parse_own_flags(command: &mut Command, tokens: &[&str]) -> Result<(), ParseError> {
    let mut tokens = tokens.iter().copied().peekable();
    while let Some(token) = tokens.next() {
        if !token.starts_with('-') {
            return Err(ParseError::UnexpectedArgument {
                command: command.kind,
                arg: echo(token),
            });
        }
        let (written, inline_value) = match token.split_once('=') {
            Some((written, value)) => (written, Some(value)),
            None => (token, None),
        };
        let Some(flag) = Flag::from_spelling(written) else {
            return Err(unknown_flag_error(command.kind, token, written));
        };
        if !flag.accepted_by(command.kind) {
            return Err(ParseError::FlagNotAllowed {
                command: command.kind,
                flag: echo(written),
            });
        }
        let value = match inline_value {
            Some(value) => Some(value),
            None => tokens.next_if(|next| !next.starts_with('-')),
        };
        let value =
            value
                .filter(|value| !value.is_empty())
                .ok_or_else(|| ParseError::MissingValue {
                    flag: echo(written),
                    example: flag.value_example(),
                })?;
        set_flag(command, flag, written, value)?;
    }
    Ok(())
}

/// The error for a token that is not one of tfgate's own flags. A Terraform flag written before
/// `--` gets the reply it would get after `--` when that is an error too, so the user is not sent
/// round twice.
fn unknown_flag_error(kind: CommandKind, token: &str, written: &str) -> ParseError {
    match misplaced_terraform_flag(token, kind) {
        None => ParseError::UnknownFlag {
            command: kind,
            flag: echo(written),
        },
        Some(ParseError::TerraformFlagBeforeSeparator { .. }) if !takes_terraform_args(kind) => {
            ParseError::TerraformArgsNotAllowed { command: kind }
        }
        Some(misplaced @ ParseError::TerraformFlagBeforeSeparator { .. }) => {
            let after_separator = parse_terraform_arg(token)
                .and_then(|arg| add_terraform_arg(&mut Command::bare(kind, 0), arg));
            after_separator.err().unwrap_or(misplaced)
        }
        Some(forbidden) => forbidden,
    }
}

fn set_flag(
    command: &mut Command,
    flag: Flag,
    written: &str,
    value: &str,
) -> Result<(), ParseError> {
    let duplicate = || ParseError::DuplicateFlag {
        flag: echo(written),
    };
    match flag {
        Flag::Project => set_once(
            &mut command.project,
            validate_name("project", value)?,
            duplicate,
        ),
        Flag::Workspace => set_once(
            &mut command.workspace,
            validate_name("workspace", value)?,
            duplicate,
        ),
        Flag::Dir => set_once(&mut command.dir, validate_dir(value)?, duplicate),
        Flag::AcceptInput => {
            let name = validate_input_name(value)?;
            if !command.accept_inputs.contains(&name) {
                command.accept_inputs.push(name);
            }
            Ok(())
        }
        Flag::PolicySet => set_once(
            &mut command.policy_set,
            validate_name("set", value)?,
            duplicate,
        ),
    }
}

fn set_once(
    slot: &mut Option<String>,
    value: String,
    duplicate: impl FnOnce() -> ParseError,
) -> Result<(), ParseError> {
    if slot.is_some() {
        return Err(duplicate());
    }
    *slot = Some(value);
    Ok(())
}

/// A Terraform flag an admin's policy adds to every plan (`for_apply == false`) or apply:
/// the same allowlist and rules as a comment's flags after `--`. The flag as Terraform takes it.
pub fn policy_terraform_arg(token: &str, for_apply: bool) -> Result<String, String> {
    let kind = if for_apply {
        CommandKind::Apply
    } else {
        CommandKind::Plan
    };
    let arg = parse_terraform_arg(token).map_err(|e| e.to_string())?;
    let cli = arg.to_cli_arg();
    add_terraform_arg(&mut Command::bare(kind, 0), arg).map_err(|e| e.to_string())?;
    Ok(cli)
}

fn add_terraform_arg(command: &mut Command, arg: TerraformArg) -> Result<(), ParseError> {
    if command.kind == CommandKind::Apply {
        let plan_only = match arg {
            TerraformArg::Target(_) => Some((
                "-target",
                "targets belong to the plan; run `/plan -- -target=...` first.",
            )),
            TerraformArg::Replace(_) => Some((
                "-replace",
                "replacements belong to the plan; run `/plan -- -replace=...` first.",
            )),
            TerraformArg::RefreshFalse => Some((
                "-refresh=false",
                "refreshing is decided by the plan; run `/plan -- -refresh=false` first.",
            )),
            TerraformArg::LockTimeout(_) => None,
        };
        if let Some((flag, reason)) = plan_only {
            return Err(ParseError::PlanOnlyTerraformFlag { flag, reason });
        }
    }
    let once_only = match arg {
        TerraformArg::RefreshFalse => Some("-refresh=false"),
        TerraformArg::LockTimeout(_) => Some("-lock-timeout"),
        TerraformArg::Target(_) | TerraformArg::Replace(_) => None,
    };
    if let Some(flag) = once_only {
        let same_kind =
            |given: &TerraformArg| std::mem::discriminant(given) == std::mem::discriminant(&arg);
        if command.terraform_args.iter().any(same_kind) {
            return Err(ParseError::DuplicateFlag {
                flag: flag.to_string(),
            });
        }
    }
    command.terraform_args.push(arg);
    Ok(())
}

#[cfg(test)]
mod policy_arg_tests {
    use super::*;

    #[test]
    fn policy_flags_follow_the_comment_allowlist() {
        // (flag, for apply, result or part of the error)
        let table: &[(&str, bool, Result<&str, &str>)] = &[
            ("-refresh=false", false, Ok("-refresh=false")),
            ("-lock-timeout=5m", false, Ok("-lock-timeout=5m")),
            ("-lock-timeout=5m", true, Ok("-lock-timeout=5m")),
            (
                "-target=aws_s3_bucket.b",
                false,
                Ok("-target=aws_s3_bucket.b"),
            ),
            (
                "-target=aws_s3_bucket.b",
                true,
                Err("targets belong to the plan"),
            ),
            (
                "-refresh=false",
                true,
                Err("refreshing is decided by the plan"),
            ),
            ("-var=x=1", false, Err("not allowed")),
            ("-chdir=/", false, Err("not allowed")),
            ("-lock-timeout=1h", false, Err("at most 10m")),
        ];
        for (flag, for_apply, expected) in table {
            match (policy_terraform_arg(flag, *for_apply), expected) {
                (Ok(got), Ok(want)) => assert_eq!(got, *want, "{flag}"),
                (Err(e), Err(part)) => assert!(e.contains(part), "{flag}: {e}"),
                (got, want) => panic!("{flag}: got {got:?}, want {want:?}"),
            }
        }
    }
}
