//! A PR comment → effects. Bots are ignored; each rejected command gets a part of the one
//! reply saying exactly what was wrong; `/help` and unknown `tfgate`/`@app` commands add the
//! help text once; accepted commands get one 👀 reaction and go on to policy and the run queue.

use crate::command::Command;
use crate::command::{help_text, CommandKind, ParseError};
use crate::model::job::CommentJob;
use crate::model::view::NoticeBody;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommentEffect {
    /// React to the triggering comment.
    React(&'static str),
    /// A part of the comment's one reply.
    Reply(NoticeBody),
    /// A command that passed parsing; policy and execution come next.
    Accept(Command),
}

/// Rejected lines answered one by one; the rest are counted, so that any comment gets one
/// reply of bounded size.
pub const REJECTIONS_SHOWN: usize = 5;

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
        return vec![CommentEffect::Reply(NoticeBody::NotAPullRequest)];
    }
    let mut effects = Vec::new();
    let mut accepted = Vec::new();
    let mut help_wanted = false;
    let mut rejected = 0;
    for result in parsed {
        match result {
            Ok(cmd) if cmd.kind == CommandKind::Help => help_wanted = true,
            Ok(cmd) => accepted.push(cmd),
            Err(e) => {
                help_wanted |= matches!(e, ParseError::UnknownCommand { .. });
                rejected += 1;
                if rejected <= REJECTIONS_SHOWN {
                    let reason = e.to_string();
                    effects.push(CommentEffect::Reply(NoticeBody::CommandRejected { reason }));
                }
            }
        }
    }
    if rejected > REJECTIONS_SHOWN {
        let more = (rejected - REJECTIONS_SHOWN) as u64;
        effects.push(CommentEffect::Reply(NoticeBody::MoreRejected { more }));
    }
    if help_wanted {
        let markdown = help_text(app_slug);
        effects.push(CommentEffect::Reply(NoticeBody::Help { markdown }));
    }
    if !accepted.is_empty() {
        effects.insert(0, CommentEffect::React("eyes"));
        effects.extend(accepted.into_iter().map(CommentEffect::Accept));
    }
    effects
}

#[cfg(test)]
mod tests;
