//! The scheduled drift report: what a plan of the default branch head says about each root,
//! and the body of the one GitHub issue per repository that carries it. Pure.
//!
//! Per root: resources Terraform found changed outside it while refreshing
//! (`resource_drift`), resources the next apply would change (`resource_changes` other than
//! no-op), shared inputs whose fingerprint moved since the last apply, or why the root was
//! not checked (a PR holds its lock, another run holds it, the plan failed). Every value
//! shown has passed through the caller's redactor.

use serde_json::Value;

use crate::model::{
    DriftAttributeChange, DriftFindingText, DriftReportText, DriftRootRow, DriftRootSection,
    DriftRootStatus, DriftValue, WhoChangedText,
};
use crate::terraform::attribute_path::display_path;
use crate::terraform::plan_json::{parse_plan_json, ResourceChange};
use crate::terraform::{attribute_changes, Action};

/// The hidden marker that identifies tfgate's drift issue.
pub const ISSUE_MARKER: &str = "<!-- tfgate:drift-report -->";
pub const ISSUE_TITLE: &str = "tfgate drift report";
/// Longest value shown on one side of `before → after`.
const MAX_VALUE_CHARS: usize = 80;

/// One resource and what changed in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceFinding {
    pub address: String,
    /// `update`, `create`, `delete`, `replace`, …
    pub action: String,
    /// What changed, redacted.
    pub attributes: Vec<DriftAttributeChange>,
    /// The names CloudTrail may file the resource under (never shown; resources changed
    /// outside Terraform only): see [`super::who_changed::resource_names`].
    pub lookup_names: Vec<String>,
    /// Who changed it outside Terraform, redacted (resources changed outside Terraform, when
    /// the policy gives a CloudTrail read role).
    pub who: Option<WhoChangedText>,
}

/// What became of one root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RootState {
    Checked {
        outside_terraform: Vec<ResourceFinding>,
        next_apply: Vec<ResourceFinding>,
        inputs_moved: Vec<String>,
    },
    /// A PR holds the root's lock: not planned, to stay out of its way.
    LockedBy { pr: i64 },
    /// Another run held the root.
    Busy,
    /// The plan did not produce a readable result (a public one-line reason).
    Failed { reason: String },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootReport {
    pub project: String,
    pub dir: String,
    pub state: RootState,
}

impl RootReport {
    /// Resources changed outside Terraform plus resources the next apply changes.
    pub fn drifted_resources(&self) -> usize {
        match &self.state {
            RootState::Checked {
                outside_terraform,
                next_apply,
                ..
            } => outside_terraform.len() + next_apply.len(),
            _ => 0,
        }
    }

    fn has_drift(&self) -> bool {
        matches!(&self.state, RootState::Checked { inputs_moved, .. } if !inputs_moved.is_empty())
            || self.drifted_resources() > 0
    }
}

/// One run of drift detection over a repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriftReport {
    pub commit_short: String,
    pub branch: String,
    /// RFC 3339, UTC.
    pub checked_at: String,
    pub roots: Vec<RootReport>,
}

/// What to do with the repository's drift issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IssueAction {
    /// Drift found: create the issue, or update (and reopen) it.
    Open,
    /// Every root was checked and none drifted: close the issue if there is one.
    Close,
    /// No drift seen, but some root could not be checked: update an existing issue, create
    /// none, close none.
    UpdateOnly,
}

impl DriftReport {
    pub fn issue_action(&self) -> IssueAction {
        if self.roots.iter().any(RootReport::has_drift) {
            IssueAction::Open
        } else if self
            .roots
            .iter()
            .all(|r| matches!(r.state, RootState::Checked { .. }))
        {
            IssueAction::Close
        } else {
            IssueAction::UpdateOnly
        }
    }

    /// The issue body as data (`drift_report.md.j2` words it): a summary table, then a
    /// section per root with findings.
    pub fn issue_text(&self) -> DriftReportText {
        DriftReportText {
            marker: ISSUE_MARKER.to_string(),
            title: ISSUE_TITLE.to_string(),
            branch: self.branch.clone(),
            commit_short: self.commit_short.clone(),
            checked_at: self.checked_at.clone(),
            rows: self.roots.iter().map(summary_row).collect(),
            sections: self.roots.iter().filter_map(root_section).collect(),
            closed: self.issue_action() == IssueAction::Close,
        }
    }
}

