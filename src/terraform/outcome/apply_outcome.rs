//! What an apply did, per resource, from its `-json` UI stream.

use std::collections::HashMap;

use serde::Serialize;

use super::action::Action;
use crate::terraform::diagnostic::{Diagnostic, Severity};
use crate::terraform::ui_events::{ApplyHook, ChangeSummary};
use crate::terraform::ui_stream::{UiMessage, UiStream};

/// A change the apply was expected to make (from a plan summary or a plan run).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlannedChangeRef {
    pub address: String,
    pub action: Action,
}

/// How a resource instance ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ResourceStatus {
    Done,
    /// `apply_errored`, or an error diagnostic addressed to this instance.
    Failed {
        /// The step that failed (`Create` when the create half of a replace failed).
        failed_action: Option<Action>,
        diagnostics: Vec<Diagnostic>,
        /// `@timestamp` of the failure (errored hook, else first diagnostic).
        failed_at: Option<String>,
    },
    /// Planned, never started.
    NotReached,
    /// Started but neither completed nor errored (interrupted), or only one half of a
    /// replace completed.
    Started,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResourceOutcome {
    pub address: String,
    /// The planned action if known, else derived from the hooks seen.
    pub action: Option<Action>,
    #[serde(flatten)]
    pub status: ResourceStatus,
    /// Sum of the hooks' elapsed seconds (last progress value when interrupted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elapsed_seconds: Option<f64>,
}

/// An output of the apply: name and sensitivity only (values are dropped).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutputSummary {
    pub name: String,
    pub sensitive: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ApplyOutcome {
    /// Planned resources first (in the given order), then others in stream order.
    pub resources: Vec<ResourceOutcome>,
    /// Errors tied to no resource instance: configuration errors (range/snippet only),
    /// provider configuration errors (`provider["…"]` addresses), backend errors.
    pub unattached_diagnostics: Vec<Diagnostic>,
    /// Warnings (and diagnostics of unknown severity).
    pub warnings: Vec<Diagnostic>,
    /// The apply's (or destroy's) `change_summary`; the plan-phase one is ignored.
    pub change_summary: Option<ChangeSummary>,
    pub outputs: Vec<OutputSummary>,
    /// Lines that were not JSON (crash output).
    pub non_json_lines: usize,
}

impl ApplyOutcome {
    /// Every resource done, no error at all, and Terraform reported the apply complete.
    pub fn succeeded(&self) -> bool {
        self.change_summary.is_some()
            && self.unattached_diagnostics.is_empty()
            && self
                .resources
                .iter()
                .all(|r| r.status == ResourceStatus::Done)
    }

    pub fn failed(&self) -> impl Iterator<Item = &ResourceOutcome> {
        self.resources
            .iter()
            .filter(|r| matches!(r.status, ResourceStatus::Failed { .. }))
    }
}

#[derive(Default)]
struct Tracker {
    address: String,
    planned: Option<Action>,
    /// Every hook action started.
    started: Vec<Option<Action>>,
    /// Hook actions started and not yet finished.
    open: Vec<Option<Action>>,
    completed: Vec<Option<Action>>,
    errored: Option<(Option<Action>, Option<String>)>,
    diagnostics: Vec<(Diagnostic, Option<String>)>,
    elapsed: Option<f64>,
    last_progress: Option<f64>,
}

impl Tracker {
    fn finish_hook(&mut self, hook: &ApplyHook) -> Option<Action> {
        let action = hook.action();
        if let Some(pos) = self.open.iter().position(|a| *a == action) {
            self.open.remove(pos);
        } else {
            self.open.pop();
        }
        if let Some(seconds) = hook.elapsed_seconds {
            *self.elapsed.get_or_insert(0.0) += seconds;
        }
        action
    }
}

struct Trackers {
    list: Vec<Tracker>,
    index: HashMap<String, usize>,
}

impl Trackers {
    fn get(&mut self, address: &str) -> &mut Tracker {
        let next = self.list.len();
        let i = *self.index.entry(address.to_string()).or_insert(next);
        if i == next {
            self.list.push(Tracker {
                address: address.to_string(),
                ..Tracker::default()
            });
        }
        &mut self.list[i]
    }
}

/// Derives per-resource outcomes. `planned` may be empty: `planned_change` messages of the
/// stream (present with `-auto-approve` and with a saved plan) are used as well.
pub fn apply_outcome(stream: &UiStream, planned: &[PlannedChangeRef]) -> ApplyOutcome {
    let mut tracker = ApplyTracker::new(planned);
    for message in &stream.messages {
        tracker.observe(message);
    }
    tracker.finish()
}

/// Incremental form of [`apply_outcome`]: feed messages as Terraform prints them (e.g. from
/// [`crate::terraform::parse_ui_line`]) without keeping the whole stream.
pub struct ApplyTracker {
    trackers: Trackers,
    outcome: ApplyOutcome,
}

impl ApplyTracker {
    pub fn new(planned: &[PlannedChangeRef]) -> ApplyTracker {
        let mut trackers = Trackers {
            list: Vec::new(),
            index: HashMap::new(),
        };
        for p in planned {
            trackers.get(&p.address).planned = Some(p.action);
        }
        ApplyTracker {
            trackers,
            outcome: ApplyOutcome::default(),
        }
    }

