//! Per-resource outcomes: plan summaries (from plan JSON), apply outcomes and plan-run
//! outcomes (from the UI stream).

mod action;
mod apply_outcome;
mod attribute_diff;
mod plan_run;
mod plan_summary;

pub use action::Action;
pub use apply_outcome::{
    apply_outcome, ApplyOutcome, ApplyTracker, OutputSummary, PlannedChangeRef, ResourceOutcome,
    ResourceStatus,
};
pub use attribute_diff::{attribute_changes, AttributeChange};
pub use plan_run::{plan_run_outcome, PlanRunOutcome};
pub use plan_summary::{
    plan_summary, plan_summary_shallow, DriftedResource, OutputChange, PlanCounts, PlanSummary,
    PlannedResource, ATTRIBUTE_BUDGET,
};
