//! Terraform outcomes → comment view models. Pure. Every string that reaches a model passes
//! through the redactor; provider error text never does at all: a failure becomes address,
//! action, AWS code, category, IAM action and deny kind only.

pub mod named;
pub mod runs;
pub use named::{mark_refusal, name_denied_role, refusal_plan, role_name};
pub use runs::{apply_model, limit_notes, mark_resource_limit, plan_model, resource_limit_plan};
#[cfg(test)]
mod tests;

use std::collections::BTreeSet;

use crate::classify::{classify, context_for_failure, Category, ClassifyContext};
use crate::enrich::{enrichment_view, permission_failure, safe_action, safe_code, EnrichmentState};
use crate::model::view::EnrichmentView;
use crate::model::view::{
    AdviceView, ApplyCounts, ApplyResult, ApplyRow, ApplyStatus, AttrView, ConfigErrorView,
    FailureRow, FreshCauseView, PlanCounts, PlanStatus, PlannedResourceView, RootApply, RootPlan,
    SourceLocation,
};
use crate::redact::{Placeholders, Redactor};
use crate::terraform::{
    display_path, Action, ApplyContext, ApplyOutcome, Diagnostic, PlanSummary, ResourceOutcome,
    ResourceStatus,
};

/// Which root a result is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootIdent {
    pub project: String,
    pub dir: String,
    pub workspace: String,
}

fn advice_for(categories: &BTreeSet<Category>) -> Vec<AdviceView> {
    categories
        .iter()
        .map(|c| AdviceView {
            category_id: c.id().to_string(),
            label: c.label().to_string(),
            advice: c.advice().to_string(),
        })
        .collect()
}

fn diagnostic_text(d: &Diagnostic) -> String {
    format!("{}\n{}", d.summary, d.detail)
}

/// The diagnostic's file and line, the file name redacted (it is repository text).
fn location(d: &Diagnostic, redactor: &Redactor, ph: &mut Placeholders) -> Option<SourceLocation> {
    let r = d.range.as_ref()?;
    (!r.filename.is_empty()).then(|| SourceLocation {
        file: redactor.redact(&r.filename, ph),
        line: r.start.line as u32,
    })
}

fn value_text(v: &serde_json::Value, redactor: &Redactor, ph: &mut Placeholders) -> String {
    let redacted = redactor.redact_json(v, ph);
    match redacted {
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    }
}

/// One root's plan → its view model.
pub fn plan_root(
    root: &RootIdent,
    plan: &PlanSummary,
    redactor: &Redactor,
    ph: &mut Placeholders,
) -> RootPlan {
    let c = &plan.counts;
    let counts = PlanCounts {
        add: c.add as u32,
        change: c.change as u32,
        destroy: c.destroy as u32,
        replace: c.replace as u32,
        read: c.read as u32,
    };
    let resources: Vec<PlannedResourceView> = plan
        .resources
        .iter()
        .map(|r| PlannedResourceView {
            address: redactor.redact_address(&r.address, ph),
            action: r.action.as_str().to_string(),
            action_reason: r.action_reason.clone(),
            attributes: r
                .changed_attributes
                .iter()
                .map(|a| AttrView {
                    path: redactor.redact(&display_path(&a.path), ph),
                    before: a.before.as_ref().map(|v| value_text(v, redactor, ph)),
                    after: a.after.as_ref().map(|v| value_text(v, redactor, ph)),
                    sensitive: a.sensitive,
                    unknown: a.after_unknown,
                })
                .collect(),
            omitted_attributes: r.omitted_attributes,
        })
        .collect();
    let mut warnings = Vec::new();
    if !plan.drift.is_empty() {
        warnings.push(format!(
            "{} resource(s) changed outside Terraform since the last apply (drift).",
            plan.drift.len()
        ));
    }
    let status = if plan.errored {
        PlanStatus::Failed
    } else if resources.is_empty() {
        PlanStatus::NoChanges
    } else {
        PlanStatus::Changes
    };
    RootPlan {
        project: root.project.clone(),
        dir: root.dir.clone(),
        workspace: root.workspace.clone(),
        status,
        counts,
        warnings,
        resources,
        errors: Vec::new(),
        advice: Vec::new(),
        denials: Vec::new(),
        pending_enrichment: false,
        policy_checks: Vec::new(),
    }
}

