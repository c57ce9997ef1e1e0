//! Comment commands: a PR comment body in, the commands it contains out.
//!
//! Pure: no IO. The entry points are [`parse_comment`] (one result per command line, in order),
//! [`parse_comment_located`] (the same, with the line number of each result, errors included),
//! [`is_command_candidate`] (a cheap pre-check for webhook intake) and [`help_text`].
//!
//! A command line is a line of Markdown prose whose text starts (after leading spaces) with
//! `/plan`, `tfgate plan` or `@<app_slug> plan` (and the other [`CommandKind`]s). Lines inside code
//! blocks, block quotes and HTML comments are never commands; see [`markdown`] for the exact rules.

mod args;
mod error;
mod help;
mod line;
mod markdown;
mod suggest;
mod terraform_args;
mod tokens;
mod values;

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

pub use args::policy_terraform_arg;
pub use error::{DirProblem, ParseError};
pub use help::{help_text, CommandHelp};

/// What a command asks tfgate to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandKind {
    Plan,
    Apply,
    Unlock,
    Cancel,
    Help,
    Inputs,
    /// Accept what the `tfgate/deploy` check says needs acknowledgement (GitOps folders).
    AckDeploy,
    /// A plan policy set's owner approves its `deny` failures on the current plans (issue 42).
    ApprovePolicies,
}

impl CommandKind {
    /// Every command, in the order the help text lists them.
    pub const ALL: [CommandKind; 8] = [
        CommandKind::Plan,
        CommandKind::Apply,
        CommandKind::Unlock,
        CommandKind::Cancel,
        CommandKind::Inputs,
        CommandKind::AckDeploy,
        CommandKind::ApprovePolicies,
        CommandKind::Help,
    ];

    /// The word that names the command in a comment (`plan` for `/plan`).
    pub fn name(self) -> &'static str {
        match self {
            CommandKind::Plan => "plan",
            CommandKind::Apply => "apply",
            CommandKind::Unlock => "unlock",
            CommandKind::Cancel => "cancel",
            CommandKind::Help => "help",
            CommandKind::Inputs => "inputs",
            CommandKind::AckDeploy => "ack-deploy",
            CommandKind::ApprovePolicies => "approve-policies",
        }
    }

    /// The command as written with the slash prefix, e.g. `/plan`.
    pub fn slash_form(self) -> String {
        format!("/{}", self.name())
    }

    /// The command whose [`name`](Self::name) is exactly `word` (ASCII case-insensitive).
    pub fn from_name(word: &str) -> Option<CommandKind> {
        Self::ALL
            .into_iter()
            .find(|kind| kind.name().eq_ignore_ascii_case(word))
    }
}

impl std::fmt::Display for CommandKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One Terraform flag a user may pass after `--`. Nothing else ever reaches Terraform's command line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TerraformArg {
    /// `-target=ADDR`; ADDR is a validated resource or module address.
    Target(String),
    /// `-replace=ADDR`; ADDR is a validated resource instance address.
    Replace(String),
    /// `-refresh=false`.
    RefreshFalse,
    /// `-lock-timeout=DURATION`; DURATION is validated (e.g. `30s`, `5m`, at most 10 minutes).
    LockTimeout(String),
}

impl TerraformArg {
    /// The single argv element to hand to Terraform (never through a shell).
    pub fn to_cli_arg(&self) -> String {
        match self {
            TerraformArg::Target(address) => format!("-target={address}"),
            TerraformArg::Replace(address) => format!("-replace={address}"),
            TerraformArg::RefreshFalse => "-refresh=false".to_string(),
            TerraformArg::LockTimeout(duration) => format!("-lock-timeout={duration}"),
        }
    }

    /// [`TerraformArg::to_cli_arg`] read back; `None` for anything outside the allowlist.
    pub fn from_cli_arg(arg: &str) -> Option<TerraformArg> {
        terraform_args::parse_terraform_arg(arg).ok()
    }

    /// Whether a plan made with this flag applies something else than the same plan without
    /// it: a subset (`-target`), a replacement (`-replace`), changes decided on stale state
    /// (`-refresh=false`). Waiting for the state lock changes nothing applied.
    pub fn changes_the_apply(&self) -> bool {
        match self {
            TerraformArg::Target(_) | TerraformArg::Replace(_) | TerraformArg::RefreshFalse => true,
            TerraformArg::LockTimeout(_) => false,
        }
    }
}

/// A parsed, validated comment command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Command {
    pub kind: CommandKind,
    /// `-p/--project NAME`: `[A-Za-z0-9._-]{1,64}`, not starting with `-`, not only dots.
    pub project: Option<String>,
    /// `-d/--dir PATH`: a normalised relative repository path; `.` is the repository root.
    pub dir: Option<String>,
    /// `-w/--workspace NAME`: same rules as the project name.
    pub workspace: Option<String>,
    /// `--accept-input NAME` (apply only), in the order given, without repeats.
    pub accept_inputs: Vec<String>,
    /// Allowlisted Terraform flags given after `--`, in the order given.
    pub terraform_args: Vec<TerraformArg>,
    /// `--set NAME` (`/approve-policies` only): the plan policy set approved.
    #[serde(default)]
    pub policy_set: Option<String>,
    /// 1-based line of the command in the comment body.
    pub line: usize,
}

impl Command {
    /// A command with no flags, found on `line`.
    pub fn bare(kind: CommandKind, line: usize) -> Command {
        Command {
            kind,
            project: None,
            dir: None,
            workspace: None,
            accept_inputs: Vec::new(),
            terraform_args: Vec::new(),
            policy_set: None,
            line,
        }
    }
}

/// The outcome for one command line of a comment, with its 1-based line number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedLine {
    pub line: usize,
    pub result: Result<Command, ParseError>,
}

/// Every command line of `body`, in order: `Ok` for a valid command, `Err` for a line that
/// addresses tfgate but cannot be run (its `Display` is the reply to post).
pub fn parse_comment(body: &str, app_slug: &str) -> Vec<Result<Command, ParseError>> {
    parse_comment_located(body, app_slug)
        .into_iter()
        .map(|parsed| parsed.result)
        .collect()
}

/// Like [`parse_comment`], keeping the line number of each result (useful to quote the line
/// an error is about).
pub fn parse_comment_located(body: &str, app_slug: &str) -> Vec<ParsedLine> {
    markdown::prose_lines(body)
        .filter_map(|prose| {
            line::parse_line(&prose.text, prose.number, app_slug).map(|result| ParsedLine {
                line: prose.number,
                result,
            })
        })
        .collect()
}

/// A cheap check for webhook intake: could `body` contain a command at all?
///
/// Never `false` when [`parse_comment`] would return something; may be `true` for bodies that
/// turn out to hold no command (e.g. a `/path` at the start of a line, or a command in a code
/// block).
pub fn is_command_candidate(body: &str, app_slug: &str) -> bool {
    body.lines().any(|text| {
        // Text after a closing `-->` can start a command line once the comment is removed.
        std::iter::once(text)
            .chain(text.match_indices("-->").map(|(at, _)| &text[at + 3..]))
            .any(|segment| line::starts_like_command(segment, app_slug))
    })
}
