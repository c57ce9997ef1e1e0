//! Shared inputs: read their values on the server (never from the PR), give them to Terraform
//! as `TF_VAR_<variable>`, and keep only keyed fingerprints anywhere else.

use std::collections::BTreeMap;

use crate::drift::{fingerprint, Fingerprint, SharedInputRef};
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

/// The `/inputs` reply: each shared input of the repository with its live fingerprint (never
/// its value), and the `tfgate.inputs.lock` lines that commit to the current values.
pub fn inputs_reply(key: &[u8], policy: &RepoPolicy) -> String {
    if policy.inputs.is_empty() {
        return "No shared inputs are declared for this repository.".into();
    }
    let mut table = String::from("| input | variable | fingerprint |\n|---|---|---|\n");
    let mut lock = std::collections::BTreeMap::new();
    for input in &policy.inputs {
        let fp = read_value(&input.source).map(|v| fingerprint(key, &input.name, &v));
        let shown = fp
            .as_ref()
            .map(|f| format!("`{}`", f.short()))
            .unwrap_or_else(|| "unreadable on the server".into());
        table.push_str(&format!(
            "| `{}` | `{}` | {} |\n",
            input.name, input.variable, shown
        ));
        if let Some(f) = fp {
            lock.insert(input.name.clone(), f);
        }
    }
    format!(
        "**Shared inputs** (values are never shown)\n\n{table}\nTo make a change of these inputs part of a pull request, commit this `{}`:\n\n```\n{}```\n",
        crate::drift::LOCKFILE_NAME,
        crate::drift::render_lockfile(&lock)
    )
}
