//! Who moved a PR's head, as tfgate recorded it from `pull_request` deliveries, and when that
//! record cannot say who may approve. Pure.
//!
//! Commit metadata (author, committer) is written by whoever pushes, so it cannot tell who
//! pushed; GitHub's `sender` of a `pull_request` delivery can. tfgate records the sender of
//! every `opened`/`reopened` (at the head then: its history starts there) and `synchronize`
//! (at `after`, linked to `before`). The history of the current head is complete when those
//! links lead from it back to an opening without a push tfgate did not receive.

use super::facts::PrFacts;
use crate::model::{short_sha, ApprovalProblem};

/// One change of a PR's head that tfgate received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushRecord {
    pub head_sha: String,
    /// The head this push replaced (`synchronize`); `None` when the record starts the PR's
    /// history (`opened`, `reopened`).
    pub before_sha: Option<String>,
    /// Who did it (the delivery's `sender`).
    pub pusher: String,
}

impl PushRecord {
    /// The record of a `pull_request` delivery whose action sets the head; `None` for others.
    /// A `synchronize` without `before` links to nothing tfgate knows (a gap).
    pub fn from_event(
        action: &str,
        head_sha: &str,
        before: Option<&str>,
        sender: &str,
    ) -> Option<PushRecord> {
        let before_sha = match action {
            "opened" | "reopened" => None,
            "synchronize" => Some(before.unwrap_or_default().to_string()),
            _ => return None,
        };
        Some(PushRecord {
            head_sha: head_sha.to_string(),
            before_sha,
            pusher: sender.to_string(),
        })
    }
}

/// What tfgate's records say about who pushed a PR (the push fields of [`PrFacts`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PushHistory {
    /// Everyone recorded as moving the head, sorted, once each (case-insensitively).
    pub pushers: Vec<String>,
    /// Whether a record names who pushed `head`.
    pub head_pusher_known: bool,
    /// Whether records lead from `head` back to an opening or reopening.
    pub complete: bool,
}

/// The history of the PR at `head` from all its records (in any order).
pub fn push_history(records: &[PushRecord], head: &str) -> PushHistory {
    let mut pushers: Vec<String> = records.iter().map(|r| r.pusher.clone()).collect();
    pushers.sort_by_key(|l| l.to_lowercase());
    pushers.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
    let mut seen: Vec<&str> = Vec::new();
    let mut pending = vec![head];
    let mut complete = false;
    while let Some(sha) = pending.pop() {
        if seen.contains(&sha) {
            continue;
        }
        seen.push(sha);
        for r in records.iter().filter(|r| r.head_sha == sha) {
            match &r.before_sha {
                None => complete = true,
                Some(before) => pending.push(before),
            }
        }
    }
    PushHistory {
        pushers,
        head_pusher_known: records.iter().any(|r| r.head_sha == head),
        complete,
    }
}

