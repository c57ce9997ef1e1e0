//! Which failures of an apply need enrichment: permission failures whose denied action (or
//! deny kind) the error text does not name. Pure.

use crate::classify::{classify, Category, ClassifyContext};
use crate::terraform::{ApplyOutcome, Diagnostic, ResourceStatus, Severity, UiStream};

use super::resource::from_denial_message;
use super::FailureToEnrich;

/// The blob after "Encoded authorization failure message:", if any.
pub fn encoded_message(text: &str) -> Option<String> {
    const MARK: &str = "Encoded authorization failure message:";
    let rest = text.split_once(MARK)?.1.trim_start();
    let blob: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || "-_=+/".contains(*c))
        .collect();
    (!blob.is_empty()).then_some(blob)
}

/// Permission failures of an apply, as enrichment inputs (only those that need it).
pub fn failures_from_apply(outcome: &ApplyOutcome) -> Vec<FailureToEnrich> {
    outcome
        .resources
        .iter()
        .filter_map(|r| match &r.status {
            ResourceStatus::Failed {
                diagnostics,
                failed_at,
                ..
            } => permission_failure(&r.address, diagnostics, failed_at.as_deref()),
            _ => None,
        })
        .filter(super::needs_enrichment)
        .collect()
}

/// Permission failures of a plan (its error diagnostics, each at its `@timestamp`), as
/// enrichment inputs (only those that need it).
pub fn failures_from_plan(stream: &UiStream) -> Vec<FailureToEnrich> {
    stream
        .diagnostics()
        .filter(|(_, d)| d.severity == Severity::Error)
        .filter_map(|(meta, d)| {
            let address = d.address.as_deref().unwrap_or_default();
            permission_failure(address, std::slice::from_ref(d), meta.timestamp.as_deref())
        })
        .filter(super::needs_enrichment)
        .collect()
}

/// One failed resource as an enrichment input, when its failure is a permission failure (by
/// category or by denial code).
pub fn permission_failure(
    address: &str,
    diagnostics: &[Diagnostic],
    failed_at: Option<&str>,
) -> Option<FailureToEnrich> {
    let text: Vec<String> = diagnostics
        .iter()
        .map(|d| format!("{}\n{}", d.summary, d.detail))
        .collect();
    let text = text.join("\n");
    let c = classify(&text, &ClassifyContext::default());
    let permission_missing = c.category == Category::PermissionMissing;
    let denial_code = c.aws_code.as_deref().is_some_and(super::is_denial_code);
    (permission_missing || denial_code).then(|| FailureToEnrich {
        address: address.to_string(),
        permission_missing,
        aws_code: c.aws_code.clone(),
        operation: c.operation.clone(),
        request_id: c.request_id.clone(),
        failed_at: failed_at.unwrap_or_default().to_string(),
        encoded_message: encoded_message(&text),
        text_iam_action: c.iam_action.clone(),
        text_deny_kind: c.deny_kind,
        text_resource: from_denial_message(&text),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terraform::{apply_outcome, parse_ui_stream};

    #[test]
    fn encoded_message_is_extracted() {
        let t = "UnauthorizedOperation: You are not authorized to perform this operation. Encoded authorization failure message: Ab-9_x=\n\tstatus code: 403";
        assert_eq!(encoded_message(t).as_deref(), Some("Ab-9_x="));
        assert_eq!(encoded_message("AccessDenied"), None);
    }

    #[test]
    fn named_action_needs_no_enrichment_but_bare_code_does() {
        let named = include_str!("../../tests/fixtures/tf-real/apply.jsonl");
        let o = apply_outcome(&parse_ui_stream(named).unwrap(), &[]);
        assert!(
            failures_from_apply(&o).is_empty(),
            "iam:GetRole is in the text"
        );
        let bare = named.replace(
            "unable to get role (XPTO): AccessDenied: User: arn:aws:sts::xxx:assumed-role/XPTO/myemail@company.com is not authorized to perform: iam:GetRole on resource: role XPTO with an explicit deny in an identity-based policy",
            "creating EC2 Instance: UnauthorizedOperation: You are not authorized to perform this operation.",
        );
        assert_ne!(bare, named);
        let o = apply_outcome(&parse_ui_stream(&bare).unwrap(), &[]);
        let f = failures_from_apply(&o);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].address, "fake_thing.role");
        assert!(f[0].permission_missing && f[0].text_iam_action.is_none());
        assert!(!f[0].failed_at.is_empty());
    }
}
