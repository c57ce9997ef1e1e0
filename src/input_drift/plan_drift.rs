//! Shared-input drift of one planned root, from facts the worker read: live fingerprints vs
//! the last apply and the committed `tfgate.inputs.lock`, then attribution of the plan's
//! changes. Pure.

use std::collections::BTreeMap;

use crate::model::view::{DriftWarning, RunNote};
use crate::terraform::PlanJson;

use super::{
    attribute_changes, drift_warnings, input_sets, input_statuses, inputs_reaching_no_resource,
    parse_lockfile, AttributionContext, Fingerprint, HclIndex, SharedInputRef, LOCKFILE_NAME,
};

/// What the worker read for one root's drift analysis.
#[derive(Debug, Clone, Copy)]
pub struct DriftFacts<'a> {
    pub shared_inputs: &'a [SharedInputRef],
    /// Fingerprints of the values the plan ran with.
    pub live: &'a BTreeMap<String, Fingerprint>,
    /// Inputs whose server-side source could not be read.
    pub missing: &'a [String],
    /// Fingerprints recorded at the root's last successful apply.
    pub last_applied: &'a BTreeMap<String, Fingerprint>,
    /// The checkout's `tfgate.inputs.lock`, if any.
    pub lock_text: Option<&'a str>,
    pub pr_files: &'a [String],
    pub root_dir: &'a str,
    /// The checkout's `.tf` / `.tfvars` files (repo-relative path, text).
    pub hcl_files: &'a [(String, String)],
}

/// A finding the PR is told of beside the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DriftNote {
    /// The input's source could not be read; the plan ran without it.
    InputUnreadable { input: String },
    /// `tfgate.inputs.lock` does not parse; it was ignored.
    LockFileInvalid { line: u64 },
    /// The committed lock entry and the live value differ (short fingerprints).
    LockFileDiffers {
        input: String,
        committed: String,
        live: String,
    },
    /// Changed since the last apply, yet no resource change is attributed to it: it feeds only
    /// `outputs` (or nothing in the plan), and the next apply would take it unseen.
    InputReachesNoResource { input: String, outputs: Vec<String> },
}

