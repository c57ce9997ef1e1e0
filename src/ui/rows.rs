//! What the UI's tables show, built from database rows. Pure: times are formatted here,
//! runs are sorted into the chart's outcomes, failures counted by category, and the audit log
//! written as CSV.

use std::collections::BTreeMap;

use serde::Serialize;

use super::charts::DayRuns;
use crate::cli::operator::{format_duration, format_time, lock_id};
use crate::db::audit::AuditRow;
use crate::db::locks::LockRow;
use crate::db::runs::RunListRow;
use crate::model::view::ApplyComment;
use crate::model::view::ApplyResult;

/// Milliseconds in a day.
pub const DAY_MS: i64 = 86_400_000;

/// A run as the tables show it: the row, its start and its duration.
#[derive(Debug, Clone, Serialize)]
pub struct RunView {
    #[serde(flatten)]
    pub row: RunListRow,
    pub when: String,
    pub took: String,
}

pub fn run_view(r: &RunListRow, now_ms: i64) -> RunView {
    let took = match (r.finished_ms, r.status.as_str()) {
        (Some(end), _) => format_duration(end - r.created_ms),
        (None, "running") => format!("{} so far", format_duration(now_ms - r.created_ms)),
        (None, _) => String::new(),
    };
    RunView {
        row: r.clone(),
        when: format_time(r.created_ms),
        took,
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct LockView {
    pub id: String,
    pub repo: String,
    pub project: String,
    pub workspace: String,
    pub pr: i64,
    pub holder: String,
    pub since: String,
    pub release_pending: bool,
    pub can_release: bool,
}

pub fn lock_view(l: &LockRow, can_release: bool) -> LockView {
    LockView {
        id: lock_id(l),
        repo: l.repo.clone(),
        project: l.project.clone(),
        workspace: l.workspace.clone(),
        pr: l.pr,
        holder: l.holder.clone(),
        since: format_time(l.since_ms),
        release_pending: l.release_pending,
        can_release: can_release && !l.release_pending,
    }
}

/// The chart's outcome of a run status.
pub fn outcome_of(status: &str) -> &'static str {
    match status {
        "applied" | "planned" => "succeeded",
        "plan_failed" | "apply_failed" => "failed",
        "interrupted" => "interrupted",
        _ => "other",
    }
}

/// Runs per day (UTC) for the `days` days ending with `now_ms`'s day, oldest first.
pub fn runs_per_day(runs: &[(i64, String)], now_ms: i64, days: i64) -> Vec<DayRuns> {
    let today = now_ms.div_euclid(DAY_MS);
    let first = today - days + 1;
    let mut out: Vec<DayRuns> = (first..=today)
        .map(|d| DayRuns {
            day: format_time(d * DAY_MS)[..10].to_string(),
            by_outcome: BTreeMap::new(),
        })
        .collect();
    for (created_ms, status) in runs {
        let d = created_ms.div_euclid(DAY_MS);
        if (first..=today).contains(&d) {
            let slot = &mut out[(d - first) as usize];
            *slot
                .by_outcome
                .entry(outcome_of(status).into())
                .or_insert(0) += 1;
        }
    }
    out
}

/// Failed resources per category label in apply results.
pub fn failures_by_category<'a>(
    results: impl IntoIterator<Item = &'a ApplyComment>,
) -> BTreeMap<String, u32> {
    let mut counts = BTreeMap::new();
    for comment in results {
        for row in comment.roots.iter().flat_map(|r| r.rows.iter()) {
            if row.result == ApplyResult::Failed {
                let label = row
                    .category_label
                    .clone()
                    .unwrap_or_else(|| "unclassified".into());
                *counts.entry(label).or_insert(0) += 1;
            }
        }
    }
    counts
}

/// An audit line as the page shows it: the row and its time.
#[derive(Debug, Clone, Serialize)]
pub struct AuditView {
    #[serde(flatten)]
    pub row: AuditRow,
    pub when: String,
}

pub fn audit_view(a: &AuditRow) -> AuditView {
    AuditView {
        row: a.clone(),
        when: format_time(a.at_ms),
    }
}

/// Whether an audit row matches the command and decision filters (empty: any).
pub fn audit_matches(a: &AuditRow, command: &str, decision: &str) -> bool {
    (command.is_empty() || a.action.eq_ignore_ascii_case(command))
        && (decision.is_empty() || a.result.eq_ignore_ascii_case(decision))
}

/// One CSV field (RFC 4180); a leading `=`, `+`, `-` or `@` is quoted away so a spreadsheet
/// never takes a field for a formula.
fn csv_field(text: &str) -> String {
    let guarded = if text.starts_with(['=', '+', '-', '@']) {
        format!("'{text}")
    } else {
        text.to_string()
    };
    if guarded.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", guarded.replace('"', "\"\""))
    } else {
        guarded
    }
}

