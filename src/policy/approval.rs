//! Which approving reviews count.
//!
//! An approval counts only when all hold: its state is APPROVED; it is the reviewer's latest
//! state-changing review (a later CHANGES_REQUESTED or DISMISSED withdraws it; COMMENTED and
//! PENDING do not change anything); it was made on the current head commit; the reviewer is
//! not the PR author, authored or committed none of the PR's commits, is not a bot, and has
//! at least write permission.

use super::facts::{PrFacts, ReviewState};
use super::schema::GitHubPermission;

/// The outcome of looking at every review of a PR.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ApprovalReport {
    /// Logins whose approval counts.
    pub counted: Vec<String>,
    /// Logins whose approval does not count, with the reason.
    pub not_counted: Vec<(String, String)>,
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
                Some("later requested changes".to_string())
            }
            ReviewState::Dismissed if approved_ever => Some("approval was dismissed".to_string()),
            ReviewState::Approved => approval_problem(latest, facts),
            _ => continue,
        };
        match why {
            None => report.counted.push(name),
            Some(why) => report.not_counted.push((name, why)),
        }
    }
    report
}

fn approval_problem(review: &super::facts::Review, facts: &PrFacts) -> Option<String> {
    if review.user_is_bot || review.user.ends_with("[bot]") {
        return Some("is a bot".to_string());
    }
    if review.user.eq_ignore_ascii_case(&facts.author) {
        return Some("is the author".to_string());
    }
    if facts
        .commit_authors
        .iter()
        .any(|login| login.eq_ignore_ascii_case(&review.user))
    {
        return Some("pushed commits to this pull request".to_string());
    }
    if review.user_permission < GitHubPermission::Write {
        return Some(format!("has {} access only", review.user_permission));
    }
    if review.commit_id != facts.head_sha {
        return Some(format!(
            "approved an older commit ({})",
            short_sha(&review.commit_id)
        ));
    }
    None
}

/// The first 7 characters of a commit id, as GitHub shows it.
pub fn short_sha(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
}

#[cfg(test)]
mod tests {
    #[test]
    fn short_sha_is_seven_characters() {
        assert_eq!(super::short_sha("0123456789abcdef"), "0123456");
        assert_eq!(super::short_sha("abc"), "abc");
    }
}
