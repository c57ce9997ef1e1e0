//! When scheduled drift detection runs: a cron expression (five fields, UTC: `0 6 * * *`),
//! and which slot is due given the last one run. Pure; the clock is passed in.
//!
//! A repository seen for the first time records the latest slot without running it (a new
//! policy does not start a run at once for a slot that passed before it existed); after that,
//! each poll runs the latest slot when it is newer than the one recorded. Slots missed while
//! no server ran collapse into one run, the latest.

use std::str::FromStr;

use chrono::{DateTime, Utc};
use croner::Cron;

/// A parsed, validated schedule.
#[derive(Debug, Clone)]
pub struct Schedule {
    cron: Cron,
    text: String,
}

/// What a poll does for one repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlotDecision {
    /// Run the drift check of this slot, and record it.
    Run(DateTime<Utc>),
    /// Record this slot without running it (first sight).
    Record(DateTime<Utc>),
    /// Nothing new since the recorded slot.
    Wait,
}

impl Schedule {
    /// Five whitespace-separated fields (minute hour day-of-month month day-of-week), UTC.
    pub fn parse(text: &str) -> Result<Schedule, String> {
        let fields = text.split_whitespace().count();
        if fields != 5 {
            return Err(format!(
                "schedule `{text}` must have 5 fields (minute hour day month weekday, UTC), like `0 6 * * *`"
            ));
        }
        let cron = Cron::from_str(text.trim())
            .map_err(|e| format!("schedule `{text}` is not a cron expression: {e}"))?;
        Ok(Schedule {
            cron,
            text: text.trim().to_string(),
        })
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// The latest slot at or before `now`.
    pub fn latest_slot(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        self.cron.find_previous_occurrence(&now, true).ok()
    }

    /// The next slot after `now` (for logs and `tfgate drift`).
    pub fn next_slot(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        self.cron.find_next_occurrence(&now, false).ok()
    }

    /// Whether a poll at `now` runs, given the slot last recorded.
    pub fn decide(&self, recorded: Option<DateTime<Utc>>, now: DateTime<Utc>) -> SlotDecision {
        let Some(latest) = self.latest_slot(now) else {
            return SlotDecision::Wait;
        };
        match recorded {
            None => SlotDecision::Record(latest),
            Some(last) if latest > last => SlotDecision::Run(latest),
            Some(_) => SlotDecision::Wait,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn daily_at_six_utc() {
        let s = Schedule::parse("0 6 * * *").unwrap();
        assert_eq!(
            s.latest_slot(t("2026-12-05T07:30:00Z")),
            Some(t("2026-12-05T06:00:00Z"))
        );
        assert_eq!(
            s.latest_slot(t("2026-12-05T05:59:59Z")),
            Some(t("2026-12-04T06:00:00Z"))
        );
        assert_eq!(
            s.latest_slot(t("2026-12-05T06:00:00Z")),
            Some(t("2026-12-05T06:00:00Z"))
        );
        assert_eq!(
            s.next_slot(t("2026-12-05T06:00:00Z")),
            Some(t("2026-12-06T06:00:00Z"))
        );
    }

    #[test]
    fn decisions_over_a_day_of_polls() {
        let s = Schedule::parse("0 6 * * *").unwrap();
        // First sight at 10:00: record 06:00, do not run.
        let first = s.decide(None, t("2026-12-05T10:00:00Z"));
        assert_eq!(first, SlotDecision::Record(t("2026-12-05T06:00:00Z")));
        let recorded = Some(t("2026-12-05T06:00:00Z"));
        assert_eq!(
            s.decide(recorded, t("2026-12-05T23:59:00Z")),
            SlotDecision::Wait
        );
        assert_eq!(
            s.decide(recorded, t("2026-12-06T06:00:30Z")),
            SlotDecision::Run(t("2026-12-06T06:00:00Z"))
        );
        // Three days without a server: one run, the latest slot.
        assert_eq!(
            s.decide(recorded, t("2026-12-09T08:00:00Z")),
            SlotDecision::Run(t("2026-12-09T06:00:00Z"))
        );
    }

    #[test]
    fn weekdays_and_steps() {
        let s = Schedule::parse("*/30 8-18 * * 1-5").unwrap();
        // Saturday 2026-12-05 → the last slot is Friday 18:30.
        assert_eq!(
            s.latest_slot(t("2026-12-05T12:00:00Z")),
            Some(t("2026-12-04T18:30:00Z"))
        );
    }

    #[test]
    fn bad_schedules_are_named() {
        for (text, words) in [
            ("0 6 * *", "must have 5 fields"),
            ("0 0 6 * * *", "must have 5 fields"),
            ("61 6 * * *", "is not a cron expression"),
            ("0 6 * * funday", "is not a cron expression"),
            ("", "must have 5 fields"),
        ] {
            let e = Schedule::parse(text).unwrap_err();
            assert!(e.contains(words), "{text}: {e}");
        }
    }
}