    pub fn observe(&mut self, message: &UiMessage) {
        let trackers = &mut self.trackers;
        let outcome = &mut self.outcome;
        match message {
            UiMessage::PlannedChange { change, .. } => {
                let tracker = trackers.get(&change.resource.addr);
                if tracker.planned.is_none() {
                    tracker.planned = change.action();
                }
            }
            UiMessage::ApplyStart { hook, .. } => {
                let tracker = trackers.get(&hook.resource.addr);
                tracker.started.push(hook.action());
                tracker.open.push(hook.action());
            }
            UiMessage::ApplyProgress { hook, .. } => {
                trackers.get(&hook.resource.addr).last_progress = hook.elapsed_seconds;
            }
            UiMessage::ApplyComplete { hook, .. } => {
                let tracker = trackers.get(&hook.resource.addr);
                let action = tracker.finish_hook(hook);
                tracker.completed.push(action);
            }
            UiMessage::ApplyErrored { hook, meta } => {
                let tracker = trackers.get(&hook.resource.addr);
                let action = tracker.finish_hook(hook);
                tracker.errored = Some((action, meta.timestamp.clone()));
            }
            UiMessage::Diagnostic { diagnostic, meta } => match diagnostic.severity {
                Severity::Error => match diagnostic.address.as_deref() {
                    Some(address) if is_instance_address(address) => trackers
                        .get(address)
                        .diagnostics
                        .push((diagnostic.clone(), meta.timestamp.clone())),
                    _ => outcome.unattached_diagnostics.push(diagnostic.clone()),
                },
                Severity::Warning | Severity::Unknown => outcome.warnings.push(diagnostic.clone()),
            },
            UiMessage::ChangeSummary { changes, .. } if changes.operation != "plan" => {
                outcome.change_summary = Some(changes.clone());
            }
            UiMessage::Outputs { outputs, .. } => {
                outcome.outputs = outputs
                    .iter()
                    .map(|(name, info)| OutputSummary {
                        name: name.clone(),
                        sensitive: info.sensitive,
                    })
                    .collect();
            }
            UiMessage::NonJson { .. } => outcome.non_json_lines += 1,
            _ => {}
        }
    }

    pub fn finish(self) -> ApplyOutcome {
        let mut outcome = self.outcome;
        let apply_finished = outcome.change_summary.is_some();
        outcome.resources = self
            .trackers
            .list
            .into_iter()
            .map(|t| resolve(t, apply_finished))
            .collect();
        outcome
    }
}

/// Provider, backend and other non-resource contexts are not per-resource results.
fn is_instance_address(address: &str) -> bool {
    !address.is_empty() && !address.starts_with("provider[") && !address.contains(".provider[")
}

fn resolve(t: Tracker, apply_finished: bool) -> ResourceOutcome {
    let mut seen = t.started.clone();
    seen.extend(t.completed.iter().copied());
    seen.extend(t.errored.as_ref().map(|e| e.0));
    let action = t.planned.or_else(|| derive_action(&seen));
    let mut elapsed = t.elapsed;
    let status = if t.errored.is_some() || !t.diagnostics.is_empty() {
        let (failed_action, errored_at) = t.errored.unwrap_or((None, None));
        let failed_action = failed_action.or_else(|| t.open.last().copied().flatten());
        let failed_at = errored_at.or_else(|| t.diagnostics.first().and_then(|d| d.1.clone()));
        ResourceStatus::Failed {
            failed_action: failed_action.or(action),
            diagnostics: t.diagnostics.into_iter().map(|(d, _)| d).collect(),
            failed_at,
        }
    } else if !t.open.is_empty() {
        elapsed = t.last_progress.or(elapsed);
        ResourceStatus::Started
    } else if !t.completed.is_empty() {
        if action == Some(Action::Replace) && derive_action(&t.completed) != Some(Action::Replace) {
            ResourceStatus::Started
        } else {
            ResourceStatus::Done
        }
    } else if apply_finished && matches!(action, Some(a) if completes_without_hooks(a)) {
        ResourceStatus::Done
    } else {
        ResourceStatus::NotReached
    };
    ResourceOutcome {
        address: t.address,
        action,
        status,
        elapsed_seconds: elapsed,
    }
}

/// Actions that change only state, so the stream shows no hook for them.
fn completes_without_hooks(action: Action) -> bool {
    matches!(
        action,
        Action::Move | Action::Import | Action::Forget | Action::NoOp
    )
}

/// A delete and a create on the same instance make a replace; otherwise the last action.
fn derive_action(actions: &[Option<Action>]) -> Option<Action> {
    let has = |a: Action| actions.contains(&Some(a));
    if has(Action::Delete) && has(Action::Create) {
        Some(Action::Replace)
    } else {
        actions.iter().rev().find_map(|a| *a)
    }
}

#[cfg(test)]
#[path = "apply_outcome_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "apply_outcome_fixture_tests.rs"]
mod fixture_tests;
