//! Plan policies on a root's successful plan (issue 42): every set of the policy in force that
//! applies to the root is evaluated on the plan JSON, off the async threads, with the set
//! compiled when that policy version was loaded. A set that is not compiled fails closed. The
//! messages are redacted with the comment's placeholders before they are stored or shown.

use crate::model::view::PolicyCheckView;
use crate::model::SetOutcome;
use crate::plan_policy::{evaluate, Budget, CompiledSet};
use crate::policy::RepoPolicy;
use crate::redact::{Placeholders, Redactor};

const NOT_COMPILED: &str = "the set is not compiled in the policy in force (its Rego files did \
     not load); it fails closed until an admin fixes it (`tfgate policy check`)";
const PANICKED: &str = "the evaluation of the set stopped with an internal error; it fails closed";

/// One set to evaluate: its name and enforcement, and its compiled form when it has one.
struct SetToRun {
    outcome_if_missing: SetOutcome,
    compiled: Option<CompiledSet>,
}

/// Evaluate the sets that apply to `project` on `plan_json`; unredacted outcomes.
pub(super) async fn evaluate_sets(
    policy: &RepoPolicy,
    project: &str,
    plan_json: &str,
) -> Vec<SetOutcome> {
    let sets: Vec<SetToRun> = policy
        .plan_policies_for(project)
        .into_iter()
        .map(|set| SetToRun {
            outcome_if_missing: SetOutcome::failed_closed(set, NOT_COMPILED),
            compiled: policy.compiled_plan_policy(&set.name).cloned(),
        })
        .collect();
    if sets.is_empty() {
        return Vec::new();
    }
    let plan_json = plan_json.to_string();
    let run = move || {
        let budget = Budget::default();
        sets.into_iter()
            .map(|s| match &s.compiled {
                Some(c) => evaluate(c, &plan_json, &budget),
                None => s.outcome_if_missing,
            })
            .collect::<Vec<_>>()
    };
    match tokio::task::spawn_blocking(run).await {
        Ok(outcomes) => outcomes,
        Err(e) => {
            tracing::error!(error = %e, "plan policy evaluation panicked");
            policy
                .plan_policies_for(project)
                .into_iter()
                .map(|set| SetOutcome::failed_closed(set, PANICKED))
                .collect()
        }
    }
}

/// The outcomes with their messages and addresses redacted (as stored in the plan record).
pub(super) fn redact_outcomes(
    outcomes: Vec<SetOutcome>,
    redactor: &Redactor,
    ph: &mut Placeholders,
) -> Vec<SetOutcome> {
    outcomes
        .into_iter()
        .map(|mut o| {
            for m in o.failures.iter_mut().chain(o.warnings.iter_mut()) {
                m.message = redactor.redact(&m.message, ph);
                m.address = m.address.as_deref().map(|a| redactor.redact_address(a, ph));
            }
            o.error = o.error.as_deref().map(|e| redactor.redact(e, ph));
            o
        })
        .collect()
}

/// The comment's view of redacted outcomes, with each set's owners from the policy in force.
pub(super) fn views(policy: &RepoPolicy, outcomes: &[SetOutcome]) -> Vec<PolicyCheckView> {
    outcomes
        .iter()
        .map(|o| {
            let owners = policy
                .plan_policies
                .iter()
                .find(|s| s.name == o.set)
                .map(|s| &s.owners);
            PolicyCheckView::of(o, owners)
        })
        .collect()
}
