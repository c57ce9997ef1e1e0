//! One prose line: is it a command, and which.
//!
//! Three ways to address tfgate at the start of a line: `/plan`, `tfgate plan` and
//! `@<app_slug> plan` (the mention is matched ASCII case-insensitively, as GitHub logins are;
//! `tfgate` only in lower case; after a prefix, `/plan` is accepted too). Command words are
//! matched ASCII case-insensitively (`/Plan` from a phone keyboard works).

use super::args::parse_args;
use super::error::{echo, ParseError};
use super::suggest::closest_command;
use super::tokens::tokenize;
use super::{Command, CommandKind};

const TFGATE_PREFIX: &str = "tfgate";

/// `None` when the line is not addressed to tfgate; otherwise the command or why it is refused.
pub(super) fn parse_line(
    text: &str,
    number: usize,
    app_slug: &str,
) -> Option<Result<Command, ParseError>> {
    let (first, rest) = split_first_word(text)?;
    if let Some(word) = first.strip_prefix('/') {
        return parse_slash_command(word, rest, number);
    }
    let prefix = if first == TFGATE_PREFIX {
        TFGATE_PREFIX.to_string()
    } else if is_mention(first, app_slug) {
        format!("@{app_slug}")
    } else {
        return None;
    };
    let Some((word, rest)) = split_first_word(rest) else {
        // A lone `tfgate` is just the word; a lone mention asks for something.
        return (prefix != TFGATE_PREFIX).then(|| {
            Err(ParseError::MissingCommand {
                mention: echo(&prefix),
            })
        });
    };
    let word = word.strip_prefix('/').unwrap_or(word);
    Some(match CommandKind::from_name(word) {
        Some(kind) => parse_command(kind, rest, number),
        None => Err(ParseError::UnknownCommand {
            written: echo(&format!("{prefix} {word}")),
            suggestion: closest_command(word).map(|kind| format!("{prefix} {}", kind.name())),
        }),
    })
}

/// Whether `text` starts (after whitespace) like a command line would; never `false` for a line
/// [`parse_line`] would answer.
pub(super) fn starts_like_command(text: &str, app_slug: &str) -> bool {
    let text = text.trim_start();
    text.starts_with('/')
        || text.starts_with(TFGATE_PREFIX)
        || (!app_slug.is_empty()
            && text
                .as_bytes()
                .get(..app_slug.len() + 1)
                .is_some_and(|head| {
                    head[0] == b'@' && head[1..].eq_ignore_ascii_case(app_slug.as_bytes())
                }))
}

/// `/word rest`: a command, a near miss of one (with a suggestion), or nothing (`/cc`, `/shrug`,
/// `/path/to/file` are ordinary text).
fn parse_slash_command(
    word: &str,
    rest: &str,
    number: usize,
) -> Option<Result<Command, ParseError>> {
    if let Some(kind) = CommandKind::from_name(word) {
        return Some(parse_command(kind, rest, number));
    }
    let word_like = !word.is_empty()
        && word
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || ch == '-' || ch == '_');
    if !word_like {
        return None;
    }
    let suggestion = closest_command(word)?;
    Some(Err(ParseError::UnknownCommand {
        written: echo(&format!("/{word}")),
        suggestion: Some(suggestion.slash_form()),
    }))
}

fn parse_command(kind: CommandKind, rest: &str, number: usize) -> Result<Command, ParseError> {
    let tokens = tokenize(rest)?;
    parse_args(kind, &tokens, number)
}

fn is_mention(word: &str, app_slug: &str) -> bool {
    !app_slug.is_empty()
        && word
            .strip_prefix('@')
            .is_some_and(|login| login.eq_ignore_ascii_case(app_slug))
}

/// The first whitespace-separated word of `text` and what follows it.
fn split_first_word(text: &str) -> Option<(&str, &str)> {
    let text = text.trim_start();
    if text.is_empty() {
        return None;
    }
    let end = text.find(char::is_whitespace).unwrap_or(text.len());
    Some(text.split_at(end))
}
