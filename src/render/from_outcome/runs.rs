//! A sandboxed Terraform run (raw outputs) → root view models. Pure: the stream and plan JSON
//! are parsed here; only classified, redacted facts reach the models.

use crate::classify::{classify, Category, ClassifyContext};
use crate::model::view::{
    AdviceView, ApplyCounts, ApplyStatus, FailureRow, PlanCounts, PlanStatus, RootApply, RootPlan,
    RunNote,
};
use crate::model::ResourceLimit;
use crate::redact::{Placeholders, Redactor};
use crate::terraform::{
    apply_outcome, parse_plan_json, parse_ui_stream, plan_run_outcome, plan_summary, ApplyContext,
    PlanReferences, PlannedChangeRef,
};

use super::{apply_root, plan_failures, plan_root, RootIdent};

pub(super) fn failed_plan(
    root: &RootIdent,
    errors: Vec<FailureRow>,
    advice: Vec<AdviceView>,
) -> RootPlan {
    RootPlan {
        project: root.project.clone(),
        dir: root.dir.clone(),
        workspace: root.workspace.clone(),
        status: PlanStatus::Failed,
        counts: PlanCounts::default(),
        warnings: Vec::new(),
        resources: Vec::new(),
        errors,
        advice,
        denials: Vec::new(),
        pending_enrichment: false,
        policy_checks: Vec::new(),
    }
}

/// A step that printed no JSON (e.g. `init`): classify its error output, show only the result.
fn non_json_failure(
    text: &str,
    redactor: &Redactor,
    ph: &mut Placeholders,
) -> (Vec<FailureRow>, Vec<AdviceView>) {
    let c = classify(
        text,
        &ClassifyContext {
            has_address: false,
            ..Default::default()
        },
    );
    let category = if c.category == Category::Unknown {
        Category::ConfigurationError
    } else {
        c.category
    };
    (
        vec![FailureRow {
            address: None,
            aws_code: super::safe_code(c.aws_code, redactor, ph),
            category_id: category.id().to_string(),
            category_label: category.label().to_string(),
            iam_action: super::safe_action(c.iam_action, redactor),
            location: None,
        }],
        vec![AdviceView {
            category_id: category.id().to_string(),
            label: category.label().to_string(),
            advice: category.advice().to_string(),
        }],
    )
}

/// Outputs of `init` / `plan -json` / `show -json` → the root's plan model.
pub fn plan_model(
    root: &RootIdent,
    init_ok: bool,
    init_output: &str,
    plan_stream: Option<&str>,
    plan_json: Option<&str>,
    redactor: &Redactor,
    ph: &mut Placeholders,
) -> RootPlan {
    if !init_ok {
        let (rows, advice) = non_json_failure(init_output, redactor, ph);
        return failed_plan(root, rows, advice);
    }
    let stream = plan_stream.and_then(|s| parse_ui_stream(s).ok());
    let outcome = stream.as_ref().map(plan_run_outcome);
    if let Some(o) = &outcome {
        if !o.errors.is_empty() {
            let (rows, advice) = plan_failures(&o.errors, redactor, ph);
            let mut model = failed_plan(root, rows, advice);
            model.denials = super::plan_denials(&o.errors, redactor, ph);
            return model;
        }
    }
    match plan_json.and_then(|j| parse_plan_json(j).ok()) {
        Some(plan) => {
            let mut model = plan_root(root, &plan_summary(&plan), redactor, ph);
            if let Some(o) = &outcome {
                for w in &o.warnings {
                    let c = classify(
                        &format!("{}\n{}", w.summary, w.detail),
                        &ClassifyContext::default(),
                    );
                    model
                        .warnings
                        .push(format!("Terraform warning ({})", c.category.label()));
                }
            }
            model
        }
        None => {
            let (rows, advice) = non_json_failure(plan_stream.unwrap_or(""), redactor, ph);
            failed_plan(root, rows, advice)
        }
    }
}

/// Outputs of `init` / `apply -json` → the root's apply model. `planned` lists what the plan
/// meant to change, so resources never reached are shown too; `references` (from the plan)
/// tell which failing resource refers to one created earlier in the apply.
#[allow(clippy::too_many_arguments)]
pub fn apply_model(
    root: &RootIdent,
    init_ok: bool,
    init_output: &str,
    apply_stream: Option<&str>,
    planned: &[PlannedChangeRef],
    references: &PlanReferences,
    redactor: &Redactor,
    ph: &mut Placeholders,
) -> RootApply {
    let Some(stream) = apply_stream
        .filter(|_| init_ok)
        .and_then(|s| parse_ui_stream(s).ok())
    else {
        let (rows, advice) = non_json_failure(init_output, redactor, ph);
        return RootApply {
            project: root.project.clone(),
            dir: root.dir.clone(),
            workspace: root.workspace.clone(),
            status: ApplyStatus::Failed,
            counts: ApplyCounts {
                done: 0,
                failed: 0,
                not_reached: planned.len() as u32,
            },
            rows: Vec::new(),
            advice,
            config_errors: rows
                .into_iter()
                .map(|r| crate::model::view::ConfigErrorView {
                    file: String::new(),
                    line: 0,
                    summary_category: r.category_label,
                })
                .collect(),
            pending_enrichment: false,
            denials: Vec::new(),
            plan: None,
        };
    };
    let outcome = apply_outcome(&stream, planned);
    let context = ApplyContext::new(&stream, references);
    apply_root(root, &outcome, &context, redactor, ph)
}

fn category_advice(c: Category) -> AdviceView {
    AdviceView {
        category_id: c.id().to_string(),
        label: c.label().to_string(),
        advice: c.advice().to_string(),
    }
}

/// A root whose plan hit a resource limit: failed, one row of category `resource_limit`
/// (what Terraform printed before it was stopped is not classified).
pub fn resource_limit_plan(root: &RootIdent) -> RootPlan {
    let c = Category::ResourceLimit;
    let row = FailureRow {
        address: None,
        aws_code: None,
        category_id: c.id().to_string(),
        category_label: c.label().to_string(),
        iam_action: None,
        location: None,
    };
    failed_plan(root, vec![row], vec![category_advice(c)])
}

/// An apply whose run hit a resource limit: failed whatever its stream showed, with the
/// limit's advice (the resources it completed stay listed).
pub fn mark_resource_limit(model: &mut RootApply) {
    let c = Category::ResourceLimit;
    model.status = ApplyStatus::Failed;
    if !model.advice.iter().any(|a| a.category_id == c.id()) {
        model.advice.push(category_advice(c));
    }
}

/// The notes of a run's limits: the limit it hit ("the run hit a resource limit: …") and
/// output lines dropped for their length.
pub fn limit_notes(project: &str, hit: Option<ResourceLimit>, overlong_lines: u64) -> Vec<RunNote> {
    let mut notes = Vec::new();
    if let Some(limit) = hit {
        notes.push(RunNote::ResourceLimit {
            project: project.to_string(),
            limit: limit.describe().to_string(),
        });
    }
    if overlong_lines > 0 {
        notes.push(RunNote::LongLinesDropped {
            project: project.to_string(),
            lines: overlong_lines,
        });
    }
    notes
}
