//! What `/apply` does when shared inputs changed outside the pull request.

use serde::Serialize;

use super::lockfile::LOCKFILE_NAME;

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
    /// Do not apply; post `reply`.
    Refuse {
        reply: String,
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
                InputDriftGate::Refuse {
                    reply: confirm_reply(&drifted),
                }
            }
        }
        OnInputDrift::Block => InputDriftGate::Refuse {
            reply: block_reply(&drifted),
        },
    }
}

fn names(list: &[impl AsRef<str>]) -> String {
    list.iter()
        .map(|n| n.as_ref())
        .collect::<Vec<_>>()
        .join(", ")
}

fn subject(drifted: &[String]) -> String {
    let noun = if drifted.len() == 1 {
        "input"
    } else {
        "inputs"
    };
    format!(
        "Not applied: shared {noun} {} changed since the last apply and no file in this PR sets {}.",
        names(drifted),
        pronoun(drifted)
    )
}

fn pronoun(drifted: &[String]) -> &'static str {
    if drifted.len() == 1 {
        "it"
    } else {
        "them"
    }
}

fn block_reply(drifted: &[String]) -> String {
    format!(
        "{} Two ways forward: merge and apply a PR that updates {LOCKFILE_NAME} to the new \
         fingerprint (see /inputs), so the change is reviewed; or ask an admin to change \
         on_input_drift for this root.",
        subject(drifted)
    )
}

/// Every drifted input is named: acceptance is per `/apply` comment.
fn confirm_reply(drifted: &[String]) -> String {
    let flags: Vec<String> = drifted
        .iter()
        .map(|n| format!("--accept-input {n}"))
        .collect();
    format!(
        "{} Two ways forward: apply a PR that updates {LOCKFILE_NAME} to the new fingerprint \
         (see /inputs); or comment `/apply {}` to apply {} with this PR.",
        subject(drifted),
        flags.join(" "),
        pronoun(drifted)
    )
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
    fn block_reply_names_the_lockfile_and_the_admin_route() {
        let InputDriftGate::Refuse { reply } = input_drift_gate(
            OnInputDrift::Block,
            &s(&["ADMIN_CIDRS"]),
            &s(&["ADMIN_CIDRS"]),
        ) else {
            panic!("block must refuse")
        };
        assert!(reply.contains("ADMIN_CIDRS"));
        assert!(reply.contains("tfgate.inputs.lock"));
        assert!(reply.contains("admin"));
        assert!(!reply.contains("--accept-input"));
        insta::assert_snapshot!(reply);
    }

    #[test]
    fn confirm_reply_names_the_missing_flags() {
        let InputDriftGate::Refuse { reply } = input_drift_gate(
            OnInputDrift::Confirm,
            &s(&["ADMIN_CIDRS", "DB_HOST"]),
            &s(&["DB_HOST"]),
        ) else {
            panic!("confirm without every input accepted must refuse")
        };
        // Acceptance is per comment: the command to copy names every drifted input.
        assert!(reply.contains("`/apply --accept-input ADMIN_CIDRS --accept-input DB_HOST`"));
        assert!(reply.contains("sets them"));
        assert!(reply.contains("tfgate.inputs.lock"));
        insta::assert_snapshot!(reply);
    }

    #[test]
    fn mode_parses_from_policy_text() {
        let mode: OnInputDrift = serde_json::from_str("\"confirm\"").unwrap();
        assert_eq!(mode, OnInputDrift::Confirm);
        assert_eq!(OnInputDrift::default(), OnInputDrift::Block);
        assert!(serde_json::from_str::<OnInputDrift>("\"Confirm\"").is_err());
    }
}
