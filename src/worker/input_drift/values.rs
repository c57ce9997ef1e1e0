//! Shared inputs: read their values on the server (never from the PR), give them to Terraform
//! as `TF_VAR_<variable>`, and keep only keyed fingerprints anywhere else.

use std::collections::BTreeMap;

use crate::input_drift::{fingerprint, Fingerprint, SharedInputRef};
use crate::model::view::{InputRow, InputsReport};
use crate::policy::{InputSource, RepoPolicy, ResolvedProject};
use crate::state::AppState;

/// The label of the fingerprint subkey derived from the server's sealing key.
const FINGERPRINT_KEY_LABEL: &[u8] = b"tfgate shared-input fingerprints v1";

pub fn fingerprint_key(state: &AppState) -> [u8; 32] {
    key_from_seal(&state.seal_key)
}

pub fn key_from_seal(seal: &crate::crypto::SealKey) -> [u8; 32] {
    seal.derive(FINGERPRINT_KEY_LABEL)
}

/// The live inputs of one project.
#[derive(Default)]
pub struct LiveInputs {
    pub refs: Vec<SharedInputRef>,
    pub fingerprints: BTreeMap<String, Fingerprint>,
    /// `TF_VAR_<variable>` → value, for the sandbox only.
    pub env: BTreeMap<String, String>,
    /// Inputs whose source could not be read (reported on the PR by name only).
    pub missing: Vec<String>,
}

/// Read one input's value from its server-side source.
pub fn read_value(source: &InputSource) -> Option<String> {
    match source {
        InputSource::Env(name) => std::env::var(name).ok(),
        InputSource::File(path) => std::fs::read_to_string(path)
            .ok()
            .map(|s| s.trim_end_matches(['\n', '\r']).to_string()),
    }
}

pub fn live_inputs(key: &[u8], policy: &RepoPolicy, project: &ResolvedProject) -> LiveInputs {
    let mut live = LiveInputs::default();
    for name in &project.inputs {
        let Some(input) = policy.input(name) else {
            continue;
        };
        live.refs.push(SharedInputRef {
            name: input.name.clone(),
            variable: input.variable.clone(),
        });
        match read_value(&input.source) {
            Some(value) => {
                live.fingerprints
                    .insert(input.name.clone(), fingerprint(key, &input.name, &value));
                live.env.insert(format!("TF_VAR_{}", input.variable), value);
            }
            None => live.missing.push(input.name.clone()),
        }
    }
    live
}

/// Every input value of the policy (for the redactor: values are never posted).
pub fn all_values(policy: &RepoPolicy) -> Vec<String> {
    policy
        .inputs
        .iter()
        .filter_map(|i| read_value(&i.source))
        .filter(|v| !v.is_empty())
        .collect()
}

/// The `/inputs` reply's view model (rendered by `inputs_report.md.j2`): each shared input of
/// the repository with its live fingerprint (never its value), and the `tfgate.inputs.lock`
/// text that commits to the current values.
pub fn inputs_report(key: &[u8], policy: &RepoPolicy) -> InputsReport {
    let mut lock = BTreeMap::new();
    let inputs = policy
        .inputs
        .iter()
        .map(|input| {
            let fp = read_value(&input.source).map(|v| fingerprint(key, &input.name, &v));
            let fingerprint_short = fp.as_ref().map(|f| f.short().to_string());
            if let Some(f) = fp {
                lock.insert(input.name.clone(), f);
            }
            InputRow {
                name: input.name.clone(),
                variable: input.variable.clone(),
                fingerprint_short,
            }
        })
        .collect();
    InputsReport {
        inputs,
        lock_file_name: crate::input_drift::LOCKFILE_NAME.to_string(),
        lock_file: crate::input_drift::render_lockfile(&lock),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::model::marker::CommentKind;
    use crate::model::view::{Notice, NoticeBody};
    use crate::render::{samples_meta, Renderer};

    const POLICY: &str = "repos: [acme/*]\ndefaults:\n  plan_role: arn:aws:iam::111111111111:role/plan\n  apply_role: arn:aws:iam::111111111111:role/apply\n";

    fn rendered(key: &[u8], policy: &RepoPolicy) -> String {
        let notice = Notice {
            meta: samples_meta(30),
            body: NoticeBody::InputsReport(inputs_report(key, policy)),
        };
        Renderer::new().unwrap().render_notice(&notice).unwrap()
    }

    #[test]
    fn the_rendered_report_says_what_the_old_reply_said() {
        let dir = tempfile::tempdir().unwrap();
        let readable = dir.path().join("cidrs");
        std::fs::write(&readable, "10.0.0.0/8\n").unwrap();
        let with_inputs = format!(
            "{POLICY}inputs:\n  - name: ADMIN_CIDRS\n    variable: admin_cidrs\n    source: file:{}\n  - name: GONE\n    variable: gone\n    source: file:{}\n",
            readable.display(),
            dir.path().join("missing").display()
        );
        let key = [7u8; 32];
        let none = rendered(&key, &crate::policy::load_policy("p.yaml", POLICY).unwrap());
        assert!(
            none.starts_with("No shared inputs are declared for this repository."),
            "{none}"
        );
        let policy = crate::policy::load_policy("p.yaml", &with_inputs).unwrap();
        let text = rendered(&key, &policy);
        for expected in [
            "**Shared inputs** (values are never shown)",
            "| `ADMIN_CIDRS` | `admin_cidrs` | `",
            "| `GONE` | `gone` | unreadable on the server |",
            "\nADMIN_CIDRS = ",
        ] {
            assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
        }
        assert!(!text.contains("10.0.0.0"), "never the value: {text}");
        let marker = crate::model::marker::parse_marker(&text).unwrap();
        assert_eq!(marker.kind, CommentKind::InputsReport);
    }
}
