//! The operator commands' text (pure): lock ids, dates, and the tables `tfgate locks`,
//! `runs`, `run-show` and `audit` print. Queries are in `db` (`locks`, `runs`, `audit`);
//! nothing here reads.

use crate::db::audit::AuditRow;
use crate::db::locks::LockRow;
use crate::db::runs::RunListRow;

/// A lock's id as `tfgate locks` prints it and `--release` takes it:
/// `OWNER/REPO/PROJECT/WORKSPACE` (a project name may hold `/`; the others may not).
pub fn lock_id(lock: &LockRow) -> String {
    format!("{}/{}/{}", lock.repo, lock.project, lock.workspace)
}

/// `(repo, project, workspace)` of a lock id.
pub fn parse_lock_id(id: &str) -> Result<(String, String, String), String> {
    let parts: Vec<&str> = id.split('/').collect();
    if parts.len() < 4 || parts.iter().any(|p| p.is_empty()) {
        return Err(format!(
            "`{id}` is not a lock id: OWNER/REPO/PROJECT/WORKSPACE, as `tfgate locks` prints it"
        ));
    }
    let workspace = parts[parts.len() - 1].to_string();
    let project = parts[2..parts.len() - 1].join("/");
    Ok((format!("{}/{}", parts[0], parts[1]), project, workspace))
}

/// Days since 1970-01-01 of a civil date (proleptic Gregorian).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `--since`: `YYYY-MM-DD` (UTC midnight) or `Nd`/`Nh` before `now_ms`; epoch milliseconds.
pub fn parse_since(text: &str, now_ms: i64) -> Result<i64, String> {
    let text = text.trim();
    let bad = || format!("`{text}`: use a date (2026-12-01) or an age (7d, 12h)");
    if let Some(n) = text.strip_suffix('d').and_then(|n| n.parse::<i64>().ok()) {
        return Ok(now_ms - n * 86_400_000);
    }
    if let Some(n) = text.strip_suffix('h').and_then(|n| n.parse::<i64>().ok()) {
        return Ok(now_ms - n * 3_600_000);
    }
    let parts: Vec<i64> = text
        .split('-')
        .map(|p| p.parse().map_err(|_| bad()))
        .collect::<Result<_, _>>()?;
    let [y, m, d] = parts.as_slice() else {
        return Err(bad());
    };
    if !(1..=12).contains(m) || !(1..=31).contains(d) {
        return Err(bad());
    }
    Ok(days_from_civil(*y, *m, *d) * 86_400_000)
}

/// `YYYY-MM-DD HH:MM` (UTC) of epoch milliseconds.
pub fn format_time(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}",
        rest / 3600,
        rest % 3600 / 60
    )
}

/// A duration in seconds or minutes.
pub fn format_duration(ms: i64) -> String {
    if ms < 60_000 {
        format!("{:.1}s", ms as f64 / 1000.0)
    } else {
        format!("{}m{:02}s", ms / 60_000, ms % 60_000 / 1000)
    }
}

pub fn locks_table(locks: &[LockRow]) -> String {
    if locks.is_empty() {
        return "no locks held\n".into();
    }
    let mut out = format!(
        "{:<48} {:>5}  {:<20} {:<16}\n",
        "LOCK", "PR", "HOLDER", "SINCE (UTC)"
    );
    for l in locks {
        let pending = if l.release_pending {
            "  (released when its run ends)"
        } else {
            ""
        };
        out.push_str(&format!(
            "{:<48} {:>5}  {:<20} {:<16}{pending}\n",
            lock_id(l),
            l.pr,
            l.holder,
            format_time(l.since_ms)
        ));
    }
    out
}

pub fn runs_table(runs: &[RunListRow]) -> String {
    if runs.is_empty() {
        return "no runs\n".into();
    }
    let mut out = format!(
        "{:>6}  {:<28} {:>5}  {:<20} {:<6} {:<13} {:<16} {:>8}  {}\n",
        "RUN", "REPO", "PR", "PROJECT", "CMD", "STATUS", "STARTED (UTC)", "TOOK", "BY"
    );
    for r in runs {
        let took = r
            .finished_ms
            .map_or("-".to_string(), |f| format_duration(f - r.created_ms));
        out.push_str(&format!(
            "{:>6}  {:<28} {:>5}  {:<20} {:<6} {:<13} {:<16} {:>8}  {}\n",
            r.id,
            r.repo,
            r.pr,
            project_label(r),
            r.command,
            r.status,
            format_time(r.created_ms),
            took,
            r.actor
        ));
    }
    out
}

fn project_label(r: &RunListRow) -> String {
    if r.workspace == "default" {
        r.project.clone()
    } else {
        format!("{} ({})", r.project, r.workspace)
    }
}

/// `tfgate run-show`'s header lines.
pub fn run_header(r: &RunListRow) -> String {
    let took = r.finished_ms.map_or("still running".to_string(), |f| {
        format_duration(f - r.created_ms)
    });
    format!(
        "run {}: {} of `{}` (workspace {}) in {} PR #{}\nstatus: {}\nrequested by: {}\ncommit: {}\nstarted: {} UTC; took {took}\n",
        r.id,
        r.command,
        r.project,
        r.workspace,
        r.repo,
        r.pr,
        r.status,
        r.actor,
        r.head_sha,
        format_time(r.created_ms),
    )
}

pub fn audit_table(rows: &[AuditRow]) -> String {
    if rows.is_empty() {
        return "no audit events\n".into();
    }
    let mut out = format!(
        "{:<16}  {:<16} {:<28} {:>5}  {:<22} {:<10} {}\n",
        "AT (UTC)", "ACTOR", "REPO", "PR", "ACTION", "RESULT", "RULE / DETAIL"
    );
    for a in rows {
        let why = [a.rule.as_deref(), a.detail.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" · ");
        out.push_str(&format!(
            "{:<16}  {:<16} {:<28} {:>5}  {:<22} {:<10} {why}\n",
            format_time(a.at_ms),
            a.actor,
            a.repo.as_deref().unwrap_or("-"),
            a.pr.map_or("-".to_string(), |p| p.to_string()),
            a.action,
            a.result,
        ));
    }
    out
}

#[cfg(test)]
#[path = "operator_tests.rs"]
mod tests;
