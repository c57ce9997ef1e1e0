//! The drift warning lines of the plan comment.

use super::lockfile::LOCKFILE_NAME;
use super::report::{DriftReport, Verdict};
use super::status::InputStatus;
use crate::render::DriftWarning;

/// Shown instead of a fingerprint when none was recorded at the last apply.
pub const NO_FINGERPRINT: &str = "none";

/// One line per (changed resource, changed shared input): drift first (`explained_by`
/// `None`), then changes the PR's lock file update explains (`explained_by` = the lock file).
pub fn drift_warnings(report: &DriftReport, statuses: &[InputStatus]) -> Vec<DriftWarning> {
    let mut drift = Vec::new();
    let mut explained = Vec::new();
    for change in &report.changes {
        let (inputs, target, explained_by) = match &change.verdict {
            Verdict::SharedInputDrift { inputs } => (inputs, &mut drift, None),
            Verdict::ExplainedByLockfile { inputs } => {
                (inputs, &mut explained, Some(LOCKFILE_NAME.to_string()))
            }
            _ => continue,
        };
        for input in inputs {
            let status = statuses.iter().find(|s| &s.name == input);
            let attribute_paths = change
                .changed_input_paths
                .get(input)
                .cloned()
                .unwrap_or_default();
            target.push(DriftWarning {
                address: change.address.clone(),
                attribute_paths,
                input_name: input.clone(),
                fingerprint_before: status
                    .and_then(|s| s.last_applied.as_ref().or(s.committed_lock.as_ref()))
                    .map_or(NO_FINGERPRINT.to_string(), |f| f.short().to_string()),
                fingerprint_after: status.map_or(NO_FINGERPRINT.to_string(), |s| {
                    s.current.short().to_string()
                }),
                explained_by: explained_by.clone(),
            });
        }
    }
    drift.extend(explained);
    drift
}