pub fn audit_csv(rows: &[AuditRow]) -> String {
    let mut out = String::from("time_utc,actor,repo,pr,command,decision,rule,detail\r\n");
    for a in rows {
        let fields = [
            format_time(a.at_ms),
            a.actor.clone(),
            a.repo.clone().unwrap_or_default(),
            a.pr.map(|p| p.to_string()).unwrap_or_default(),
            a.action.clone(),
            a.result.clone(),
            a.rule.clone().unwrap_or_default(),
            a.detail.clone().unwrap_or_default(),
        ];
        let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        out.push_str(&line.join(","));
        out.push_str("\r\n");
    }
    out
}

/// Terraform's `-json` lines as `level  message` (other lines as they are), for reading.
pub fn readable_log(text: &str) -> String {
    let mut out = String::with_capacity(text.len() / 2);
    for line in text.lines() {
        let parsed: Option<serde_json::Value> = line
            .trim_start()
            .starts_with('{')
            .then(|| serde_json::from_str(line).ok())
            .flatten();
        match parsed
            .as_ref()
            .and_then(|v| Some((v.get("@level")?.as_str()?, v.get("@message")?.as_str()?)))
        {
            Some((level, message)) => out.push_str(&format!("{level:<5}  {message}")),
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn audit(action: &str, result: &str, detail: &str) -> AuditRow {
        AuditRow {
            at_ms: 1_764_000_000_000,
            actor: "alice".into(),
            repo: Some("acme/infra".into()),
            pr: Some(7),
            action: action.into(),
            rule: None,
            result: result.into(),
            detail: Some(detail.into()),
        }
    }

    #[test]
    fn runs_fall_into_their_utc_day_and_outcome() {
        let day = 86_400_000;
        let now = 20_000 * day + 5_000;
        let runs = [
            (now, "applied".to_string()),
            (now - 1, "apply_failed".to_string()),
            (now - day, "planned".to_string()),
            (now - 40 * day, "applied".to_string()),
        ];
        let days = runs_per_day(&runs, now, 30);
        assert_eq!(days.len(), 30);
        let last = days.last().unwrap();
        assert_eq!(last.by_outcome.get("succeeded"), Some(&1));
        assert_eq!(last.by_outcome.get("failed"), Some(&1));
        assert_eq!(days[28].by_outcome.get("succeeded"), Some(&1));
        assert_eq!(
            days.iter()
                .map(|d| d.by_outcome.values().sum::<u32>())
                .sum::<u32>(),
            3
        );
        assert_eq!(last.day, format_time(now)[..10]);
        assert_eq!(outcome_of("running"), "other");
        assert_eq!(outcome_of("interrupted"), "interrupted");
    }

    #[test]
    fn audit_filters_and_csv() {
        let rows = [
            audit("apply", "allow", "eks"),
            audit("apply", "denied", "needs approval, \"1\""),
            audit("plan", "allow", "=HYPERLINK(\"x\")"),
        ];
        assert!(audit_matches(&rows[0], "apply", ""));
        assert!(!audit_matches(&rows[0], "apply", "denied"));
        assert!(audit_matches(&rows[1], "APPLY", "denied"));
        assert!(audit_matches(&rows[2], "", ""));
        let csv = audit_csv(&rows);
        let lines: Vec<&str> = csv.split("\r\n").collect();
        assert_eq!(
            lines[0],
            "time_utc,actor,repo,pr,command,decision,rule,detail"
        );
        assert!(
            lines[2].ends_with(",apply,denied,,\"needs approval, \"\"1\"\"\""),
            "{}",
            lines[2]
        );
        assert!(
            lines[3].ends_with(",plan,allow,,\"'=HYPERLINK(\"\"x\"\")\""),
            "{}",
            lines[3]
        );
        assert_eq!(lines.len(), 5);
    }

    #[test]
    fn json_log_lines_become_level_and_message() {
        let log = "{\"@level\":\"info\",\"@message\":\"Terraform 1.0.3\",\"type\":\"version\"}\nplain text\n{\"@level\":\"error\",\"@message\":\"Error: denied\"}\n{broken";
        assert_eq!(
            readable_log(log),
            "info   Terraform 1.0.3\nplain text\nerror  Error: denied\n{broken\n"
        );
    }

    #[test]
    fn a_lock_being_released_offers_no_second_release() {
        let l = LockRow {
            repo: "acme/infra".into(),
            project: "eks".into(),
            workspace: "default".into(),
            pr: 3,
            holder: "alice".into(),
            since_ms: 0,
            release_pending: true,
        };
        assert!(!lock_view(&l, true).can_release);
        let free = LockRow {
            release_pending: false,
            ..l
        };
        assert!(lock_view(&free, true).can_release);
        assert!(!lock_view(&free, false).can_release);
        assert_eq!(lock_view(&free, true).id, "acme/infra/eks/default");
    }
}
