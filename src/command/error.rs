//! Why a command line cannot be run. Each `Display` is the exact one-line reply for the PR.
//!
//! Text typed by the user is echoed only through [`echo`] (at most 60 characters, no control
//! characters, no backticks), and only the offending token, never the whole line.

use super::CommandKind;

/// Longest echo of a user token, in characters.
const ECHO_MAX_CHARS: usize = 60;

/// A user token made safe to show inside a Markdown code span.
pub(super) fn echo(token: &str) -> String {
    let mut shown: String = token
        .chars()
        .filter(|&ch| !ch.is_control() && ch != '`')
        .take(ECHO_MAX_CHARS + 1)
        .collect();
    if shown.chars().count() > ECHO_MAX_CHARS {
        shown = shown.chars().take(ECHO_MAX_CHARS).collect();
        shown.push('…');
    }
    if shown.is_empty() {
        shown.push('…');
    }
    shown
}

/// A command line that addresses tfgate but cannot be run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// `tfgate foo`, `@app foo`, or a `/word` close to a command name.
    #[error("unknown command `{written}`; {}", suggestion_hint(suggestion.as_deref()))]
    UnknownCommand {
        written: String,
        /// The closest command, written with the same prefix (e.g. `/plan`).
        suggestion: Option<String>,
    },
    /// `@app` with nothing after it.
    #[error("`{mention}` needs a command, like `{mention} plan`; comment `/help` to list them.")]
    MissingCommand { mention: String },
    #[error("`/{command}` does not know `{flag}`; comment `/help` for its flags.")]
    UnknownFlag { command: CommandKind, flag: String },
    #[error("`/{command}` does not take `{flag}`; comment `/help` for its flags.")]
    FlagNotAllowed { command: CommandKind, flag: String },
    /// A plan-shaping Terraform flag given to `/apply`.
    #[error("`/apply` does not take `{flag}`: {reason}")]
    PlanOnlyTerraformFlag {
        flag: &'static str,
        reason: &'static str,
    },
    #[error("`{flag}` needs a value, like `{flag} {example}`.")]
    MissingValue { flag: String, example: &'static str },
    #[error("`{flag}` is given twice; give it once.")]
    DuplicateFlag { flag: String },
    #[error("`{value}` is not a valid {what} name: use 1 to 64 letters, digits, `.`, `_` or `-`, not starting with `-`.")]
    InvalidName { what: &'static str, value: String },
    #[error("`{value}` is not a valid directory: {problem}")]
    InvalidDir { value: String, problem: DirProblem },
    #[error("`{value}` is not a valid input name: use letters, digits and `_`, not starting with a digit.")]
    InvalidInputName { value: String },
    /// A word that is not a flag, before `--`.
    #[error("unexpected `{arg}` after `/{command}`; comment `/help` for its usage.")]
    UnexpectedArgument { command: CommandKind, arg: String },
    #[error("`/{command}` does not take Terraform flags.")]
    TerraformArgsNotAllowed { command: CommandKind },
    /// An allowlisted Terraform flag written before `--`.
    #[error("`{flag}` is a Terraform flag: put it after `--`, like `/{command} -- {flag}`.")]
    TerraformFlagBeforeSeparator { command: CommandKind, flag: String },
    /// A Terraform flag tfgate refuses for a stated reason (`-chdir`, `-var`, ...).
    #[error("`{flag}` is not allowed: {reason}")]
    ForbiddenTerraformFlag { flag: String, reason: &'static str },
    /// Anything after `--` that is not on the allowlist.
    #[error("`{flag}` is not allowed after `--`; tfgate accepts only `-target=`, `-replace=`, `-refresh=false` and `-lock-timeout=`.")]
    UnsupportedTerraformFlag { flag: String },
    #[error("`{flag}` takes its value after `=`, like `{flag}={example}`.")]
    TerraformValueNeedsEquals {
        flag: &'static str,
        example: &'static str,
    },
    #[error("`{flag}` needs a {what} address, like `{flag}={example}`; `{value}` is not one.")]
    InvalidAddress {
        flag: &'static str,
        what: &'static str,
        value: String,
        example: &'static str,
    },
    #[error("`-lock-timeout` takes a duration of at most 10m, like `30s` or `5m`; `{value}` is not one.")]
    InvalidLockTimeout { value: String },
    #[error("{} in `{token}` is not allowed: tfgate passes arguments to Terraform directly, never through a shell.", character_name(*character))]
    ShellMetacharacter { token: String, character: char },
    #[error("unbalanced `\"` in `{token}`: tfgate does not use shell quoting; write values without spaces.")]
    UnbalancedQuote { token: String },
    #[error("a control character in `{token}` is not allowed.")]
    ControlCharacter { token: String },
}

/// Why a `-d/--dir` value was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DirProblem {
    #[error("use a path relative to the repository root.")]
    Absolute,
    #[error("`..` is not allowed.")]
    ParentComponent,
    #[error("use `/` between directories.")]
    Backslash,
    #[error("control characters are not allowed.")]
    ControlCharacter,
    #[error("use only letters, digits, `/`, `.`, `_`, `-`, `+`, `@`, `=` and `,`.")]
    Character,
    #[error("use at most 255 characters.")]
    TooLong,
}

fn suggestion_hint(suggestion: Option<&str>) -> String {
    match suggestion {
        Some(command) => format!("did you mean `{command}`?"),
        None => "comment `/help` to list the commands.".to_string(),
    }
}

fn character_name(character: char) -> String {
    match character {
        '`' => "a backtick".to_string(),
        other => format!("`{other}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echo_truncates_to_sixty_characters() {
        let long = "é".repeat(70);
        let shown = echo(&long);
        assert_eq!(shown.chars().count(), 61);
        assert!(shown.ends_with('…'));
        assert_eq!(echo(&"a".repeat(60)), "a".repeat(60));
    }

    #[test]
    fn echo_strips_control_characters_and_backticks() {
        assert_eq!(echo("a`b\u{0}c\u{1b}[31md"), "abc[31md");
        assert_eq!(echo("```"), "…");
    }

    #[test]
    fn unknown_command_hint() {
        let with = ParseError::UnknownCommand {
            written: "/plna".into(),
            suggestion: Some("/plan".into()),
        };
        assert_eq!(
            with.to_string(),
            "unknown command `/plna`; did you mean `/plan`?"
        );
        let without = ParseError::UnknownCommand {
            written: "tfgate foo".into(),
            suggestion: None,
        };
        assert_eq!(
            without.to_string(),
            "unknown command `tfgate foo`; comment `/help` to list the commands."
        );
    }

    #[test]
    fn backtick_is_named_not_shown() {
        let error = ParseError::ShellMetacharacter {
            token: "ab".into(),
            character: '`',
        };
        assert!(error.to_string().starts_with("a backtick in `ab`"));
    }
}
