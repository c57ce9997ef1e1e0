//! What one root of an `/apply` needs once `apply_step` chose its plan, before Terraform runs,
//! in order: its lock, the input-drift apply gate, its stored plan file, its Terraform, a run
//! of its own, its checkout and credentials. The first one missing stops the run, and every
//! later root is skipped with the reason decided here. Pure; the worker tries each in turn.

use sha2::{Digest, Sha256};

use super::apply_step::SkipReason;

/// What an apply needs, in the order it is tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readiness {
    /// Another PR holds the root's lock.
    Lock,
    /// The input-drift apply gate refused the plan's drifted inputs.
    InputDriftGate,
    /// The stored plan file is gone, unreadable or not the one planned.
    PlanFile,
    /// The root's Terraform version could not be had.
    Terraform,
    /// Another plan or apply of the root is running.
    Run,
    /// The checkout or the credentials could not be prepared.
    Prepare,
}

/// Why the run stops when `missing` is what the root lacks.
pub fn not_ready(missing: Readiness, project: &str) -> SkipReason {
    let project = project.to_string();
    match missing {
        Readiness::Lock => SkipReason::Locked { project },
        Readiness::InputDriftGate => SkipReason::AwaitingInputDecision { project },
        Readiness::PlanFile => SkipReason::NoReadablePlan { project },
        Readiness::Terraform => SkipReason::NoTerraform { project },
        Readiness::Run => SkipReason::Busy { project },
        Readiness::Prepare => SkipReason::CouldNotStart { project },
    }
}

/// The stored plan file, as the apply found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoredPlanFile {
    /// None stored (never, or removed after the retention period).
    Missing,
    /// Stored, but it does not open with the key (or is not this run's).
    Unopenable,
    /// Opened; whether its digest is the one the plan recorded (a record without one matches).
    Opened { digest_matches: bool },
}

/// Whether the plan file can be applied, and if not, what the PR is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanFileVerdict {
    Apply,
    /// Removed after `retention_days`: plan again.
    Expired {
        retention_days: u32,
    },
    /// Anything else: it cannot be trusted or read.
    Unreadable,
}

pub fn plan_file_verdict(file: StoredPlanFile, retention_days: Option<u32>) -> PlanFileVerdict {
    match (file, retention_days) {
        (
            StoredPlanFile::Opened {
                digest_matches: true,
            },
            _,
        ) => PlanFileVerdict::Apply,
        (StoredPlanFile::Missing, Some(retention_days)) => {
            PlanFileVerdict::Expired { retention_days }
        }
        _ => PlanFileVerdict::Unreadable,
    }
}

/// Whether `file` is the plan file whose SHA-256 (hex) the plan recorded; a record from
/// before digests were kept (`None`) matches any file.
pub fn digest_matches(file: &[u8], recorded: Option<&str>) -> bool {
    recorded.map_or(true, |want| hex::encode(Sha256::digest(file)) == want)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_missing_need_has_its_skip_reason() {
        let p = || "app".to_string();
        let table = [
            (Readiness::Lock, SkipReason::Locked { project: p() }),
            (
                Readiness::InputDriftGate,
                SkipReason::AwaitingInputDecision { project: p() },
            ),
            (
                Readiness::PlanFile,
                SkipReason::NoReadablePlan { project: p() },
            ),
            (
                Readiness::Terraform,
                SkipReason::NoTerraform { project: p() },
            ),
            (Readiness::Run, SkipReason::Busy { project: p() }),
            (
                Readiness::Prepare,
                SkipReason::CouldNotStart { project: p() },
            ),
        ];
        for (missing, want) in table {
            assert_eq!(not_ready(missing, "app"), want, "{missing:?}");
        }
    }

    #[test]
    fn a_plan_file_is_applied_only_when_it_opens_with_its_digest() {
        use PlanFileVerdict::*;
        use StoredPlanFile::*;
        let ok = Opened {
            digest_matches: true,
        };
        let other = Opened {
            digest_matches: false,
        };
        let table = [
            (ok, None, Apply),
            (ok, Some(7), Apply),
            (other, None, Unreadable),
            (other, Some(7), Unreadable),
            (Unopenable, None, Unreadable),
            (Unopenable, Some(7), Unreadable),
            (Missing, None, Unreadable),
            (Missing, Some(7), Expired { retention_days: 7 }),
        ];
        for (file, retention, want) in table {
            assert_eq!(
                plan_file_verdict(file, retention),
                want,
                "{file:?} {retention:?}"
            );
        }
    }

    #[test]
    fn the_digest_is_the_recorded_one_or_none_was_recorded() {
        let file = b"plan";
        let sha = hex::encode(Sha256::digest(file));
        assert!(digest_matches(file, Some(&sha)));
        assert!(digest_matches(file, None));
        assert!(!digest_matches(file, Some("00")));
        assert!(!digest_matches(b"other", Some(&sha)));
    }
}
