//! Which approving reviews count.
//!
//! An approval counts only when all hold: its state is APPROVED; it is the reviewer's latest
//! state-changing review (a later CHANGES_REQUESTED or DISMISSED withdraws it; COMMENTED and
//! PENDING do not change anything); it was made on the current head commit; the reviewer is
//! not the PR author, moved none of its heads as tfgate recorded them (`pushers`), authored or
//! committed none of the PR's commits, is not a bot, and has at least write permission. No
//! approval counts while tfgate cannot tell who pushed ([`unknown_pusher_problem`]).

use crate::model::{short_sha, ApprovalProblem, NotCounted, NotCountedWhy};

use super::facts::{PrFacts, ReviewState};
use super::pushers::unknown_pusher_problem;
use super::schema::GitHubPermission;

/// The outcome of looking at every review of a PR.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ApprovalReport {
    /// Logins whose approval counts.
    pub counted: Vec<String>,
    /// Reviewers whose approval does not count, with the reason.
    pub not_counted: Vec<NotCounted>,
}

pub(crate) fn evaluate_approvals(facts: &PrFacts) -> ApprovalReport {
    let mut reviewers: Vec<String> = Vec::new();
    for review in &facts.reviews {
        let login = review.user.to_lowercase();
        if !reviewers.contains(&login) {
            reviewers.push(login);
        }
    }
    let mut report = ApprovalReport::default();
    for login in reviewers {
        let reviews: Vec<_> = facts
            .reviews
            .iter()
            .filter(|r| r.user.to_lowercase() == login)
            .collect();
        let approved_ever = reviews.iter().any(|r| r.state == ReviewState::Approved);
        let latest = reviews.iter().rev().find(|r| {
            matches!(
                r.state,
                ReviewState::Approved | ReviewState::ChangesRequested | ReviewState::Dismissed
            )
        });
        let Some(latest) = latest else { continue };
        let name = latest.user.clone();
        let why = match latest.state {
            ReviewState::ChangesRequested if approved_ever => {
                Some(NotCountedWhy::LaterRequestedChanges)
            }
            ReviewState::Dismissed if approved_ever => Some(NotCountedWhy::Dismissed),
            ReviewState::Approved => approval_problem(latest, facts),
            _ => continue,
        };
        match why {
            None => report.counted.push(name),
            Some(why) => report.not_counted.push(NotCounted { login: name, why }),
        }
    }
    report
}

fn approval_problem(review: &super::facts::Review, facts: &PrFacts) -> Option<NotCountedWhy> {
    if review.user_is_bot || review.user.ends_with("[bot]") {
        return Some(NotCountedWhy::Bot);
    }
    if review.user.eq_ignore_ascii_case(&facts.author) {
        return Some(NotCountedWhy::Author);
    }
    let named = |logins: &[String]| logins.iter().any(|l| l.eq_ignore_ascii_case(&review.user));
    if named(&facts.pushers) {
        return Some(NotCountedWhy::Pushed);
    }
    if named(&facts.commit_authors) {
        return Some(NotCountedWhy::Committed);
    }
    if review.user_permission < GitHubPermission::Write {
        let has = review.user_permission.to_string();
        return Some(NotCountedWhy::Permission { has });
    }
    if review.commit_id != facts.head_sha {
        let commit = short_sha(&review.commit_id).to_string();
        return Some(NotCountedWhy::OlderCommit { commit });
    }
    None
}

/// Why the `approved` requirement is unmet, if it is: tfgate cannot tell who pushed (then no
/// approval counts), or fewer than `need` approvals count.
pub(crate) fn approved_problem(facts: &PrFacts, need: usize) -> Option<ApprovalProblem> {
    if let Some(problem) = unknown_pusher_problem(facts) {
        return Some(problem);
    }
    let report = evaluate_approvals(facts);
    if report.counted.len() >= need {
        return None;
    }
    Some(ApprovalProblem::TooFew {
        need,
        head: short_sha(&facts.head_sha).to_string(),
        counted: report.counted.len(),
        not_counted: report.not_counted,
    })
}

#[cfg(test)]
mod tests {}
