//! What a run stores about itself: its status, and the typed outcome a plan keeps for the apply
//! that follows (`PlanRecord`). Pure; the one place these records are encoded and decoded.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::view::{ApplyCounts, PlanCounts};
use crate::terraform::{Action, PlanReferences, PlannedChangeRef};

/// A run's status, stored as text in `runs.status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Running,
    Planned,
    PlanFailed,
    Applied,
    ApplyFailed,
    /// The worker died while the run was running.
    Interrupted,
}

impl RunStatus {
    pub const ALL: [RunStatus; 6] = [
        RunStatus::Running,
        RunStatus::Planned,
        RunStatus::PlanFailed,
        RunStatus::Applied,
        RunStatus::ApplyFailed,
        RunStatus::Interrupted,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Planned => "planned",
            RunStatus::PlanFailed => "plan_failed",
            RunStatus::Applied => "applied",
            RunStatus::ApplyFailed => "apply_failed",
            RunStatus::Interrupted => "interrupted",
        }
    }

    /// `None` for text this version does not know.
    pub fn parse(text: &str) -> Option<RunStatus> {
        RunStatus::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

/// The version `PlanRecord::encode` writes. Records without one are version 0 (written before
/// records were typed) and carry no head SHA or plan-file digest.
pub const PLAN_RECORD_VERSION: u32 = 1;

/// One planned change, as the apply needs it (to list what it never reached).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannedChange {
    pub address: String,
    pub action: Action,
}

/// What a plan run stores for the apply that follows it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PlanRecord {
    #[serde(default)]
    pub version: u32,
    #[serde(default)]
    pub counts: PlanCounts,
    /// Every resource change the plan holds.
    #[serde(default)]
    pub planned: Vec<PlannedChange>,
    /// Shared inputs whose change this plan's changes are attributed to.
    #[serde(default)]
    pub drifted_inputs: Vec<String>,
    /// Fingerprints (hex) of the shared inputs the plan ran with; recorded when applied.
    #[serde(default)]
    pub input_fingerprints: BTreeMap<String, String>,
    /// The commit planned.
    #[serde(default)]
    pub head_sha: String,
    /// SHA-256 (hex) of the plan file, checked before it is applied.
    #[serde(default)]
    pub plan_file_sha256: Option<String>,
    /// What each planned resource refers to, and names known before the apply: tells a failure
    /// right after a dependency was created (possibly propagation delay). Addresses and plain
    /// names only.
    #[serde(default, skip_serializing_if = "PlanReferences::is_empty")]
    pub references: PlanReferences,
    /// What each plan policy set found on the plan (messages already redacted); a set whose
    /// failures block the apply is checked against the approvals of this plan run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub policy: Vec<crate::model::SetOutcome>,
}

impl PlanRecord {
    pub fn encode(&self) -> String {
        let mut record = self.clone();
        record.version = PLAN_RECORD_VERSION;
        serde_json::to_string(&record).expect("a plan record serialises")
    }

    /// A record that does not decode is treated as absent (the apply then asks for a new plan).
    pub fn decode(text: &str) -> Option<PlanRecord> {
        serde_json::from_str(text).ok()
    }

    pub fn planned_refs(&self) -> Vec<PlannedChangeRef> {
        self.planned
            .iter()
            .map(|c| PlannedChangeRef {
                address: c.address.clone(),
                action: c.action,
            })
            .collect()
    }
}

/// What an apply run stores: its counts, and while it runs the resources completed so far.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ApplyRecord {
    #[serde(default)]
    pub counts: ApplyCounts,
    /// Resource addresses completed, written as the apply streams (for crash reports).
    #[serde(default)]
    pub completed: Vec<String>,
    /// Terraform's apply step ran (not only `init`): a failed apply may have changed the state,
    /// so its plan is spent.
    #[serde(default)]
    pub apply_ran: bool,
}

impl ApplyRecord {
    pub fn encode(&self) -> String {
        serde_json::to_string(self).expect("an apply record serialises")
    }

    /// Records written before they were typed were a bare list of completed addresses.
    pub fn decode(text: &str) -> ApplyRecord {
        serde_json::from_str(text)
            .or_else(|_| {
                serde_json::from_str::<Vec<String>>(text).map(|completed| ApplyRecord {
                    completed,
                    ..Default::default()
                })
            })
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_text_round_trips() {
        for s in RunStatus::ALL {
            assert_eq!(RunStatus::parse(s.as_str()), Some(s));
        }
        assert_eq!(RunStatus::parse("queued"), None);
    }

    #[test]
    fn plan_record_round_trips_with_its_version() {
        let record = PlanRecord {
            planned: vec![PlannedChange {
                address: "fake_thing.a".into(),
                action: Action::CreateThenForget,
            }],
            drifted_inputs: vec!["admin_cidrs".into()],
            head_sha: "abc".into(),
            plan_file_sha256: Some("00".into()),
            ..Default::default()
        };
        let text = record.encode();
        assert!(text.contains("\"version\":1"), "{text}");
        let back = PlanRecord::decode(&text).unwrap();
        assert_eq!(back.version, PLAN_RECORD_VERSION);
        assert_eq!(back.planned, record.planned);
        assert_eq!(back.head_sha, "abc");
    }

    #[test]
    fn version_0_records_still_decode() {
        let old = r#"{"status":"planned","counts":{"add":1,"change":0,"destroy":0,"replace":0,"read":0},
            "planned":[{"address":"a.b","action":"no_op"},{"address":"a.c","action":"create"}],
            "drifted_inputs":["x"],"input_fingerprints":{"x":"ab12"}}"#;
        let r = PlanRecord::decode(old).unwrap();
        assert_eq!(r.version, 0);
        assert_eq!(r.counts.add, 1);
        assert_eq!(r.planned[0].action, Action::NoOp);
        assert_eq!(r.drifted_inputs, vec!["x"]);
        assert_eq!(r.input_fingerprints["x"], "ab12");
        assert_eq!(r.plan_file_sha256, None);
    }

    #[test]
    fn garbage_is_no_record() {
        assert_eq!(PlanRecord::decode("not json"), None);
    }

    #[test]
    fn apply_records_old_and_new() {
        let old = ApplyRecord::decode(r#"["a.b","a.c"]"#);
        assert_eq!(old.completed, vec!["a.b", "a.c"]);
        let new = ApplyRecord {
            completed: vec!["x".into()],
            ..Default::default()
        };
        assert_eq!(ApplyRecord::decode(&new.encode()), new);
        assert_eq!(ApplyRecord::decode("{bad"), ApplyRecord::default());
    }
}