impl DriftNote {
    /// The note as the plan comment shows it, for `project`.
    pub fn into_run_note(self, project: &str) -> RunNote {
        let project = project.to_string();
        match self {
            DriftNote::InputUnreadable { input } => RunNote::InputUnreadable { project, input },
            DriftNote::LockFileInvalid { line } => RunNote::LockFileInvalid { project, line },
            DriftNote::LockFileDiffers {
                input,
                committed,
                live,
            } => RunNote::LockFileDiffers {
                project,
                input,
                committed,
                live,
            },
            DriftNote::InputReachesNoResource { input, outputs } => {
                RunNote::InputReachesNoResource {
                    project,
                    input,
                    outputs,
                }
            }
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct PlanDrift {
    pub warnings: Vec<DriftWarning>,
    /// Inputs the plan's changes are attributed to (the apply gate's subject).
    pub drifted_inputs: Vec<String>,
    pub notes: Vec<DriftNote>,
}

pub fn plan_drift(plan: &PlanJson<'_>, facts: &DriftFacts<'_>) -> PlanDrift {
    let mut notes: Vec<DriftNote> = facts
        .missing
        .iter()
        .map(|n| DriftNote::InputUnreadable { input: n.clone() })
        .collect();
    let lock_head = match facts.lock_text.map(parse_lockfile) {
        Some(Ok(lock)) => Some(lock),
        Some(Err(e)) => {
            notes.push(DriftNote::LockFileInvalid {
                line: e.line as u64,
            });
            None
        }
        None => None,
    };
    // When the PR changes the lock file, its base version differs; otherwise it is the same.
    let lock_in_diff = facts.pr_files.iter().any(|f| f == LOCKFILE_NAME);
    let lock_base = if lock_in_diff {
        None
    } else {
        lock_head.as_ref()
    };
    let statuses = input_statuses(
        facts.shared_inputs,
        facts.live,
        facts.last_applied,
        lock_head.as_ref(),
        lock_base,
    );
    notes.extend(
        statuses
            .iter()
            .filter(|s| s.lock_matches == Some(false))
            .map(|s| DriftNote::LockFileDiffers {
                input: s.name.clone(),
                committed: s
                    .committed_lock
                    .as_ref()
                    .map(|f| f.short().to_string())
                    .unwrap_or_default(),
                live: s.current.short().to_string(),
            }),
    );
    let (changed, bumped) = input_sets(&statuses);
    let hcl = HclIndex::from_files(
        facts
            .hcl_files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str())),
    );
    let context = AttributionContext {
        shared_inputs: facts.shared_inputs,
        changed_inputs: &changed,
        lock_bumped_inputs: &bumped,
        pr_files: facts.pr_files,
        root_dir: facts.root_dir,
        hcl: &hcl,
    };
    let report = attribute_changes(plan, &context);
    let drifted_inputs = report.drifted_inputs();
    notes.extend(
        inputs_reaching_no_resource(plan, &statuses, &report)
            .into_iter()
            .map(|(input, outputs)| DriftNote::InputReachesNoResource { input, outputs }),
    );
    PlanDrift {
        warnings: drift_warnings(&report, &statuses),
        drifted_inputs,
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input_drift::fingerprint;
    use crate::terraform::parse_plan_json;

    const PLAN: &str = r#"{"format_version":"1.0","terraform_version":"1.0.3","resource_changes":[],"configuration":{"root_module":{}}}"#;

    fn fp(value: &str) -> Fingerprint {
        fingerprint(b"k", "admin_cidrs", value)
    }

    fn analyse(lock_text: Option<&str>, pr_files: &[String], missing: &[String]) -> PlanDrift {
        let refs = vec![SharedInputRef {
            name: "admin_cidrs".into(),
            variable: "admin_cidrs".into(),
        }];
        let live = BTreeMap::from([("admin_cidrs".to_string(), fp("new"))]);
        let last = BTreeMap::from([("admin_cidrs".to_string(), fp("old"))]);
        let facts = DriftFacts {
            shared_inputs: &refs,
            live: &live,
            missing,
            last_applied: &last,
            lock_text,
            pr_files,
            root_dir: "infra/eks",
            hcl_files: &[],
        };
        plan_drift(&parse_plan_json(PLAN).unwrap(), &facts)
    }

    #[test]
    fn unreadable_inputs_are_noted_by_name() {
        let d = analyse(None, &[], &["ssh_key".to_string()]);
        assert_eq!(
            d.notes,
            vec![
                DriftNote::InputUnreadable {
                    input: "ssh_key".into()
                },
                // The plan changes no resource: the changed input reaches none.
                DriftNote::InputReachesNoResource {
                    input: "admin_cidrs".into(),
                    outputs: Vec::new()
                }
            ]
        );
        assert!(d.warnings.is_empty());
    }

    #[test]
    fn an_invalid_lock_file_is_noted_and_ignored() {
        let d = analyse(Some("not a lock file {{{"), &[], &[]);
        // (The plan changes no resource, so the changed input is named as reaching none.)
        assert!(
            matches!(
                d.notes.as_slice(),
                [
                    DriftNote::LockFileInvalid { .. },
                    DriftNote::InputReachesNoResource { .. }
                ]
            ),
            "{:?}",
            d.notes
        );
    }

    #[test]
    fn a_lock_entry_that_differs_from_the_live_value_is_noted() {
        let lock = crate::input_drift::render_lockfile(&BTreeMap::from([(
            "admin_cidrs".to_string(),
            fp("old"),
        )]));
        let d = analyse(Some(&lock), &[], &[]);
        match d.notes.as_slice() {
            [DriftNote::LockFileDiffers {
                input,
                committed,
                live,
            }, DriftNote::InputReachesNoResource { .. }] => {
                assert_eq!(input, "admin_cidrs");
                assert_eq!(committed, fp("old").short());
                assert_eq!(live, fp("new").short());
            }
            other => panic!("{other:?}"),
        }
    }
}
