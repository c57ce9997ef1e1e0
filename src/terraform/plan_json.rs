//! Typed view of `terraform show -json PLANFILE` (format 0.1 … 1.x).
//!
//! Large value trees (`planned_values`, `prior_state`, `before`/`after`/… of every change,
//! configuration expressions) are kept as borrowed [`RawValue`] slices of the input text and
//! parsed on demand, so a 10,000-resource plan costs little more than its text in memory.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::attribute_path::PathStep;
use super::instance_key::InstanceKey;
use super::outcome::Action;
use super::plan_config::Configuration;
use super::text_decode::strip_bom;
use super::version::{clip_for_message, FormatVersion};

/// Highest plan JSON major version this parser understands.
const MAX_FORMAT_MAJOR: u32 = 1;

#[derive(Debug, thiserror::Error)]
pub enum PlanJsonError {
    /// Not JSON, or a field has an unexpected type. The message carries no file content.
    #[error("plan JSON is malformed (line {line}, column {column})")]
    Malformed {
        line: usize,
        column: usize,
        #[source]
        source: serde_json::Error,
    },
    #[error("plan JSON has no format_version")]
    MissingFormatVersion,
    #[error("unsupported plan JSON format version {version} (supported: 0.x and 1.x)")]
    UnsupportedFormatVersion { version: String },
}

/// The plan document. Borrows from the text it was parsed from.
#[derive(Debug, Deserialize)]
pub struct PlanJson<'a> {
    /// `format_version` as written, e.g. `"1.2"`.
    #[serde(default)]
    pub format_version: String,
    /// Parsed `format_version` (checked by [`parse_plan_json`]).
    #[serde(skip)]
    pub format: FormatVersion,
    /// Absent in some test fixtures; holds the tofu version for OpenTofu.
    #[serde(default)]
    pub terraform_version: Option<String>,
    /// Root variables; values are plaintext even for `sensitive = true` variables.
    #[serde(default)]
    pub variables: BTreeMap<String, PlanVariable>,
    #[serde(borrow, default)]
    pub planned_values: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub resource_changes: Vec<ResourceChange<'a>>,
    #[serde(borrow, default)]
    pub resource_drift: Vec<ResourceChange<'a>>,
    #[serde(borrow, default)]
    pub output_changes: BTreeMap<String, Change<'a>>,
    #[serde(borrow, default)]
    pub deferred_changes: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub prior_state: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub configuration: Option<Configuration<'a>>,
    #[serde(default)]
    pub relevant_attributes: Vec<RelevantAttribute>,
    #[serde(default)]
    pub checks: Option<Value>,
    #[serde(default)]
    pub timestamp: Option<String>,
    /// The plan stopped on an error (TF 1.6+).
    #[serde(default)]
    pub errored: bool,
    /// TF 1.8+; absent for older versions and OpenTofu.
    #[serde(default)]
    pub applyable: Option<bool>,
    /// TF 1.8+; absent for older versions and OpenTofu.
    #[serde(default)]
    pub complete: Option<bool>,
}

impl PlanJson<'_> {
    /// `prior_state` parsed into a [`Value`] (allocates the whole state tree).
    pub fn prior_state_value(&self) -> Option<Value> {
        raw_to_value(self.prior_state)
    }

    /// `planned_values` parsed into a [`Value`] (allocates the whole tree).
    pub fn planned_values_value(&self) -> Option<Value> {
        raw_to_value(self.planned_values)
    }
}

/// `variables.<name>`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct PlanVariable {
    #[serde(default)]
    pub value: Value,
}

/// `resource_changes[]` / `resource_drift[]`.
#[derive(Debug, Deserialize)]
pub struct ResourceChange<'a> {
    /// Absolute instance address, e.g. `module.files.local_file.foo["file1.txt"]`.
    pub address: String,
    #[serde(default)]
    pub previous_address: Option<String>,
    #[serde(default)]
    pub module_address: Option<String>,
    /// `managed` or `data`.
    #[serde(default)]
    pub mode: String,
    #[serde(rename = "type", default)]
    pub type_: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub index: Option<InstanceKey>,
    #[serde(default)]
    pub deposed: Option<String>,
    /// FQN since TF 0.13 (`registry.terraform.io/hashicorp/aws`); short name in 0.12.
    #[serde(default)]
    pub provider_name: String,
    #[serde(borrow)]
    pub change: Change<'a>,
    /// e.g. `replace_because_tainted`; unknown values are kept verbatim.
    #[serde(default)]
    pub action_reason: Option<String>,
}