/// Plan-time errors (from the `plan -json` stream) → failure rows with advice.
pub fn plan_failures(
    errors: &[Diagnostic],
    redactor: &Redactor,
    ph: &mut Placeholders,
) -> (Vec<FailureRow>, Vec<AdviceView>) {
    let mut categories = BTreeSet::new();
    let rows = errors
        .iter()
        .map(|d| {
            let ctx = ClassifyContext {
                has_address: d.address.is_some(),
                ..Default::default()
            };
            let c = classify(&diagnostic_text(d), &ctx);
            categories.insert(c.category);
            FailureRow {
                address: d.address.as_ref().map(|a| redactor.redact_address(a, ph)),
                aws_code: safe_code(c.aws_code, redactor, ph),
                category_id: c.category.id().to_string(),
                category_label: c.category.label().to_string(),
                iam_action: safe_action(c.iam_action, redactor),
                location: location(d, redactor, ph),
            }
        })
        .collect();
    (rows, advice_for(&categories))
}

/// Plan-time permission failures whose denied action the error text names, as an apply's
/// (the others wait for CloudTrail).
pub fn plan_denials(
    errors: &[Diagnostic],
    redactor: &Redactor,
    ph: &mut Placeholders,
) -> Vec<EnrichmentView> {
    errors
        .iter()
        .filter_map(|d| {
            let address = d.address.as_deref().unwrap_or_default();
            let shown = redactor.redact_address(address, ph);
            denial_view(&shown, address, std::slice::from_ref(d), None, redactor)
                .map(EnrichmentView::for_plan_role)
        })
        .collect()
}

/// One root's apply → its view model. `apply` tells what was created earlier in this apply:
/// a failure of a resource that refers to one of them may be a propagation delay.
pub fn apply_root(
    root: &RootIdent,
    outcome: &ApplyOutcome,
    apply: &ApplyContext,
    redactor: &Redactor,
    ph: &mut Placeholders,
) -> RootApply {
    let mut counts = ApplyCounts::default();
    let mut categories = BTreeSet::new();
    let mut rows = Vec::new();
    let mut denials = Vec::new();
    for r in &outcome.resources {
        match &r.status {
            ResourceStatus::Done => counts.done += 1,
            ResourceStatus::NotReached => counts.not_reached += 1,
            ResourceStatus::Started | ResourceStatus::Failed { .. } => counts.failed += 1,
        }
        let (row, category) = apply_row(r, apply, redactor, ph);
        categories.extend(category);
        if let ResourceStatus::Failed {
            diagnostics,
            failed_at,
            ..
        } = &r.status
        {
            denials.extend(denial_view(
                &row.address,
                &r.address,
                diagnostics,
                failed_at.as_deref(),
                redactor,
            ));
        }
        rows.push(row);
    }
    let config_errors = config_error_views(outcome, &mut categories, redactor, ph);
    let status = apply_status(&counts, &rows, !config_errors.is_empty());
    RootApply {
        project: root.project.clone(),
        dir: root.dir.clone(),
        workspace: root.workspace.clone(),
        status,
        counts,
        rows,
        advice: advice_for(&categories),
        config_errors,
        pending_enrichment: false,
        denials,
        plan: None,
    }
}

