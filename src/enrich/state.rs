//! How long to keep asking CloudTrail, and where an enrichment stands.
//!
//! "CloudTrail typically delivers logs within an average of about 5 minutes of an API call. This
//! time is not guaranteed." Poll with backoff for about 15 minutes, then give up with a note.

use super::denied::DeniedCall;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Waits before each CloudTrail poll: 30 s, 60 s, 90 s, 120 s, then 180 s, adding up to
/// 15 minutes (900 s). The first poll comes 30 s after the failure.
pub fn backoff_schedule() -> Vec<Duration> {
    [30, 60, 90, 120, 180, 180, 180, 60]
        .into_iter()
        .map(Duration::from_secs)
        .collect()
}

/// Fixed notes for giving up; never provider text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GaveUpReason {
    /// No matching record within the schedule.
    NoMatchingEvent,
    /// CloudTrail kept throttling.
    Throttled,
    /// The read role may not call LookupEvents (or the call failed otherwise).
    LookupFailed,
    /// Policy names no read role for the account.
    NoReadRole,
    /// No failure time or run identity to query by.
    NothingToQueryBy,
}

impl GaveUpReason {
    pub fn note(self) -> &'static str {
        match self {
            GaveUpReason::NoMatchingEvent => {
                "CloudTrail had no matching event after about 15 minutes"
            }
            GaveUpReason::Throttled => "CloudTrail kept throttling the lookup",
            GaveUpReason::LookupFailed => "the CloudTrail lookup failed",
            GaveUpReason::NoReadRole => "no CloudTrail read role is configured for this account",
            GaveUpReason::NothingToQueryBy => "the failure has no time or run identity to look up",
        }
    }
}

/// Where the CloudTrail part of an enrichment stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum EnrichmentState {
    /// Still polling: the comment says "confirming with CloudTrail…".
    Pending,
    Found(DeniedCall),
    GaveUp {
        note: String,
    },
}

impl EnrichmentState {
    pub fn gave_up(reason: GaveUpReason) -> EnrichmentState {
        EnrichmentState::GaveUp {
            note: reason.note().to_string(),
        }
    }

    pub fn is_final(&self) -> bool {
        !matches!(self, EnrichmentState::Pending)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_spans_about_fifteen_minutes_and_grows() {
        let s = backoff_schedule();
        let total: u64 = s.iter().map(Duration::as_secs).sum();
        assert_eq!(total, 900);
        assert_eq!(s[0], Duration::from_secs(30));
        // Non-decreasing up to the cap, except the final top-up.
        assert!(s[..s.len() - 1].windows(2).all(|w| w[0] <= w[1]));
        assert!(s.iter().all(|d| *d <= Duration::from_secs(180)));
    }

    #[test]
    fn gave_up_notes_are_fixed_and_final() {
        let state = EnrichmentState::gave_up(GaveUpReason::NoMatchingEvent);
        assert!(state.is_final());
        assert!(!EnrichmentState::Pending.is_final());
        assert_eq!(
            serde_json::to_value(&state).unwrap(),
            serde_json::json!({"state": "gave_up", "note": "CloudTrail had no matching event after about 15 minutes"})
        );
    }
}
