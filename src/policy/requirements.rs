//! Apply requirements: which are unmet, and what explains each (`_policy_denial.md.j2` words it).

use super::approval::approved_problem;
use super::facts::{CheckRun, PrFacts};
use super::model::RepoPolicy;
use super::schema::{ApplyRequirement, RequiredCheck};
use crate::model::{CheckProblem, UnmetRequirement};

pub(crate) fn requirement_rule(req: ApplyRequirement) -> &'static str {
    match req {
        ApplyRequirement::Approved => "apply.requires_approval",
        ApplyRequirement::Mergeable => "apply.requires_mergeable",
        ApplyRequirement::UpToDate => "apply.requires_up_to_date",
        ApplyRequirement::ChecksPassed => "apply.requires_checks_passed",
    }
}

/// Unmet requirements in the fixed order approved, mergeable, up_to_date, checks_passed,
/// each with what explains it.
pub(crate) fn unmet_requirements(
    facts: &PrFacts,
    policy: &RepoPolicy,
) -> Vec<(ApplyRequirement, UnmetRequirement)> {
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
) -> Option<UnmetRequirement> {
    let base = facts.base_ref.clone();
    match req {
        ApplyRequirement::Approved => approved_problem(facts, policy.min_approvals.max(1) as usize)
            .map(|problem| UnmetRequirement::Approved { problem }),
        ApplyRequirement::Mergeable => match facts.mergeable {
            Some(true) => None,
            known => Some(UnmetRequirement::Mergeable {
                base,
                known: known.is_some(),
            }),
        },
        ApplyRequirement::UpToDate => match facts.up_to_date {
            Some(true) => None,
            known => Some(UnmetRequirement::UpToDate {
                base,
                known: known.is_some(),
            }),
        },
        ApplyRequirement::ChecksPassed => {
            let checks: Vec<CheckProblem> = policy
                .required_checks
                .iter()
                .filter_map(|check| check_problem(check, facts))
                .collect();
            (!checks.is_empty()).then_some(UnmetRequirement::ChecksPassed { checks })
        }
    }
}

/// Why a required check does not pass on the head, if it does not. A check naming an app
/// counts only that app's runs, so a same-named job added by the PR cannot satisfy it.
fn check_problem(check: &RequiredCheck, facts: &PrFacts) -> Option<CheckProblem> {
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
        return Some(CheckProblem::NotRun {
            name: name.clone(),
            app: check.app.clone(),
        });
    }
    for run in runs {
        match run.conclusion.as_deref() {
            Some("success" | "neutral" | "skipped") => {}
            None => return Some(CheckProblem::Running { name: name.clone() }),
            Some(other) => {
                return Some(CheckProblem::Concluded {
                    name: name.clone(),
                    conclusion: other.to_string(),
                })
            }
        }
    }
    None
}
