//! Shared-input drift for one planned root: live fingerprints vs the last apply and the
//! committed `tfgate.inputs.lock`, then attribution of the plan's changes (pure, `drift`).

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;

use crate::checkout::{read_text_no_follow, read_tree, WalkLimits};
use crate::db::{inputs as db_inputs, Db};
use crate::drift::{
    attribute_changes, drift_warnings, input_sets, input_statuses, parse_lockfile,
    AttributionContext, Fingerprint, HclIndex, LOCKFILE_NAME,
};
use crate::inputs::LiveInputs;
use crate::policy::ResolvedProject;
use crate::render::DriftWarning;
use crate::terraform::parse_plan_json;

pub struct PlanDrift {
    pub warnings: Vec<DriftWarning>,
    pub drifted_inputs: Vec<String>,
    /// Lines for the comment's notes (e.g. the lock file disagrees, an input is unreadable).
    pub notes: Vec<String>,
}

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

pub async fn analyse(
    db: &Db,
    repo: &str,
    project: &ResolvedProject,
    live: &LiveInputs,
    plan_json: &str,
    checkout: &Path,
    pr_files: &[String],
) -> Result<PlanDrift> {
    let mut notes: Vec<String> = live
        .missing
        .iter()
        .map(|n| {
            format!("shared input `{n}` could not be read on the server; the plan ran without it")
        })
        .collect();
    let last: BTreeMap<String, Fingerprint> =
        db_inputs::last_applied(db, repo, &project.spec.id.0, &project.spec.workspace)
            .await?
            .into_iter()
            .filter_map(|(k, v)| Fingerprint::from_hex(&v).ok().map(|f| (k, f)))
            .collect();
    let (files, lock_text) = read_checkout(checkout).await?;
    let lock_head = match lock_text {
        Some(text) => match parse_lockfile(&text) {
            Ok(lock) => Some(lock),
            Err(e) => {
                notes.push(format!(
                    "`{LOCKFILE_NAME}` is not valid (line {}); it was ignored",
                    e.line
                ));
                None
            }
        },
        None => None,
    };
    // When the PR changes the lock file, its base version differs; otherwise it is the same.
    let lock_in_diff = pr_files.iter().any(|f| f == LOCKFILE_NAME);
    let lock_base = if lock_in_diff {
        None
    } else {
        lock_head.as_ref()
    };
    let statuses = input_statuses(
        &live.refs,
        &live.fingerprints,
        &last,
        lock_head.as_ref(),
        lock_base,
    );
    for s in &statuses {
        if s.lock_matches == Some(false) {
            notes.push(format!(
                "shared input `{}` differs from `{LOCKFILE_NAME}` (committed {} → live {})",
                s.name,
                s.committed_lock
                    .as_ref()
                    .map(|f| f.short().to_string())
                    .unwrap_or_default(),
                s.current.short()
            ));
        }
    }
    let (changed, bumped) = input_sets(&statuses);
    let plan = parse_plan_json(plan_json)?;
    let hcl = HclIndex::from_files(files.iter().map(|(p, t)| (p.as_str(), t.as_str())));
    let report = attribute_changes(
        &plan,
        &AttributionContext {
            shared_inputs: &live.refs,
            changed_inputs: &changed,
            lock_bumped_inputs: &bumped,
            pr_files,
            root_dir: &project.spec.dir,
            hcl: &hcl,
        },
    );
    let warnings = drift_warnings(&report, &statuses);
    Ok(PlanDrift {
        warnings,
        drifted_inputs: report.drifted_inputs(),
        notes,
    })
}
