//! Shared-input drift for one planned root: live fingerprints vs the last apply and the
//! committed `tfgate.inputs.lock`, then attribution of the plan's changes (pure, `drift`).

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;

use crate::db::{inputs as db_inputs, Db};
use crate::drift::{
    attribute_changes, drift_warnings, input_sets, input_statuses, parse_lockfile,
    AttributionContext, Fingerprint, HclIndex, LOCKFILE_NAME,
};
use crate::inputs::LiveInputs;
use crate::policy::ResolvedProject;
use crate::render::{DriftWarning, RunNote};
use crate::terraform::parse_plan_json;

pub struct PlanDrift {
    pub warnings: Vec<DriftWarning>,
    pub drifted_inputs: Vec<String>,
    /// Lines for the comment's notes (e.g. the lock file disagrees, an input is unreadable).
    pub notes: Vec<RunNote>,
}

/// Read the checkout's `.tf` / `.tfvars` files (repo-relative paths) for the HCL index.
fn hcl_files(root: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            let name = e.file_name().to_string_lossy().to_string();
            if name == ".terraform" || name == ".git" {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else if (name.ends_with(".tf") || name.ends_with(".tfvars")) && out.len() < 5000 {
                if let (Ok(rel), Ok(text)) =
                    (path.strip_prefix(root), std::fs::read_to_string(&path))
                {
                    out.push((rel.display().to_string(), text));
                }
            }
        }
    }
    out
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
    let project_name = &project.spec.id.0;
    let mut notes: Vec<RunNote> = live
        .missing
        .iter()
        .map(|n| RunNote::InputUnreadable {
            project: project_name.clone(),
            input: n.clone(),
        })
        .collect();
    let last: BTreeMap<String, Fingerprint> =
        db_inputs::last_applied(db, repo, &project.spec.id.0, &project.spec.workspace)
            .await?
            .into_iter()
            .filter_map(|(k, v)| Fingerprint::from_hex(&v).ok().map(|f| (k, f)))
            .collect();
    let lock_head = match std::fs::read_to_string(checkout.join(LOCKFILE_NAME)) {
        Ok(text) => match parse_lockfile(&text) {
            Ok(lock) => Some(lock),
            Err(e) => {
                notes.push(RunNote::LockFileInvalid {
                    project: project_name.clone(),
                    line: e.line as u64,
                });
                None
            }
        },
        Err(_) => None,
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
            notes.push(RunNote::LockFileDiffers {
                project: project_name.clone(),
                input: s.name.clone(),
                committed: s
                    .committed_lock
                    .as_ref()
                    .map(|f| f.short().to_string())
                    .unwrap_or_default(),
                live: s.current.short().to_string(),
            });
        }
    }
    let (changed, bumped) = input_sets(&statuses);
    let plan = parse_plan_json(plan_json)?;
    let files = hcl_files(checkout);
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
    let warnings = drift_warnings(&report, &statuses)
        .into_iter()
        .map(|w| DriftWarning {
            address: w.address,
            attribute_paths: w.attribute_paths,
            input_name: w.input_name,
            fingerprint_before: w.fingerprint_before,
            fingerprint_after: w.fingerprint_after,
            explained_by: w.explained_by,
        })
        .collect();
    Ok(PlanDrift {
        warnings,
        drifted_inputs: report.drifted_inputs(),
        notes,
    })
}
