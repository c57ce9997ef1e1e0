//! A PR comment → effects. Bots are ignored; each rejected command gets a reply saying exactly
//! what was wrong; `/help` and unknown `tfgate`/`@app` commands get the help text; accepted
//! commands get one 👀 reaction and go on to policy and the run queue.

use crate::command::Command;
use crate::command::{help_text, CommandKind, ParseError};
use crate::webhook::event::CommentJob;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommentEffect {
    /// React to the triggering comment.
    React(&'static str),
    /// Post a reply on the PR.
    Reply(String),
    /// A command that passed parsing; policy and execution come next.
    Accept(Command),
}

pub const NOT_A_PULL_REQUEST: &str =
    "tfgate runs commands on pull requests only; comment on the pull request that changes the Terraform code.";

/// Decide the effects of one comment, given the parser's results.
pub fn comment_effects(
    job: &CommentJob,
    parsed: Vec<Result<Command, ParseError>>,
    app_slug: &str,
) -> Vec<CommentEffect> {
    if job.author_is_bot || parsed.is_empty() {
        return Vec::new();
    }
    if !job.is_pull_request {
        return vec![CommentEffect::Reply(NOT_A_PULL_REQUEST.to_string())];
    }
    let mut effects = Vec::new();
    let mut accepted = Vec::new();
    let mut help_sent = false;
    for result in parsed {
        match result {
            Ok(cmd) if cmd.kind == CommandKind::Help => {
                if !help_sent {
                    effects.push(CommentEffect::Reply(help_text(app_slug)));
                    help_sent = true;
                }
            }
            Ok(cmd) => accepted.push(cmd),
            Err(e @ ParseError::UnknownCommand { .. }) => {
                let mut reply = e.to_string();
                if !help_sent {
                    reply.push_str("\n\n");
                    reply.push_str(&help_text(app_slug));
                    help_sent = true;
                }
                effects.push(CommentEffect::Reply(reply));
            }
            Err(e) => effects.push(CommentEffect::Reply(e.to_string())),
        }
    }
    if !accepted.is_empty() {
        effects.insert(0, CommentEffect::React("eyes"));
        effects.extend(accepted.into_iter().map(CommentEffect::Accept));
    }
    effects
}

#[cfg(test)]
mod tests;