/// Why no approval of the PR can count, if none can: tfgate cannot tell whether a reviewer
/// pushed to it (`_policy_denial.md.j2` says what makes it known again).
pub(crate) fn unknown_pusher_problem(facts: &PrFacts) -> Option<ApprovalProblem> {
    let head = short_sha(&facts.head_sha).to_string();
    if !facts.head_pusher_known {
        return Some(ApprovalProblem::HeadPusherUnknown { head });
    }
    if !facts.pushes_complete {
        return Some(ApprovalProblem::PushesIncomplete { head });
    }
    if facts.commits_unlisted > 0 {
        let count = facts.commits_unlisted;
        return Some(ApprovalProblem::CommitsUnlisted { count });
    }
    if facts.commits_without_login > 0 {
        let count = u64::from(facts.commits_without_login);
        return Some(ApprovalProblem::CommitsWithoutLogin { count });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opened(head: &str, who: &str) -> PushRecord {
        PushRecord::from_event("opened", head, None, who).unwrap()
    }

    fn pushed(before: &str, head: &str, who: &str) -> PushRecord {
        PushRecord::from_event("synchronize", head, Some(before), who).unwrap()
    }

    #[test]
    fn records_come_from_the_actions_that_move_the_head() {
        assert_eq!(opened("h1", "alice").before_sha, None);
        let reopened = PushRecord::from_event("reopened", "h1", Some("x"), "carol").unwrap();
        assert_eq!(reopened.before_sha, None);
        assert_eq!(pushed("h1", "h2", "bob").before_sha.as_deref(), Some("h1"));
        let no_before = PushRecord::from_event("synchronize", "h2", None, "bob").unwrap();
        assert_eq!(no_before.before_sha.as_deref(), Some(""));
        for action in ["closed", "edited", "labeled"] {
            assert_eq!(
                PushRecord::from_event(action, "h", None, "a"),
                None,
                "{action}"
            );
        }
    }

    #[test]
    fn history_table() {
        type Case = (
            &'static str,
            Vec<PushRecord>,
            &'static str,
            &'static [&'static str],
            bool,
            bool,
        );
        let cases: Vec<Case> = vec![
            (
                "nothing recorded (opened before the App)",
                vec![],
                "h1",
                &[],
                false,
                false,
            ),
            (
                "opened",
                vec![opened("h1", "alice")],
                "h1",
                &["alice"],
                true,
                true,
            ),
            (
                "opened then pushed",
                vec![opened("h1", "alice"), pushed("h1", "h2", "Bob")],
                "h2",
                &["alice", "Bob"],
                true,
                true,
            ),
            (
                "records in any order",
                vec![
                    pushed("h2", "h3", "carol"),
                    pushed("h1", "h2", "bob"),
                    opened("h1", "alice"),
                ],
                "h3",
                &["alice", "bob", "carol"],
                true,
                true,
            ),
            (
                "the head's push not received yet",
                vec![opened("h1", "alice")],
                "h2",
                &["alice"],
                false,
                false,
            ),
            (
                "a push in between never received",
                vec![opened("h1", "alice"), pushed("h2", "h3", "alice")],
                "h3",
                &["alice"],
                true,
                false,
            ),
            (
                "pushed after installation, opened before",
                vec![pushed("h0", "h1", "bob")],
                "h1",
                &["bob"],
                true,
                false,
            ),
            (
                "reopened starts the history again",
                vec![
                    pushed("h0", "h1", "bob"),
                    PushRecord::from_event("reopened", "h1", None, "carol").unwrap(),
                ],
                "h1",
                &["bob", "carol"],
                true,
                true,
            ),
            (
                "a force-push back to an older head",
                vec![
                    opened("h1", "alice"),
                    pushed("h1", "h2", "bob"),
                    pushed("h2", "h1", "alice"),
                ],
                "h1",
                &["alice", "bob"],
                true,
                true,
            ),
            (
                "a loop of pushes without an opening",
                vec![pushed("h1", "h2", "a"), pushed("h2", "h1", "b")],
                "h1",
                &["a", "b"],
                true,
                false,
            ),
            (
                "one login, two spellings",
                vec![opened("h1", "Alice"), pushed("h1", "h2", "alice")],
                "h2",
                &["Alice"],
                true,
                true,
            ),
            (
                "a synchronize without before",
                vec![
                    opened("h1", "alice"),
                    PushRecord::from_event("synchronize", "h2", None, "bob").unwrap(),
                ],
                "h2",
                &["alice", "bob"],
                true,
                false,
            ),
        ];
        for (name, records, head, pushers, known, complete) in cases {
            let h = push_history(&records, head);
            assert_eq!(h.pushers, pushers.to_vec(), "{name}");
            assert_eq!(h.head_pusher_known, known, "{name}: head known");
            assert_eq!(h.complete, complete, "{name}: complete");
        }
    }

    fn known() -> PrFacts {
        PrFacts {
            head_sha: "abc1234def".into(),
            head_pusher_known: true,
            pushes_complete: true,
            ..PrFacts::default()
        }
    }

    #[test]
    fn unknown_pushers_block_every_approval() {
        use ApprovalProblem::*;
        type Change = fn(&mut PrFacts);
        let head = || "abc1234".to_string();
        let cases: Vec<(&str, Change, Option<ApprovalProblem>)> = vec![
            ("all known", |_| {}, None),
            (
                "head unknown",
                |f| {
                    f.head_pusher_known = false;
                    f.pushes_complete = false;
                },
                Some(HeadPusherUnknown { head: head() }),
            ),
            (
                "a gap",
                |f| f.pushes_complete = false,
                Some(PushesIncomplete { head: head() }),
            ),
            (
                "over 250 commits",
                |f| f.commits_unlisted = 1,
                Some(CommitsUnlisted { count: 1 }),
            ),
            (
                "one commit without login",
                |f| f.commits_without_login = 1,
                Some(CommitsWithoutLogin { count: 1 }),
            ),
            (
                "two commits without login",
                |f| f.commits_without_login = 2,
                Some(CommitsWithoutLogin { count: 2 }),
            ),
            (
                "the head before the rest",
                |f| {
                    f.head_pusher_known = false;
                    f.commits_unlisted = 3;
                },
                Some(HeadPusherUnknown { head: head() }),
            ),
        ];
        for (name, change, want) in cases {
            let mut f = known();
            change(&mut f);
            assert_eq!(unknown_pusher_problem(&f), want, "{name}");
        }
    }
}
