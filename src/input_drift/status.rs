//! Per-input status at plan time: has the live value changed since the last successful
//! apply, does it match the committed lock file, does this pull request bump the lock file.

use std::collections::BTreeMap;

use serde::Serialize;

use super::fingerprint::Fingerprint;
use super::lockfile::InputsLock;

/// A shared input as declared in policy (the source is the lead's concern).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SharedInputRef {
    /// Policy name, e.g. `ADMIN_CIDRS` (used in the lock file and in `--accept-input`).
    pub name: String,
    /// Root-module variable it is injected as (`TF_VAR_<variable>`), e.g. `admin_cidrs`.
    pub variable: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputStatus {
    pub name: String,
    pub variable: String,
    /// Fingerprint of the value injected into this plan.
    pub current: Fingerprint,
    /// Fingerprint recorded at the last successful apply of this root (`None`: never recorded).
    pub last_applied: Option<Fingerprint>,
    /// Fingerprint in `tfgate.inputs.lock` at the PR head (`None`: no lock file or no entry).
    pub committed_lock: Option<Fingerprint>,
    /// `last_applied` is known and differs from `current`.
    pub changed_since_apply: bool,
    /// `None` when the lock file has no entry for this input.
    pub lock_matches: Option<bool>,
    /// The PR head's lock entry equals `current` and differs from (or is absent at) the base.
    pub lock_updated_in_pr: bool,
}

impl InputStatus {
    /// The input counts as changed outside any PR: it differs from the last apply, or, with
    /// no apply on record, from a lock entry that this PR does not bump.
    pub fn is_changed(&self) -> bool {
        self.changed_since_apply
            || (self.last_applied.is_none()
                && self.lock_matches == Some(false)
                && !self.lock_updated_in_pr)
    }
}

/// One status per shared input that has a live fingerprint, in the order of `inputs`.
/// Inputs without a live fingerprint (not injected) are left out: the caller reports them.
pub fn input_statuses(
    inputs: &[SharedInputRef],
    live: &BTreeMap<String, Fingerprint>,
    last_applied: &BTreeMap<String, Fingerprint>,
    lock_at_head: Option<&InputsLock>,
    lock_at_base: Option<&InputsLock>,
) -> Vec<InputStatus> {
    inputs
        .iter()
        .filter_map(|input| {
            let current = live.get(&input.name)?.clone();
            let last = last_applied.get(&input.name).cloned();
            let head = lock_at_head.and_then(|l| l.get(&input.name)).cloned();
            let base = lock_at_base.and_then(|l| l.get(&input.name));
            let lock_updated_in_pr = match &head {
                Some(head) => *head == current && base != Some(head),
                None => false,
            };
            Some(InputStatus {
                name: input.name.clone(),
                variable: input.variable.clone(),
                changed_since_apply: last.as_ref().is_some_and(|l| *l != current),
                lock_matches: head.as_ref().map(|h| *h == current),
                current,
                last_applied: last,
                committed_lock: head,
                lock_updated_in_pr,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::fingerprint::fingerprint;
    use super::*;

    fn fp(value: &str) -> Fingerprint {
        fingerprint(b"k", "ADMIN_CIDRS", value)
    }

    fn lock(value: Option<&str>) -> InputsLock {
        InputsLock {
            entries: value
                .map(|v| ("ADMIN_CIDRS".to_string(), fp(v)))
                .into_iter()
                .collect(),
        }
    }

    fn inputs() -> Vec<SharedInputRef> {
        vec![
            SharedInputRef {
                name: "ADMIN_CIDRS".into(),
                variable: "admin_cidrs".into(),
            },
            SharedInputRef {
                name: "NOT_INJECTED".into(),
                variable: "x".into(),
            },
        ]
    }

    /// (live, last applied, lock at head, lock at base) → (changed_since_apply, lock_matches,
    /// lock_updated_in_pr, is_changed)
    #[allow(clippy::type_complexity)]
    const CASES: &[(
        &str,
        Option<&str>,
        Option<Option<&str>>,
        Option<Option<&str>>,
        (bool, Option<bool>, bool, bool),
    )] = &[
        ("new", Some("new"), None, None, (false, None, false, false)),
        ("new", Some("old"), None, None, (true, None, false, true)),
        ("new", None, None, None, (false, None, false, false)),
        // lock file present, stale, not touched by the PR
        (
            "new",
            Some("old"),
            Some(Some("old")),
            Some(Some("old")),
            (true, Some(false), false, true),
        ),
        // the PR bumps the lock file to the live value
        (
            "new",
            Some("old"),
            Some(Some("new")),
            Some(Some("old")),
            (true, Some(true), true, true),
        ),
        // the PR adds the lock file
        (
            "new",
            Some("old"),
            Some(Some("new")),
            None,
            (true, Some(true), true, true),
        ),
        // lock already current on base: nothing bumped by this PR
        (
            "new",
            Some("old"),
            Some(Some("new")),
            Some(Some("new")),
            (true, Some(true), false, true),
        ),
        // lock file without this entry
        (
            "new",
            Some("new"),
            Some(None),
            Some(None),
            (false, None, false, false),
        ),
        // no apply on record, lock disagrees → changed
        (
            "new",
            None,
            Some(Some("old")),
            Some(Some("old")),
            (false, Some(false), false, true),
        ),
        // the PR bumps the lock to a value that is not the live one
        (
            "new",
            Some("old"),
            Some(Some("other")),
            Some(Some("old")),
            (true, Some(false), false, true),
        ),
    ];

    #[test]
    fn status_table() {
        for (i, (live, last, head, base, want)) in CASES.iter().enumerate() {
            let live_map = [("ADMIN_CIDRS".to_string(), fp(live))]
                .into_iter()
                .collect();
            let last_map = last
                .map(|l| ("ADMIN_CIDRS".to_string(), fp(l)))
                .into_iter()
                .collect();
            let head = head.map(lock);
            let base = base.map(lock);
            let statuses = input_statuses(
                &inputs(),
                &live_map,
                &last_map,
                head.as_ref(),
                base.as_ref(),
            );
            assert_eq!(statuses.len(), 1, "case {i}: only injected inputs");
            let s = &statuses[0];
            assert_eq!(s.current, fp(live));
            assert_eq!(s.variable, "admin_cidrs");
            let got = (
                s.changed_since_apply,
                s.lock_matches,
                s.lock_updated_in_pr,
                s.is_changed(),
            );
            assert_eq!(got, *want, "case {i}");
        }
    }
}