fn summary_row(root: &RootReport) -> DriftRootRow {
    let status = match &root.state {
        RootState::Checked {
            outside_terraform,
            next_apply,
            inputs_moved,
        } => DriftRootStatus::Checked {
            outside: outside_terraform.len(),
            next: next_apply.len(),
            inputs: inputs_moved.len(),
            drift: !outside_terraform.is_empty()
                || !next_apply.is_empty()
                || !inputs_moved.is_empty(),
        },
        RootState::LockedBy { pr } => DriftRootStatus::LockedBy { pr: *pr },
        RootState::Busy => DriftRootStatus::Busy,
        RootState::Failed { reason } => DriftRootStatus::Failed {
            reason: one_line(reason),
        },
    };
    DriftRootRow {
        project: root.project.clone(),
        dir: root.dir.clone(),
        status,
    }
}

fn finding_text(f: &ResourceFinding) -> DriftFindingText {
    DriftFindingText {
        address: f.address.clone(),
        action: f.action.clone(),
        attributes: f.attributes.clone(),
        who: f.who.clone(),
    }
}

fn root_section(root: &RootReport) -> Option<DriftRootSection> {
    let RootState::Checked {
        outside_terraform,
        next_apply,
        inputs_moved,
    } = &root.state
    else {
        return None;
    };
    if outside_terraform.is_empty() && next_apply.is_empty() && inputs_moved.is_empty() {
        return None;
    }
    Some(DriftRootSection {
        project: root.project.clone(),
        outside_terraform: outside_terraform.iter().map(finding_text).collect(),
        next_apply: next_apply.iter().map(finding_text).collect(),
        inputs_moved: inputs_moved.clone(),
    })
}

/// Shared inputs whose live fingerprint differs from the one of the root's last apply (an
/// input never applied has not moved). Names only.
pub fn inputs_moved(
    live: &std::collections::BTreeMap<String, String>,
    applied: &std::collections::BTreeMap<String, String>,
) -> Vec<String> {
    live.iter()
        .filter(|(name, hex)| applied.get(*name).is_some_and(|a| a != *hex))
        .map(|(name, _)| name.clone())
        .collect()
}

fn one_line(text: &str) -> String {
    text.lines()
        .next()
        .unwrap_or("")
        .replace('|', "\\|")
        .chars()
        .take(160)
        .collect()
}

/// The findings of a plan's `show -json`: (changed outside Terraform, next apply changes).
/// `redact` turns any value into what may be shown.
pub fn findings_from_plan(
    plan_json: &str,
    redact: &mut dyn FnMut(&str) -> String,
) -> Option<(Vec<ResourceFinding>, Vec<ResourceFinding>)> {
    let plan = parse_plan_json(plan_json).ok()?;
    // Only what changed outside Terraform is looked up in CloudTrail.
    let outside = plan
        .resource_drift
        .iter()
        .filter(|rc| rc.mode != "data")
        .map(|rc| ResourceFinding {
            lookup_names: lookup_names(rc),
            ..finding(rc, redact)
        })
        .collect();
    let next = plan
        .resource_changes
        .iter()
        .filter(|rc| rc.mode != "data")
        .filter(|rc| !matches!(rc.change.action(), Some(Action::NoOp | Action::Read)))
        .map(|rc| finding(rc, redact))
        .collect();
    Some((outside, next))
}

fn finding(rc: &ResourceChange<'_>, redact: &mut dyn FnMut(&str) -> String) -> ResourceFinding {
    let attributes = attribute_changes(&rc.change)
        .iter()
        .map(|a| {
            let (before, after) = if a.sensitive {
                (DriftValue::Sensitive, DriftValue::Sensitive)
            } else {
                let after = if a.after_unknown {
                    DriftValue::Unknown
                } else {
                    shown(a.after.as_ref(), redact)
                };
                (shown(a.before.as_ref(), redact), after)
            };
            DriftAttributeChange {
                path: display_path(&a.path),
                before,
                after,
            }
        })
        .collect();
    ResourceFinding {
        address: redact(&rc.address),
        action: rc.change.actions.join("+"),
        attributes,
        lookup_names: Vec::new(),
        who: None,
    }
}

/// The names CloudTrail may file the resource under, from its prior state.
fn lookup_names(rc: &ResourceChange<'_>) -> Vec<String> {
    let before: Option<Value> = rc
        .change
        .before
        .and_then(|raw| serde_json::from_str(raw.get()).ok());
    super::who_changed::resource_names(before.as_ref())
}

/// A value to show: redacted, cut to [`MAX_VALUE_CHARS`].
fn shown(value: Option<&Value>, redact: &mut dyn FnMut(&str) -> String) -> DriftValue {
    let Some(value) = value else {
        return DriftValue::Absent;
    };
    let text = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let redacted = redact(&text);
    let mut cut: String = redacted.chars().take(MAX_VALUE_CHARS).collect();
    if redacted.chars().count() > MAX_VALUE_CHARS {
        cut.push('…');
    }
    DriftValue::Shown { text: cut }
}

#[cfg(test)]
#[path = "report_tests.rs"]
mod tests;
