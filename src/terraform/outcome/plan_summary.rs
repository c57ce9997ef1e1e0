//! What a plan will do: counts and the changed resources with their changed attributes.

use serde::Serialize;

use super::action::Action;
use super::apply_outcome::PlannedChangeRef;
use super::attribute_diff::{attribute_changes, AttributeChange};
use crate::terraform::attribute_path::PathStep;
use crate::terraform::plan_json::{PlanJson, ResourceChange};

/// Counts per action. Unlike Terraform's "N to add / M to destroy" line, replaces are
/// counted once, in `replace` (Terraform adds them to both `add` and `destroy`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct PlanCounts {
    pub add: usize,
    pub change: usize,
    pub destroy: usize,
    pub replace: usize,
    pub read: usize,
    pub forget: usize,
    /// Instances with `importing` (any action).
    pub import: usize,
    /// Instances whose `previous_address` differs (any action).
    #[serde(rename = "move")]
    pub move_: usize,
    /// Instances with nothing to do (not listed in [`PlanSummary::resources`]).
    pub no_op: usize,
}

impl PlanCounts {
    /// Terraform's own `(to add, to change, to destroy)` numbers.
    pub fn terraform_line(&self) -> (usize, usize, usize) {
        (
            self.add + self.replace,
            self.change,
            self.destroy + self.replace,
        )
    }
}

/// One resource instance that the plan changes (no-ops are left out).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlannedResource {
    pub address: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_address: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module_address: Option<String>,
    pub resource_type: String,
    pub action: Action,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action_reason: Option<String>,
    /// Set for a deposed object (the key, e.g. `00000001`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deposed: Option<String>,
    pub changed_attributes: Vec<AttributeChange>,
    /// Changed attributes beyond the plan's [`ATTRIBUTE_BUDGET`]: counted, not kept.
    #[serde(skip_serializing_if = "is_zero")]
    pub omitted_attributes: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub replace_paths: Vec<Vec<PathStep>>,
}

/// Changed attributes kept (with their values) across one plan, in plan order. A comment or a
/// check-run text (65,536 characters each) shows at most a few thousand (each takes at least a
/// line), so a 10,000-resource plan keeps the diffs it could show and only counts the rest:
/// memory stays near the size of the plan file.
pub const ATTRIBUTE_BUDGET: usize = 8_000;

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A change made outside Terraform, detected while refreshing (`resource_drift`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DriftedResource {
    pub address: String,
    pub resource_type: String,
    /// `Update` or `Delete` in practice; `None` for an unknown actions array.
    pub action: Option<Action>,
    pub changed_attributes: Vec<AttributeChange>,
}

/// An output change: name, action and sensitivity only (values are not kept).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OutputChange {
    pub name: String,
    pub action: Option<Action>,
    pub sensitive: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PlanSummary {
    pub counts: PlanCounts,
    pub resources: Vec<PlannedResource>,
    pub drift: Vec<DriftedResource>,
    pub outputs: Vec<OutputChange>,
    /// Addresses whose `actions` array is not one we know (left out of counts and list).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unrecognized: Vec<String>,
    /// The plan stopped on an error (`errored`).
    pub errored: bool,
}

impl PlanSummary {
    /// The listed resources as input for [`super::apply_outcome`].
    pub fn change_refs(&self) -> Vec<PlannedChangeRef> {
        self.resources
            .iter()
            .filter(|r| r.deposed.is_none())
            .map(|r| PlannedChangeRef {
                address: r.address.clone(),
                action: r.action,
            })
            .collect()
    }

    pub fn has_changes(&self) -> bool {
        !self.resources.is_empty()
    }
}

/// Summarizes a plan. Attribute diffs are computed one resource at a time and kept
/// (for 10,000 creates that is roughly 4x the plan text in memory: see
/// [`plan_summary_shallow`]).
pub fn plan_summary(plan: &PlanJson<'_>) -> PlanSummary {
    summarize(plan, true)
}

/// Like [`plan_summary`] but with empty `changed_attributes` on resources (drift keeps
/// its diffs); compute them per resource with [`super::attribute_changes`] when rendering.
pub fn plan_summary_shallow(plan: &PlanJson<'_>) -> PlanSummary {
    summarize(plan, false)
}

fn summarize(plan: &PlanJson<'_>, with_attributes: bool) -> PlanSummary {
    let mut summary = PlanSummary {
        errored: plan.errored,
        ..PlanSummary::default()
    };
    let mut budget = ATTRIBUTE_BUDGET;
    for rc in &plan.resource_changes {
        let Some(planned) = rc.change.action() else {
            summary.unrecognized.push(rc.address.clone());
            continue;
        };
        let moved = rc
            .previous_address
            .as_deref()
            .is_some_and(|prev| prev != rc.address);
        let importing = rc.change.importing.is_some();
        let counts = &mut summary.counts;
        counts.import += usize::from(importing);
        counts.move_ += usize::from(moved);
        let action = match planned {
            Action::NoOp if importing => Action::Import,
            Action::NoOp if moved => Action::Move,
            other => other,
        };
        match action {
            Action::Create => counts.add += 1,
            Action::Update => counts.change += 1,
            Action::Delete => counts.destroy += 1,
            Action::Replace => counts.replace += 1,
            Action::CreateThenForget => {
                counts.add += 1;
                counts.forget += 1;
            }
            Action::Read => counts.read += 1,
            Action::Forget => counts.forget += 1,
            Action::NoOp => {
                counts.no_op += 1;
                continue;
            }
            Action::Move | Action::Import => {}
        }
        let mut resource = planned_resource(rc, action, with_attributes);
        let kept = resource.changed_attributes.len().min(budget);
        resource.omitted_attributes = resource.changed_attributes.len() - kept;
        resource.changed_attributes.truncate(kept);
        resource.changed_attributes.shrink_to_fit();
        budget -= kept;
        summary.resources.push(resource);
    }
    summary.drift = plan
        .resource_drift
        .iter()
        .map(|rc| DriftedResource {
            address: rc.address.clone(),
            resource_type: rc.type_.clone(),
            action: rc.change.action(),
            changed_attributes: attribute_changes(&rc.change),
        })
        .collect();
    summary.outputs = plan
        .output_changes
        .iter()
        .map(|(name, change)| OutputChange {
            name: name.clone(),
            action: change.action(),
            sensitive: [change.before_sensitive, change.after_sensitive]
                .into_iter()
                .flatten()
                .any(|raw| raw.get().trim() == "true"),
        })
        .collect();
    summary
}

fn planned_resource(
    rc: &ResourceChange<'_>,
    action: Action,
    with_attributes: bool,
) -> PlannedResource {
    PlannedResource {
        address: rc.address.clone(),
        previous_address: rc.previous_address.clone(),
        module_address: rc.module_address.clone(),
        resource_type: rc.type_.clone(),
        action,
        action_reason: rc.action_reason.clone(),
        deposed: rc.deposed.clone(),
        changed_attributes: if with_attributes {
            attribute_changes(&rc.change)
        } else {
            Vec::new()
        },
        omitted_attributes: 0,
        replace_paths: rc.change.replace_paths.clone(),
    }
}

#[cfg(test)]
#[path = "plan_summary_tests.rs"]
mod tests;
