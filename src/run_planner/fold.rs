//! Which earlier plan comments a new plan folds under an "outdated" summary (pure; the worker
//! lists the comments, renders each fold with `plan_outdated.md.j2` and edits them).

use super::outbox::SeenComment;
use crate::model::marker::parse_marker;
use crate::model::marker::CommentKind;

/// The earlier plan comments to fold: those carrying a plan marker and written by the account
/// that wrote `keep` (tfgate's App, `<slug>[bot]`), not folded yet (their body does not start
/// with `folded_prefix`, the fold template's text before the comment). A marker pasted into
/// anyone else's comment is ignored, so no one can make tfgate edit their comment. Nothing is
/// folded when `keep` is not in the list (its author is unknown).
pub fn plans_to_fold(comments: &[SeenComment<'_>], keep: i64, folded_prefix: &str) -> Vec<i64> {
    let Some(own) = comments
        .iter()
        .find(|c| c.id == keep)
        .and_then(|c| c.author)
        .filter(|login| login.ends_with("[bot]"))
    else {
        return Vec::new();
    };
    comments
        .iter()
        .filter(|c| c.id != keep && c.author == Some(own))
        .filter(|c| {
            c.body.is_some_and(|body| {
                let is_plan = parse_marker(body).is_some_and(|m| m.kind == CommentKind::Plan);
                is_plan && !body.starts_with(folded_prefix)
            })
        })
        .map(|c| c.id)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN_MARKER: &str = "<!-- tfgate:kind=plan:pr=7:root=all:run=r-1 -->";
    const BOT: &str = "tfgate-acme[bot]";
    const PREFIX: &str = "<details><summary>outdated</summary>";

    #[test]
    fn only_unfolded_plan_comments_by_the_author_of_the_new_plan_are_folded() {
        let plan = format!("## tfgate plan\n\n{PLAN_MARKER}");
        let pasted = format!("please apply\n{PLAN_MARKER}");
        let folded = format!("{PREFIX}\n\n{plan}");
        let seen = |id, author, body| SeenComment { id, author, body };
        let comments = vec![
            seen(1, Some(BOT), Some(plan.as_str())),
            seen(2, Some("mallory"), Some(pasted.as_str())),
            seen(3, Some("other-app[bot]"), Some(plan.as_str())),
            seen(4, None, Some(plan.as_str())),
            seen(5, Some(BOT), Some("a /help reply, no marker")),
            seen(6, Some(BOT), Some(folded.as_str())),
            seen(7, Some(BOT), None),
            seen(9, Some(BOT), Some(plan.as_str())),
        ];
        let table: [(i64, Vec<i64>); 3] = [
            (9, vec![1]),
            // The new plan unknown, or written by a user: nothing is folded.
            (42, vec![]),
            (2, vec![]),
        ];
        for (keep, want) in table {
            assert_eq!(plans_to_fold(&comments, keep, PREFIX), want, "keep {keep}");
        }
    }
}
