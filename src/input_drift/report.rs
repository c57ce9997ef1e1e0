//! What attribution produces: one [`ChangeAttribution`] per changed resource instance.

use std::collections::BTreeMap;

use serde::Serialize;

/// Why a change is in this plan, as far as the plan, the HCL and the PR diff tell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Verdict {
    /// Reaches shared inputs that changed since the last apply, and this PR does not bump
    /// their lock entries. Blocks `/apply` per `on_input_drift`.
    SharedInputDrift { inputs: Vec<String> },
    /// Reaches changed shared inputs whose lock entries this PR updates to the live value.
    ExplainedByLockfile { inputs: Vec<String> },
    /// A file of the PR diff explains it (see `ChangeAttribution::explained_by_diff`).
    ExplainedByDiff,
    /// Follows from real infrastructure drift of these resources (`resource_drift`).
    ExplainedByResourceDrift { resources: Vec<String> },
    /// Neither the diff nor an input nor drift explains it: "outside this PR's diff".
    OutsideDiff,
    /// Could not be traced (locals or dynamic blocks without HCL, missing configuration);
    /// nothing in the diff explains it either.
    Unresolved,
}

/// One cause of a change: a changed attribute (or the instance set, or the provider) and
/// where its expression leads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CauseTrace {
    /// `vpc_config.public_access_cidrs`, `for_each`, `count`, `module.files for_each`,
    /// `provider aws`.
    pub via: String,
    /// Root-module variables reached.
    pub root_variables: Vec<String>,
    /// Drifted resources reached (absolute, module-qualified block addresses).
    pub drifted_resources: Vec<String>,
    /// References that could not be followed, e.g. `local.name`, `module.m.local.x`.
    pub unresolved: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangeAttribution {
    /// Absolute instance address.
    pub address: String,
    /// Plan actions, e.g. `["update"]`.
    pub actions: Vec<String>,
    /// Changed attributes as configuration paths (`vpc_config.public_access_cidrs`, `tags_all`),
    /// sorted, without duplicates. Never values.
    pub attribute_paths: Vec<String>,
    /// Causes that lead somewhere (a variable, drift, or an unresolved name); causes that
    /// end in constants and defaults are left out.
    pub causes: Vec<CauseTrace>,
    /// Shared input names reached (changed or not).
    pub inputs: Vec<String>,
    /// Shared input names reached whose value changed since the last apply.
    pub changed_inputs: Vec<String>,
    /// For each changed input: the `via` labels that reach it.
    pub changed_input_paths: BTreeMap<String, Vec<String>>,
    /// The first PR file that explains the change, if any.
    pub explained_by_diff: Option<String>,
    /// The `via` labels (changed attribute paths, `for_each` …) whose expression or inputs the
    /// PR diff touches: what the PR itself changes, next to a changed shared input.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diff_paths: Vec<String>,
    pub drifted_resources: Vec<String>,
    pub unresolved: Vec<String>,
    pub verdict: Verdict,
}

/// A note about the analysis as a whole (not about one change).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DriftWarningLine {
    /// The plan has no `configuration`: nothing could be traced.
    NoConfiguration,
    /// A changed resource has no configuration block (removed from the code, or the plan
    /// omits it).
    NoConfigBlock { address: String },
    /// A shared input's variable is not declared in the root module: it cannot reach anything.
    InputNotDeclared { input: String, variable: String },
    /// The PR file list was cut at the API limit: "explained by diff" may be missed.
    DiffTruncated { files: usize },
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DriftReport {
    pub changes: Vec<ChangeAttribution>,
    pub warnings: Vec<DriftWarningLine>,
}

impl DriftReport {
    /// Names of inputs with a `SharedInputDrift` verdict anywhere (for `input_drift_gate`).
    pub fn drifted_inputs(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .changes
            .iter()
            .filter_map(|c| match &c.verdict {
                Verdict::SharedInputDrift { inputs } => Some(inputs.clone()),
                _ => None,
            })
            .flatten()
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// Changes that nothing explains (verdict `OutsideDiff` or `Unresolved`).
    pub fn outside_diff(&self) -> impl Iterator<Item = &ChangeAttribution> {
        self.changes
            .iter()
            .filter(|c| matches!(c.verdict, Verdict::OutsideDiff | Verdict::Unresolved))
    }
}
