//! Why `/apply` did not apply a root whose shared inputs changed outside the pull request, as
//! data: `input_drift_gate` returns it and `templates/input_drift_refused.md.j2` words it.

use serde::{Deserialize, Serialize};

/// The policy's `on_input_drift` mode that refused, with the drifted inputs' names (sorted,
/// each once).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum InputDriftRefusal {
    /// `block`: only a reviewed update of the inputs lockfile, or an admin, unblocks it.
    Block { inputs: Vec<String> },
    /// `confirm`: an `/apply` naming every drifted input with `--accept-input` applies it.
    Confirm { inputs: Vec<String> },
}
