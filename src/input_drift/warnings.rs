//! The drift warning lines of the plan comment.

use super::lockfile::LOCKFILE_NAME;
use super::report::{DriftReport, Verdict};
use super::status::InputStatus;
use crate::model::view::DriftWarning;
use crate::redact::{Placeholders, Redactor};

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
        // The PR edits the resource too: said next to the drift, which still needs a decision.
        let also_edited_in = explained_by
            .is_none()
            .then(|| change.explained_by_diff.clone())
            .flatten();

        for input in inputs {
            let status = statuses.iter().find(|s| &s.name == input);
            let attribute_paths = change
                .changed_input_paths
                .get(input)
                .cloned()
                .unwrap_or_default();
            let also_sets = match also_edited_in {
                Some(_) => paths_both_set(&change.diff_paths, &attribute_paths),
                None => Vec::new(),
            };
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
                also_edited_in: also_edited_in.clone(),
                also_sets,
            });
        }
    }
    drift.extend(explained);
    drift
}

/// What the PR's file sets of what the input changes; when they share nothing, all the file
/// sets.
fn paths_both_set(diff_paths: &[String], input_paths: &[String]) -> Vec<String> {
    let both: Vec<String> = diff_paths
        .iter()
        .filter(|p| input_paths.contains(p))
        .cloned()
        .collect();
    if both.is_empty() {
        diff_paths.to_vec()
    } else {
        both
    }
}

/// The warnings as a PR may see them: the address through [`Redactor::redact_address`] and the
/// attribute paths, input name and PR file through [`Redactor::redact`], with the plan table's
/// placeholders, so a shared input's value used as a `for_each` key shows as the table's
/// placeholder (`fake_thing.rule["<cidr-1>"]`). Fingerprints are short digests, not values.
pub fn redact_drift_warnings(
    warnings: Vec<DriftWarning>,
    redactor: &Redactor,
    ph: &mut Placeholders,
) -> Vec<DriftWarning> {
    warnings
        .into_iter()
        .map(|w| DriftWarning {
            address: redactor.redact_address(&w.address, ph),
            attribute_paths: w
                .attribute_paths
                .iter()
                .map(|p| redactor.redact(p, ph))
                .collect(),
            input_name: redactor.redact(&w.input_name, ph),
            also_edited_in: w.also_edited_in.as_ref().map(|f| redactor.redact(f, ph)),
            also_sets: w.also_sets.iter().map(|p| redactor.redact(p, ph)).collect(),
            ..w
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::RedactionConfig;

    #[test]
    fn for_each_keys_get_the_placeholders_of_the_plan_table() {
        let redactor = Redactor::new(&RedactionConfig {
            secret_values: vec!["office-vpn-range".into()],
            ..Default::default()
        })
        .unwrap();
        let mut ph = Placeholders::new();
        let table = redactor.redact_address(r#"fake_thing.rule["203.0.113.9/32"]"#, &mut ph);
        let warning = DriftWarning {
            address: r#"fake_thing.rule["203.0.113.9/32"]"#.into(),
            attribute_paths: vec!["for_each".into()],
            input_name: "ADMIN_CIDRS".into(),
            fingerprint_before: "0a1b2c3d".into(),
            fingerprint_after: "4e5f6a7b".into(),
            explained_by: None,
            also_edited_in: None,
            also_sets: Vec::new(),
        };
        let keyed = DriftWarning {
            address: r#"fake_thing.rule["office-vpn-range"]"#.into(),
            ..warning.clone()
        };
        let shown = redact_drift_warnings(vec![warning.clone(), keyed], &redactor, &mut ph);
        assert_eq!(table, r#"fake_thing.rule["<cidr-1>"]"#);
        assert_eq!(shown[0].address, table);
        assert_eq!(shown[1].address, r#"fake_thing.rule["<secret-1>"]"#);
        assert_eq!(
            (
                &shown[0].attribute_paths,
                &shown[0].input_name,
                &shown[0].fingerprint_before
            ),
            (
                &warning.attribute_paths,
                &warning.input_name,
                &warning.fingerprint_before
            )
        );
    }
}
