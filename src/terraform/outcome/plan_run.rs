//! Whether a `plan -json` run succeeded, its errors, and what it plans.

use serde::Serialize;

use super::apply_outcome::PlannedChangeRef;
use crate::terraform::diagnostic::{Diagnostic, Severity};
use crate::terraform::ui_events::{ChangeSummary, ResourceChangeEvent};
use crate::terraform::ui_stream::{UiMessage, UiStream};

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PlanRunOutcome {
    /// No error diagnostic, and Terraform printed the plan's `change_summary`.
    pub succeeded: bool,
    /// Error diagnostics, addressed or not.
    pub errors: Vec<Diagnostic>,
    pub warnings: Vec<Diagnostic>,
    pub change_summary: Option<ChangeSummary>,
    /// `planned_change` messages with a known action, in order.
    pub planned_changes: Vec<PlannedChangeRef>,
    /// `resource_drift` messages with a known action, in order.
    pub drift: Vec<PlannedChangeRef>,
    pub non_json_lines: usize,
}

impl PlanRunOutcome {
    pub fn has_changes(&self) -> bool {
        !self.planned_changes.is_empty()
    }
}

pub fn plan_run_outcome(stream: &UiStream) -> PlanRunOutcome {
    let mut outcome = PlanRunOutcome::default();
    let to_ref = |change: &ResourceChangeEvent| {
        change.action().map(|action| PlannedChangeRef {
            address: change.resource.addr.clone(),
            action,
        })
    };
    for message in &stream.messages {
        match message {
            UiMessage::Diagnostic { diagnostic, .. } => match diagnostic.severity {
                Severity::Error => outcome.errors.push(diagnostic.clone()),
                Severity::Warning | Severity::Unknown => outcome.warnings.push(diagnostic.clone()),
            },
            UiMessage::ChangeSummary { changes, .. } => {
                outcome.change_summary = Some(changes.clone());
            }
            UiMessage::PlannedChange { change, .. } => {
                outcome.planned_changes.extend(to_ref(change));
            }
            UiMessage::ResourceDrift { change, .. } => outcome.drift.extend(to_ref(change)),
            UiMessage::NonJson { .. } => outcome.non_json_lines += 1,
            _ => {}
        }
    }
    outcome.succeeded = outcome.errors.is_empty() && outcome.change_summary.is_some();
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terraform::outcome::Action;
    use crate::terraform::ui_stream::parse_ui_stream;

    const VERSION: &str = r#"{"@level":"info","@message":"Terraform 1.9.0","type":"version","terraform":"1.9.0","ui":"1.2"}"#;

    fn run(lines: &[&str]) -> PlanRunOutcome {
        let text = std::iter::once(VERSION)
            .chain(lines.iter().copied())
            .collect::<Vec<_>>()
            .join("\n");
        plan_run_outcome(&parse_ui_stream(&text).unwrap())
    }

    #[test]
    fn successful_plan_with_drift() {
        let outcome = run(&[
            r#"{"type":"resource_drift","@message":"x","change":{"resource":{"addr":"aws_s3_bucket.b"},"action":"update"}}"#,
            r#"{"type":"planned_change","@message":"x","change":{"resource":{"addr":"aws_s3_bucket.b"},"action":"update"}}"#,
            r#"{"type":"planned_change","@message":"x","change":{"resource":{"addr":"aws_iam_role.r"},"action":"replace","reason":"tainted"}}"#,
            r#"{"type":"change_summary","@message":"x","changes":{"add":1,"change":1,"remove":1,"operation":"plan"}}"#,
        ]);
        assert!(outcome.succeeded);
        assert!(outcome.has_changes());
        assert_eq!(
            outcome.planned_changes,
            vec![
                PlannedChangeRef {
                    address: "aws_s3_bucket.b".into(),
                    action: Action::Update
                },
                PlannedChangeRef {
                    address: "aws_iam_role.r".into(),
                    action: Action::Replace
                },
            ]
        );
        assert_eq!(outcome.drift.len(), 1);
        assert_eq!(outcome.change_summary.unwrap().remove, 1);
    }

    #[test]
    fn addressed_error_fails_the_plan() {
        let outcome = run(&[
            r#"{"type":"diagnostic","@level":"error","@message":"Error: x","diagnostic":{"severity":"error","summary":"reading IAM Role: AccessDenied","detail":"","address":"aws_iam_role.r"}}"#,
        ]);
        assert!(!outcome.succeeded);
        assert_eq!(outcome.errors[0].address.as_deref(), Some("aws_iam_role.r"));
        assert!(outcome.change_summary.is_none());
    }

    #[test]
    fn crash_without_summary_is_not_success() {
        let outcome = run(&["panic: runtime error: invalid memory address", ""]);
        assert!(!outcome.succeeded);
        assert!(outcome.errors.is_empty());
        assert_eq!(outcome.non_json_lines, 1);
    }

    #[test]
    fn real_plan_logs() {
        use crate::terraform::test_fixtures::fixture;
        let outcome_of = |name: &str| plan_run_outcome(&parse_ui_stream(fixture(name)).unwrap());
        let error = outcome_of("hashicorp-terraform__plan-json-error__plan.log");
        assert!(!error.succeeded);
        assert_eq!(error.errors.len(), 1);
        assert_eq!(error.errors[0].address, None);
        assert_eq!(error.errors[0].range.as_ref().unwrap().filename, "main.tf");
        let full = outcome_of("hashicorp-terraform__plan-json-full__plan.log");
        assert!(full.succeeded);
        let actions: Vec<Action> = full.planned_changes.iter().map(|p| p.action).collect();
        assert_eq!(actions, vec![Action::Update, Action::Create]);
        // policy_* lines (one at @level error) neither fail the plan nor count as errors.
        let policy = outcome_of("hashicorp-terraform__plan-json-policy__plan.log");
        assert!(policy.succeeded && policy.errors.is_empty());
        assert_eq!(policy.planned_changes[0].address, "null_resource.foo");
    }

    #[test]
    fn no_changes_plan_succeeds_without_changes() {
        let outcome = run(&[
            r#"{"type":"diagnostic","@level":"warn","@message":"Warning: x","diagnostic":{"severity":"warning","summary":"deprecated","detail":""}}"#,
            r#"{"type":"change_summary","@message":"No changes.","changes":{"add":0,"change":0,"remove":0,"operation":"plan"}}"#,
        ]);
        assert!(outcome.succeeded);
        assert!(!outcome.has_changes());
        assert_eq!(outcome.warnings.len(), 1);
    }
}
