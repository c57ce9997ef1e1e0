//! The denied call, as found in the SDK text, a decoded authorization message or CloudTrail.

use super::resource::{is_pr_safe, RedactedResource};
use crate::classify::DenyKind;
use serde::{Deserialize, Serialize};

/// Where the denied action was learnt from (in the order they are tried).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EnrichmentSource {
    /// The error text the SDK returned.
    SdkText,
    /// `sts:DecodeAuthorizationMessage` on the encoded authorization failure message.
    DecodedMessage,
    /// The CloudTrail record of the denied call.
    CloudTrail,
}

/// The denied IAM action and what is known about the denial. Every string field is PR-safe: no
/// ARN, account id or IP address (checked by [`DeniedCall::is_pr_safe`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeniedCall {
    /// `ec2:RunInstances`, `iam:GetRole`.
    pub iam_action: String,
    /// The AWS error code as SDKs show it (`UnauthorizedOperation`, not CloudTrail's
    /// `Client.UnauthorizedOperation`), when known.
    pub error_code: Option<String>,
    pub deny_kind: Option<DenyKind>,
    /// `role`, `instance` … (see [`RedactedResource`]).
    pub resource_type: Option<String>,
    /// The resource name without path, account id or ARN; `*` for a wildcard.
    pub resource_name_redacted: Option<String>,
    pub source: EnrichmentSource,
}

impl DeniedCall {
    pub fn resource(&self) -> Option<RedactedResource> {
        Some(RedactedResource {
            resource_type: self.resource_type.clone()?,
            name: self.resource_name_redacted.clone()?,
        })
    }

    /// True when no field carries an ARN, account id or IP address.
    pub fn is_pr_safe(&self) -> bool {
        let texts = [
            Some(self.iam_action.as_str()),
            self.error_code.as_deref(),
            self.resource_type.as_deref(),
            self.resource_name_redacted.as_deref(),
        ];
        texts.into_iter().flatten().all(is_pr_safe)
    }
}

/// CloudTrail's EC2 code `Client.UnauthorizedOperation` → `UnauthorizedOperation`.
pub fn normalize_error_code(code: &str) -> String {
    let code = code.trim();
    code.strip_prefix("Client.")
        .or_else(|| code.strip_prefix("Server."))
        .unwrap_or(code)
        .to_string()
}

/// Codes of a permission denial (after [`normalize_error_code`]).
pub const DENIAL_CODES: &[&str] = &[
    "AccessDenied",
    "AccessDeniedException",
    "UnauthorizedOperation",
    "UnauthorizedAccess",
    "AuthorizationError",
    "Forbidden",
];

pub fn is_denial_code(code: &str) -> bool {
    DENIAL_CODES.contains(&normalize_error_code(code).as_str())
}

/// An IAM action as `prefix:Name`, PR-safe; anything else is rejected.
pub fn clean_action(action: &str) -> Option<String> {
    let action = action.trim().trim_end_matches(['.', ',']);
    let (prefix, name) = action.split_once(':')?;
    let prefix_ok = !prefix.is_empty()
        && prefix
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-');
    let name_ok = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '*');
    (prefix_ok && name_ok).then(|| format!("{}:{name}", prefix.to_ascii_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_codes_normalize_and_classify() {
        let cases = [
            (
                "Client.UnauthorizedOperation",
                "UnauthorizedOperation",
                true,
            ),
            ("UnauthorizedOperation", "UnauthorizedOperation", true),
            ("AccessDenied", "AccessDenied", true),
            ("AccessDeniedException", "AccessDeniedException", true),
            (
                "Client.InvalidParameterValue",
                "InvalidParameterValue",
                false,
            ),
            ("ThrottlingException", "ThrottlingException", false),
        ];
        for (code, normalized, denial) in cases {
            assert_eq!(normalize_error_code(code), normalized);
            assert_eq!(is_denial_code(code), denial, "{code}");
        }
    }

    #[test]
    fn actions_are_cleaned() {
        assert_eq!(
            clean_action("EC2:RunInstances.").as_deref(),
            Some("ec2:RunInstances")
        );
        assert_eq!(clean_action("s3:*").as_deref(), Some("s3:*"));
        assert_eq!(clean_action("arn:aws:iam::1:role/x"), None);
        assert_eq!(clean_action("RunInstances"), None);
        assert_eq!(clean_action("ec2:Run Instances"), None);
    }

    #[test]
    fn pr_safety_covers_every_field() {
        let mut call = DeniedCall {
            iam_action: "iam:GetRole".into(),
            error_code: Some("AccessDenied".into()),
            deny_kind: Some(DenyKind::Implicit),
            resource_type: Some("role".into()),
            resource_name_redacted: Some("AWSServiceRoleForAmazonEKSNodegroup".into()),
            source: EnrichmentSource::CloudTrail,
        };
        assert!(call.is_pr_safe());
        call.resource_name_redacted = Some("x-123456789012".into());
        assert!(!call.is_pr_safe());
    }
}
