//! What `/apply` does when shared inputs changed outside the pull request.

use serde::Serialize;

use crate::model::InputDriftRefusal;

/// The policy's `on_input_drift` (one type, defined by the policy schema).
pub use crate::policy::OnInputDrift;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum InputDriftGate {
    Allow,
    /// Apply, and write these inputs to the audit log.
    AllowWithAudit {
        inputs: Vec<String>,
    },
    /// Do not apply; reply why (`input_drift_refused.md.j2` words it).
    Refuse {
        refusal: InputDriftRefusal,
    },
}

/// `drifted_inputs`: names of inputs with a `SharedInputDrift` verdict in this plan.
/// `accepted`: names given with `--accept-input` (only honoured in `Confirm` mode).
pub fn input_drift_gate(
    policy_mode: OnInputDrift,
    drifted_inputs: &[String],
    accepted: &[String],
) -> InputDriftGate {
    let mut drifted: Vec<String> = drifted_inputs.to_vec();
    drifted.sort();
    drifted.dedup();
    if drifted.is_empty() {
        return InputDriftGate::Allow;
    }
    match policy_mode {
        OnInputDrift::Warn => InputDriftGate::AllowWithAudit { inputs: drifted },
        OnInputDrift::Confirm => {
            if drifted.iter().all(|d| accepted.contains(d)) {
                InputDriftGate::AllowWithAudit { inputs: drifted }
            } else {
                // Every drifted input is named: acceptance is per `/apply` comment.
                InputDriftGate::Refuse {
                    refusal: InputDriftRefusal::Confirm { inputs: drifted },
                }
            }
        }
        OnInputDrift::Block => InputDriftGate::Refuse {
            refusal: InputDriftRefusal::Block { inputs: drifted },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(list: &[&str]) -> Vec<String> {
        list.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn gate_table() {
        use OnInputDrift::*;
        let cases: Vec<(OnInputDrift, &[&str], &[&str], &str)> = vec![
            (Block, &[], &[], "allow"),
            (Confirm, &[], &["X"], "allow"),
            (Warn, &[], &[], "allow"),
            (Warn, &["B", "A", "A"], &[], "audit:A,B"),
            (Confirm, &["A"], &["A"], "audit:A"),
            (Confirm, &["A", "B"], &["B", "A", "C"], "audit:A,B"),
            (Confirm, &["A", "B"], &["A"], "refuse"),
            (Confirm, &["A"], &[], "refuse"),
            (Confirm, &["A"], &["a"], "refuse"),
            (Block, &["A"], &["A"], "refuse"),
            (Block, &["A"], &[], "refuse"),
        ];
        for (mode, drifted, accepted, want) in cases {
            let got = match input_drift_gate(mode, &s(drifted), &s(accepted)) {
                InputDriftGate::Allow => "allow".to_string(),
                InputDriftGate::AllowWithAudit { inputs } => format!("audit:{}", inputs.join(",")),
                InputDriftGate::Refuse { .. } => "refuse".to_string(),
            };
            assert_eq!(got, want, "{mode:?} {drifted:?} {accepted:?}");
        }
    }

    #[test]
    fn refusals_name_every_drifted_input_once_and_sorted() {
        let refusal = |mode, drifted: &[&str], accepted: &[&str]| match input_drift_gate(
            mode,
            &s(drifted),
            &s(accepted),
        ) {
            InputDriftGate::Refuse { refusal } => refusal,
            other => panic!("{mode:?} must refuse, got {other:?}"),
        };
        assert_eq!(
            refusal(
                OnInputDrift::Block,
                &["DB_HOST", "ADMIN_CIDRS"],
                &["ADMIN_CIDRS"]
            ),
            InputDriftRefusal::Block {
                inputs: s(&["ADMIN_CIDRS", "DB_HOST"])
            }
        );
        // Acceptance is per comment: the refusal names every drifted input, accepted or not.
        assert_eq!(
            refusal(
                OnInputDrift::Confirm,
                &["DB_HOST", "ADMIN_CIDRS", "DB_HOST"],
                &["DB_HOST"]
            ),
            InputDriftRefusal::Confirm {
                inputs: s(&["ADMIN_CIDRS", "DB_HOST"])
            }
        );
    }

    #[test]
    fn mode_parses_from_policy_text() {
        let mode: OnInputDrift = serde_json::from_str("\"confirm\"").unwrap();
        assert_eq!(mode, OnInputDrift::Confirm);
        assert_eq!(OnInputDrift::default(), OnInputDrift::Block);
        assert!(serde_json::from_str::<OnInputDrift>("\"Confirm\"").is_err());
    }
}
