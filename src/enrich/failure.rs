//! A failed resource whose denied action may need looking up, and what its error text told.

use super::denied::{
    clean_action, is_denial_code, normalize_error_code, DeniedCall, EnrichmentSource,
};
use super::resource::RedactedResource;
use super::time::UnixSeconds;
use crate::classify::DenyKind;
use serde::{Deserialize, Serialize};

/// What the classifier learnt about one failed resource (fill from `classify::Classification`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct FailureToEnrich {
    /// Terraform resource address (`aws_instance.web`).
    pub address: String,
    /// The category was `permission_missing`.
    pub permission_missing: bool,
    /// AWS error code from the text (`UnauthorizedOperation`, `AccessDenied` …).
    pub aws_code: Option<String>,
    /// The API call as `prefix:Operation` when the SDK text named it (`ec2:RunInstances`).
    pub operation: Option<String>,
    /// Request id from the text; equals CloudTrail's `requestID`.
    pub request_id: Option<String>,
    /// When the call failed, RFC 3339 (the diagnostic's `@timestamp`).
    pub failed_at: String,
    /// The opaque blob after `Encoded authorization failure message:` (the caller extracts it).
    pub encoded_message: Option<String>,
    /// The denied IAM action as the text names it.
    pub text_iam_action: Option<String>,
    /// The deny kind as the text words it.
    pub text_deny_kind: Option<DenyKind>,
    /// The denied resource as the text words it (`on resource: role NAME`), redacted.
    #[serde(default)]
    pub text_resource: Option<RedactedResource>,
}

impl FailureToEnrich {
    pub fn failed_at_time(&self) -> Option<UnixSeconds> {
        UnixSeconds::parse_rfc3339(&self.failed_at)
    }

    /// `ec2:RunInstances` → `RunInstances` (CloudTrail's `eventName`).
    pub fn operation_name(&self) -> Option<&str> {
        let op = self.operation.as_deref()?.trim();
        let name = op.split_once(':').map_or(op, |(_, n)| n);
        (!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric())).then_some(name)
    }

    fn is_denial(&self) -> bool {
        self.permission_missing || self.aws_code.as_deref().is_some_and(is_denial_code)
    }
}

/// True for a permission failure (category or denial code) whose text does not name both the
/// denied action and the deny kind.
pub fn needs_enrichment(failure: &FailureToEnrich) -> bool {
    let action_known = failure
        .text_iam_action
        .as_deref()
        .and_then(clean_action)
        .is_some();
    failure.is_denial() && !(action_known && failure.text_deny_kind.is_some())
}

/// Whether to look the failure up in CloudTrail (step (c)): it needs enrichment and the decoded
/// authorization message (if any) did not name both the action and the deny kind.
pub fn needs_cloudtrail(failure: &FailureToEnrich, decoded: Option<&DeniedCall>) -> bool {
    needs_enrichment(failure) && !decoded.is_some_and(|d| d.deny_kind.is_some())
}

/// What the SDK text alone tells (step (a)): the denied action, when the text names it.
pub fn from_text(failure: &FailureToEnrich) -> Option<DeniedCall> {
    if !failure.is_denial() {
        return None;
    }
    Some(DeniedCall {
        iam_action: clean_action(failure.text_iam_action.as_deref()?)?,
        error_code: failure.aws_code.as_deref().map(normalize_error_code),
        deny_kind: failure.text_deny_kind,
        resource_type: failure
            .text_resource
            .as_ref()
            .map(|r| r.resource_type.clone()),
        resource_name_redacted: failure.text_resource.as_ref().map(|r| r.name.clone()),
        source: EnrichmentSource::SdkText,
    })
}

/// Whether to call `sts:DecodeAuthorizationMessage` (step (b)): there is a blob of a plausible
/// size and the read role may call it.
pub fn should_decode(failure: &FailureToEnrich, read_role_may_decode: bool) -> bool {
    read_role_may_decode
        && failure
            .encoded_message
            .as_deref()
            .is_some_and(|m| (16..=10_240).contains(&m.trim().len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure() -> FailureToEnrich {
        FailureToEnrich {
            address: "aws_instance.web".into(),
            aws_code: Some("UnauthorizedOperation".into()),
            failed_at: "2024-08-01T11:30:23Z".into(),
            ..FailureToEnrich::default()
        }
    }

    #[test]
    fn which_failures_need_enrichment() {
        let bare = failure();
        let with_action = FailureToEnrich {
            text_iam_action: Some("ec2:RunInstances".into()),
            ..failure()
        };
        let complete = FailureToEnrich {
            text_deny_kind: Some(DenyKind::Implicit),
            ..with_action.clone()
        };
        let eks_slr = FailureToEnrich {
            aws_code: Some("InvalidRequestException".into()),
            permission_missing: true,
            text_iam_action: Some("iam:GetRole".into()),
            ..failure()
        };
        let not_permission = FailureToEnrich {
            aws_code: Some("InvalidParameterValue".into()),
            ..failure()
        };
        let no_code_category_only = FailureToEnrich {
            aws_code: None,
            permission_missing: true,
            ..failure()
        };
        let cases = [
            ("bare UnauthorizedOperation", &bare, true),
            ("action but no deny kind", &with_action, true),
            ("action and deny kind", &complete, false),
            ("EKS SLR text names iam:GetRole only", &eks_slr, true),
            ("not a permission failure", &not_permission, false),
            ("category without code", &no_code_category_only, true),
        ];
        for (name, f, want) in cases {
            assert_eq!(needs_enrichment(f), want, "{name}");
        }
    }

    #[test]
    fn text_alone_gives_a_denied_call_when_it_names_the_action() {
        assert_eq!(from_text(&failure()), None);
        let f = FailureToEnrich {
            text_iam_action: Some("IAM:GetRole".into()),
            text_deny_kind: Some(DenyKind::ExplicitScp),
            ..failure()
        };
        let call = from_text(&f).unwrap();
        assert_eq!(call.iam_action, "iam:GetRole");
        assert_eq!(call.deny_kind, Some(DenyKind::ExplicitScp));
        assert_eq!(call.error_code.as_deref(), Some("UnauthorizedOperation"));
        assert_eq!(call.source, EnrichmentSource::SdkText);
    }

    #[test]
    fn operation_name_and_time() {
        let f = FailureToEnrich {
            operation: Some("ec2:RunInstances".into()),
            ..failure()
        };
        assert_eq!(f.operation_name(), Some("RunInstances"));
        assert_eq!(f.failed_at_time(), Some(UnixSeconds(1_722_511_823)));
        let f = FailureToEnrich {
            operation: Some("ec2:".into()),
            failed_at: "yesterday".into(),
            ..failure()
        };
        assert_eq!(f.operation_name(), None);
        assert_eq!(f.failed_at_time(), None);
    }

    #[test]
    fn decode_only_with_permission_and_a_blob() {
        let blob = "T-kSWIRFabcdefghijklmnopqrstuvwxyz".to_string();
        let f = FailureToEnrich {
            encoded_message: Some(blob),
            ..failure()
        };
        assert!(should_decode(&f, true));
        assert!(!should_decode(&f, false));
        assert!(!should_decode(&failure(), true));
        let huge = FailureToEnrich {
            encoded_message: Some("x".repeat(10_241)),
            ..failure()
        };
        assert!(!should_decode(&huge, true));
    }
}