/// A `change` object (resources and `output_changes`).
#[derive(Debug, Deserialize)]
pub struct Change<'a> {
    #[serde(default)]
    pub actions: Vec<String>,
    #[serde(borrow, default)]
    pub before: Option<&'a RawValue>,
    /// Omits unknown values; `None` when absent or `null` (delete).
    #[serde(borrow, default)]
    pub after: Option<&'a RawValue>,
    /// Same shape as `after`, `true` at unknown leaves (or a bare bool).
    #[serde(borrow, default)]
    pub after_unknown: Option<&'a RawValue>,
    /// `true` at sensitive leaves, or a bare bool.
    #[serde(borrow, default)]
    pub before_sensitive: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub after_sensitive: Option<&'a RawValue>,
    #[serde(default)]
    pub replace_paths: Vec<Vec<PathStep>>,
    #[serde(default)]
    pub importing: Option<PlanImporting>,
}

impl Change<'_> {
    /// The `actions` array as one [`Action`]; `None` for an unknown combination.
    pub fn action(&self) -> Option<Action> {
        Action::from_plan_actions(&self.actions)
    }

    pub fn before_value(&self) -> Option<Value> {
        raw_to_value(self.before)
    }

    pub fn after_value(&self) -> Option<Value> {
        raw_to_value(self.after)
    }

    pub fn after_unknown_value(&self) -> Option<Value> {
        raw_to_value(self.after_unknown)
    }

    pub fn before_sensitive_value(&self) -> Option<Value> {
        raw_to_value(self.before_sensitive)
    }

    pub fn after_sensitive_value(&self) -> Option<Value> {
        raw_to_value(self.after_sensitive)
    }
}

/// `change.importing` (TF 1.5+).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct PlanImporting {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub unknown: bool,
}

/// `relevant_attributes[]`: a prior-state attribute that feeds a change.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct RelevantAttribute {
    pub resource: String,
    #[serde(default)]
    pub attribute: Vec<PathStep>,
}

/// Parses a raw slice that was already validated by the document parse; `None` for
/// absent or `null`. (A re-parse can only fail beyond serde_json's nesting limit.)
pub(crate) fn raw_to_value(raw: Option<&RawValue>) -> Option<Value> {
    let value: Value = serde_json::from_str(raw?.get()).ok()?;
    (!value.is_null()).then_some(value)
}

#[derive(Deserialize)]
struct VersionProbe {
    #[serde(default)]
    format_version: Option<String>,
}

/// Parses `show -json` output. Accepts a leading BOM; rejects an unknown major version.
pub fn parse_plan_json(text: &str) -> Result<PlanJson<'_>, PlanJsonError> {
    let text = strip_bom(text);
    match serde_json::from_str::<PlanJson<'_>>(text) {
        Ok(mut plan) => {
            plan.format = check_format_version(Some(plan.format_version.as_str()))?;
            Ok(plan)
        }
        Err(source) => {
            // A future major version may fail on shape before we see its version: report
            // the version in that case, it is the more useful message.
            if let Ok(probe) = serde_json::from_str::<VersionProbe>(text) {
                check_format_version(probe.format_version.as_deref())?;
            }
            Err(PlanJsonError::Malformed {
                line: source.line(),
                column: source.column(),
                source,
            })
        }
    }
}

fn check_format_version(text: Option<&str>) -> Result<FormatVersion, PlanJsonError> {
    let text = match text {
        None | Some("") => return Err(PlanJsonError::MissingFormatVersion),
        Some(text) => text,
    };
    FormatVersion::parse(text)
        .filter(|v| v.major <= MAX_FORMAT_MAJOR)
        .ok_or_else(|| PlanJsonError::UnsupportedFormatVersion {
            version: clip_for_message(text),
        })
}

#[cfg(test)]
#[path = "plan_json_tests.rs"]
mod tests;
