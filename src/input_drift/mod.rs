//! Shared-input drift: plan changes that no file of the pull request explains, traced to
//! secret-backed inputs through the plan's configuration (and the checked-out HCL where the
//! JSON is silent). Pure: the caller supplies plan text, fingerprints, lock files, PR file
//! list and HCL file texts.
//!
//! Flow: [`fingerprint`] each injected input → [`input_statuses`] against the last apply and
//! the lock file → [`attribute_changes`] over the plan → [`drift_warnings`] for the comment,
//! [`DriftReport::drifted_inputs`] + [`input_drift_gate`] for `/apply`.
//!
//! "Explained by the diff" when the HCL index does not know where something is declared:
//! any `*.tf` file directly in the directory of the module that declares it counts (for the
//! root: `root_dir`); any `*.tfvars` in `root_dir` counts for a root variable unless tfvars
//! files of `root_dir` were indexed (then only those that set it); any file under a local
//! module's directory counts for changes reached through that module. Remote modules have no
//! directory in the repository: only their `module` block's file can explain them.

mod attribute;
mod closure;
mod config_path;
mod decision;
mod explain;
mod fingerprint;
mod hcl_blank;
mod hcl_index;
mod hcl_scan;
mod lock_changes;
mod lockfile;
mod paths;
mod plan_drift;
mod reference;
mod report;
mod status;
mod unseen_inputs;
mod warnings;

pub use attribute::{attribute_changes, input_sets, AttributionContext, PR_FILES_LIMIT};
pub use decision::{input_drift_gate, InputDriftGate, OnInputDrift};
pub use fingerprint::{fingerprint, Fingerprint, FingerprintError, HEX_LEN, SHORT_LEN};
pub use hcl_index::{HclIndex, LocalSource, ModuleSource, ResourceSource};
pub use hcl_scan::{scan_hcl, FileScan};
pub use lock_changes::changed_lock_inputs;
pub use lockfile::{parse_lockfile, render_lockfile, InputsLock, LockfileError, LOCKFILE_NAME};
pub use plan_drift::{plan_drift, DriftFacts, DriftNote, PlanDrift};
pub use report::{CauseTrace, ChangeAttribution, DriftReport, DriftWarningLine, Verdict};
pub use status::{input_statuses, InputStatus, SharedInputRef};
pub use unseen_inputs::inputs_reaching_no_resource;
pub use warnings::{drift_warnings, redact_drift_warnings, NO_FINGERPRINT};
