//! Terraform's machine-readable output: the `-json` UI stream, the `show -json` plan
//! document, and per-resource outcomes derived from them. Pure: text in, data out.

pub mod apply_context;
pub mod attribute_path;
pub mod diagnostic;
pub mod instance_key;
pub mod outcome;
pub mod plan_config;
pub mod plan_expression;
pub mod plan_json;
pub mod plan_references;
pub mod resource_address;
pub mod text_decode;
pub mod ui_events;
pub mod ui_stream;
pub mod version;

#[cfg(test)]
mod fixture_tests;
#[cfg(test)]
mod test_fixtures;

pub use apply_context::{ApplyContext, FreshBefore, FreshResource};
pub use attribute_path::{display_path, PathStep};
pub use diagnostic::{Diagnostic, Severity, Snippet, SourcePos, SourceRange};
pub use instance_key::InstanceKey;
pub use outcome::{
    apply_outcome, attribute_changes, plan_run_outcome, plan_summary, plan_summary_shallow, Action,
    ApplyOutcome, ApplyTracker, AttributeChange, DriftedResource, OutputChange, OutputSummary,
    PlanCounts, PlanRunOutcome, PlanSummary, PlannedChangeRef, PlannedResource, ResourceOutcome,
    ResourceStatus, ATTRIBUTE_BUDGET,
};
pub use plan_json::{
    parse_plan_json, Change, PlanJson, PlanJsonError, PlanVariable, ResourceChange,
};
pub use plan_references::{plan_references, PlanReferences};
pub use resource_address::{split_instance_address, InstanceAddress};
pub use text_decode::{decode_text, TextDecodeError};
pub use ui_stream::{parse_ui_line, parse_ui_stream, UiError, UiMessage, UiMeta, UiStream};
pub use version::{FormatVersion, Program, VersionInfo};
