//! What the result comment shows about one failure's denied call, now and after CloudTrail.

use super::denied::DeniedCall;
use super::failure::{from_text, needs_cloudtrail, FailureToEnrich};
use super::state::EnrichmentState;
use super::statement::{admin_hint, minimal_statement};
use crate::classify::DenyKind;
use serde::Serialize;

/// Shown while the CloudTrail lookup runs.
pub const CONFIRMING: &str = "confirming with CloudTrail…";
pub const CONFIRMED: &str = "confirmed by CloudTrail";
pub const FROM_TEXT: &str = "from the error text";
pub const FROM_DECODED: &str = "from the decoded authorization message";

/// PR-safe facts about one failure's denial, for the result comment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EnrichmentView {
    pub address: String,
    pub iam_action: Option<String>,
    pub deny_kind: Option<DenyKind>,
    /// `role AWSServiceRoleForAmazonEKSNodegroup`.
    pub resource: Option<String>,
    /// From [`minimal_statement`], when the action is known.
    pub statement: Option<String>,
    pub hint: Option<String>,
    /// `confirming with CloudTrail…`, `confirmed by CloudTrail`, or a give-up note.
    pub status: String,
}

/// Merges what is known, best source first: CloudTrail, then the decoded message, then the
/// SDK text; a better source's missing fields are filled from the others.
pub fn enrichment_view(
    failure: &FailureToEnrich,
    decoded: Option<&DeniedCall>,
    state: &EnrichmentState,
) -> EnrichmentView {
    let text = from_text(failure);
    let found = match state {
        EnrichmentState::Found(call) => Some(call),
        _ => None,
    };
    let sources: Vec<&DeniedCall> = [found, decoded, text.as_ref()]
        .into_iter()
        .flatten()
        .collect();
    let merged = sources.first().map(|best| {
        let mut call = (*best).clone();
        for other in &sources[1..] {
            call.deny_kind = call.deny_kind.or(other.deny_kind);
            call.error_code = call.error_code.clone().or(other.error_code.clone());
            if call.resource().is_none() && other.iam_action == call.iam_action {
                call.resource_type.clone_from(&other.resource_type);
                call.resource_name_redacted
                    .clone_from(&other.resource_name_redacted);
            }
        }
        call
    });
    let status = match state {
        EnrichmentState::Found(_) => CONFIRMED.to_string(),
        EnrichmentState::Pending if needs_cloudtrail(failure, decoded) => CONFIRMING.to_string(),
        EnrichmentState::Pending if decoded.is_some() => FROM_DECODED.to_string(),
        EnrichmentState::Pending => FROM_TEXT.to_string(),
        EnrichmentState::GaveUp { note } => note.clone(),
    };
    EnrichmentView {
        address: failure.address.clone(),
        iam_action: merged.as_ref().map(|c| c.iam_action.clone()),
        deny_kind: merged.as_ref().and_then(|c| c.deny_kind),
        resource: merged
            .as_ref()
            .and_then(DeniedCall::resource)
            .map(|r| format!("{} {}", r.resource_type, r.name)),
        statement: merged.as_ref().map(minimal_statement),
        hint: merged.as_ref().map(admin_hint),
        status,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::enrich::denied::EnrichmentSource;
    use crate::enrich::state::GaveUpReason;

    fn bare() -> FailureToEnrich {
        FailureToEnrich {
            address: "aws_instance.web".into(),
            aws_code: Some("UnauthorizedOperation".into()),
            failed_at: "2024-08-01T11:30:24Z".into(),
            ..FailureToEnrich::default()
        }
    }

    fn run_instances() -> DeniedCall {
        DeniedCall {
            iam_action: "ec2:RunInstances".into(),
            error_code: Some("UnauthorizedOperation".into()),
            deny_kind: Some(DenyKind::Implicit),
            resource_type: Some("instance".into()),
            resource_name_redacted: Some("*".into()),
            source: EnrichmentSource::CloudTrail,
        }
    }

    #[test]
    fn bare_failure_first_says_confirming_then_names_the_action() {
        let first = enrichment_view(&bare(), None, &EnrichmentState::Pending);
        assert_eq!(first.status, CONFIRMING);
        assert_eq!(first.iam_action, None);
        assert_eq!(first.statement, None);

        let after = enrichment_view(&bare(), None, &EnrichmentState::Found(run_instances()));
        assert_eq!(after.status, CONFIRMED);
        assert_eq!(after.iam_action.as_deref(), Some("ec2:RunInstances"));
        assert_eq!(after.resource.as_deref(), Some("instance *"));
        insta::assert_json_snapshot!("bare_failure_after_cloudtrail", after);
    }

    #[test]
    fn text_facts_fill_in_and_give_up_keeps_them() {
        let f = FailureToEnrich {
            text_iam_action: Some("iam:GetRole".into()),
            permission_missing: true,
            ..bare()
        };
        let gave_up = EnrichmentState::gave_up(GaveUpReason::NoMatchingEvent);
        let v = enrichment_view(&f, None, &gave_up);
        assert_eq!(v.iam_action.as_deref(), Some("iam:GetRole"));
        assert_eq!(v.status, GaveUpReason::NoMatchingEvent.note());

        // CloudTrail without wording: the deny kind from the text stays.
        let f = FailureToEnrich {
            text_deny_kind: Some(DenyKind::ExplicitScp),
            ..f
        };
        let mut ct = run_instances();
        ct.iam_action = "iam:GetRole".into();
        ct.deny_kind = None;
        let v = enrichment_view(&f, None, &EnrichmentState::Found(ct));
        assert_eq!(v.deny_kind, Some(DenyKind::ExplicitScp));
    }

    #[test]
    fn complete_text_needs_no_cloudtrail() {
        let f = FailureToEnrich {
            text_iam_action: Some("iam:GetRole".into()),
            text_deny_kind: Some(DenyKind::Implicit),
            aws_code: Some("AccessDenied".into()),
            ..bare()
        };
        let v = enrichment_view(&f, None, &EnrichmentState::Pending);
        assert_eq!(v.status, FROM_TEXT);
        let mut decoded = run_instances();
        decoded.source = EnrichmentSource::DecodedMessage;
        let v = enrichment_view(&bare(), Some(&decoded), &EnrichmentState::Pending);
        assert_eq!(v.status, FROM_DECODED);
        assert_eq!(v.iam_action.as_deref(), Some("ec2:RunInstances"));
        decoded.deny_kind = None;
        let v = enrichment_view(&bare(), Some(&decoded), &EnrichmentState::Pending);
        assert_eq!(v.status, CONFIRMING);
    }
}