/// One resource's row, and the failure category when it failed.
fn apply_row(
    r: &ResourceOutcome,
    apply: &ApplyContext,
    redactor: &Redactor,
    ph: &mut Placeholders,
) -> (ApplyRow, Option<Category>) {
    let mut row = ApplyRow {
        address: redactor.redact_address(&r.address, ph),
        action: r.action.map(Action::as_str).unwrap_or("-").to_string(),
        result: ApplyResult::Done,
        aws_code: None,
        category_id: None,
        category_label: None,
        iam_action: None,
        deny_kind_label: None,
        location: None,
        fresh_cause: None,
    };
    let (diagnostics, failed_at) = match &r.status {
        ResourceStatus::Done => return (row, None),
        ResourceStatus::NotReached => {
            row.result = ApplyResult::NotReached;
            return (row, None);
        }
        ResourceStatus::Started => {
            row.result = ApplyResult::Interrupted;
            return (row, None);
        }
        ResourceStatus::Failed {
            diagnostics,
            failed_at,
            ..
        } => (diagnostics, failed_at.as_deref()),
    };
    row.result = ApplyResult::Failed;
    let text: Vec<String> = diagnostics.iter().map(diagnostic_text).collect();
    let ctx = context_for_failure(apply, &r.address, failed_at);
    let c = classify(&text.join("\n"), &ctx);
    row.fresh_cause = c.fresh_cause.map(|f| FreshCauseView {
        address: redactor.redact_address(&f.address, ph),
        seconds_earlier: f.seconds_earlier,
    });
    row.aws_code = safe_code(c.aws_code, redactor, ph);
    row.category_id = Some(c.category.id().to_string());
    row.category_label = Some(c.category.label().to_string());
    row.iam_action = safe_action(c.iam_action, redactor);
    row.deny_kind_label = c.deny_kind.map(|k| k.label().to_string());
    row.location = diagnostics.iter().find_map(|d| location(d, redactor, ph));
    (row, Some(c.category))
}

/// Diagnostics attached to no resource (configuration errors): file, line and category.
fn config_error_views(
    outcome: &ApplyOutcome,
    categories: &mut BTreeSet<Category>,
    redactor: &Redactor,
    ph: &mut Placeholders,
) -> Vec<ConfigErrorView> {
    outcome
        .unattached_diagnostics
        .iter()
        .map(|d| {
            let c = classify(
                &diagnostic_text(d),
                &ClassifyContext {
                    has_address: false,
                    ..Default::default()
                },
            );
            categories.insert(c.category);
            let loc = location(d, redactor, ph);
            ConfigErrorView {
                file: loc
                    .as_ref()
                    .map(|l| redactor.redact(&l.file, ph))
                    .unwrap_or_default(),
                line: loc.map(|l| l.line).unwrap_or(0),
                summary_category: c.category.label().to_string(),
            }
        })
        .collect()
}

fn apply_status(counts: &ApplyCounts, rows: &[ApplyRow], config_errors: bool) -> ApplyStatus {
    let failed_any = counts.failed > 0 || config_errors;
    if rows.iter().any(|r| r.result == ApplyResult::Interrupted) {
        ApplyStatus::Interrupted
    } else if !failed_any {
        ApplyStatus::Succeeded
    } else if counts.done > 0 {
        ApplyStatus::PartiallyFailed
    } else {
        ApplyStatus::Failed
    }
}

/// What the error text tells about a permission failure whose denied action it names (the
/// others wait for CloudTrail, see `crate::worker::enrich`).
fn denial_view(
    shown_address: &str,
    address: &str,
    diagnostics: &[Diagnostic],
    failed_at: Option<&str>,
    redactor: &Redactor,
) -> Option<EnrichmentView> {
    let failure = permission_failure(address, diagnostics, failed_at)?;
    let view = enrichment_view(
        &failure,
        shown_address,
        None,
        &EnrichmentState::Pending,
        redactor,
    );
    view.iam_action.is_some().then(|| EnrichmentView {
        // Known from the text, whatever CloudTrail may add later.
        status: crate::enrich::FROM_TEXT.to_string(),
        ..view
    })
}
