//! Shared-input drift for one planned root: the worker reads the facts (the last apply's
//! fingerprints, the checkout's HCL and `tfgate.inputs.lock`); `drift::plan_drift` decides.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;

use crate::checkout::{read_text_no_follow, read_tree, WalkLimits};
use crate::db::{inputs as db_inputs, Db};
use crate::input_drift::{plan_drift, DriftFacts, Fingerprint, PlanDrift, LOCKFILE_NAME};
use crate::policy::ResolvedProject;
use crate::terraform::parse_plan_json;
use crate::worker::input_drift::values::LiveInputs;

/// The checkout's `.tf` / `.tfvars` files (repo-relative paths) for the HCL index, and the
/// committed `tfgate.inputs.lock`: read off the runtime's threads, links never followed.
async fn read_checkout(root: &Path) -> Result<(Vec<(String, String)>, Option<String>)> {
    let root = root.to_path_buf();
    let read = move || {
        let wanted = |name: &str| name.ends_with(".tf") || name.ends_with(".tfvars");
        let limits = WalkLimits::default();
        let files = read_tree(&root, wanted, &[".terraform", ".git"], limits);
        let lock = read_text_no_follow(&root.join(LOCKFILE_NAME), limits.max_file_bytes);
        (files, lock)
    };
    Ok(tokio::task::spawn_blocking(read).await?)
}

/// Read the facts of one planned root's drift (last apply, checkout files) and analyse them.
pub async fn analyse(
    db: &Db,
    repo: &str,
    project: &ResolvedProject,
    live: &LiveInputs,
    plan_json: &str,
    checkout: &Path,
    pr_files: &[String],
) -> Result<PlanDrift> {
    let last: BTreeMap<String, Fingerprint> =
        db_inputs::last_applied(db, repo, &project.spec.id.0, &project.spec.workspace)
            .await?
            .into_iter()
            .filter_map(|(k, v)| Fingerprint::from_hex(&v).ok().map(|f| (k, f)))
            .collect();
    let (hcl_files, lock_text) = read_checkout(checkout).await?;
    let plan = parse_plan_json(plan_json)?;
    let facts = DriftFacts {
        shared_inputs: &live.refs,
        live: &live.fingerprints,
        missing: &live.missing,
        last_applied: &last,
        lock_text: lock_text.as_deref(),
        pr_files,
        root_dir: &project.spec.dir,
        hcl_files: &hcl_files,
    };
    Ok(plan_drift(&plan, &facts))
}
