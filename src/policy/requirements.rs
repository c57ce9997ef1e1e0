//! Apply requirements: which are unmet, and the sentence explaining each.

use super::approval::approved_problem;
use super::facts::{CheckRun, PrFacts};
use super::model::RepoPolicy;
use super::schema::{ApplyRequirement, RequiredCheck};

pub(crate) fn requirement_rule(req: ApplyRequirement) -> &'static str {
    match req {
        ApplyRequirement::Approved => "apply.requires_approval",
        ApplyRequirement::Mergeable => "apply.requires_mergeable",
        ApplyRequirement::UpToDate => "apply.requires_up_to_date",
        ApplyRequirement::ChecksPassed => "apply.requires_checks_passed",
    }
}

/// Unmet requirements in the fixed order approved, mergeable, up_to_date, checks_passed,
/// each with the sentence explaining it.
pub(crate) fn unmet_requirements(
    facts: &PrFacts,
    policy: &RepoPolicy,
) -> Vec<(ApplyRequirement, String)> {
    let mut reqs = policy.apply_requirements.clone();
    reqs.sort();
    reqs.dedup();
    reqs.into_iter()
        .filter_map(|req| requirement_problem(req, facts, policy).map(|why| (req, why)))
        .collect()
}

fn requirement_problem(
    req: ApplyRequirement,
    facts: &PrFacts,
    policy: &RepoPolicy,
) -> Option<String> {
    let base = &facts.base_ref;
    match req {
        ApplyRequirement::Approved => approved_problem(facts, policy.min_approvals.max(1) as usize),
        ApplyRequirement::Mergeable => match facts.mergeable {
            Some(true) => None,
            Some(false) => Some(format!(
                "the pull request cannot be merged into `{base}` (conflicts)"
            )),
            None => Some("GitHub has not computed mergeability yet; try again shortly".to_string()),
        },
        ApplyRequirement::UpToDate => match facts.up_to_date {
            Some(true) => None,
            Some(false) => Some(format!("the branch is behind `{base}`; update it first")),
            None => Some(format!(
                "unknown whether the branch contains the latest `{base}`"
            )),
        },
        ApplyRequirement::ChecksPassed => {
            let failing: Vec<String> = policy
                .required_checks
                .iter()
                .filter_map(|check| check_problem(check, facts))
                .collect();
            (!failing.is_empty()).then(|| failing.join(", "))
        }
    }
}

/// Why a required check does not pass on the head, if it does not. A check naming an app
/// counts only that app's runs, so a same-named job added by the PR cannot satisfy it.
fn check_problem(check: &RequiredCheck, facts: &PrFacts) -> Option<String> {
    let name = &check.name;
    let runs: Vec<&CheckRun> = facts
        .check_runs
        .iter()
        .filter(|r| {
            r.name == *name
                && check
                    .app
                    .as_ref()
                    .map_or(true, |app| r.app.as_ref() == Some(app))
                && r.head_sha
                    .as_ref()
                    .map_or(true, |sha| *sha == facts.head_sha)
        })
        .collect();
    if runs.is_empty() {
        return Some(match &check.app {
            Some(app) => format!("`{name}` from app `{app}` has not run on the head"),
            None => format!("`{name}` has not run on the head"),
        });
    }
    for run in runs {
        match run.conclusion.as_deref() {
            Some("success" | "neutral" | "skipped") => {}
            None => return Some(format!("`{name}` is still running")),
            Some(other) => return Some(format!("`{name}` concluded {other}")),
        }
    }
    None
}
