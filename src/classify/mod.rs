//! Classifies Terraform AWS-provider error texts into the fixed failure taxonomy
//! (`design/results.md`) and extracts the AWS error code, HTTP status, API operation, denied IAM
//! action, deny kind and request id. Pure: text in, data out.

mod category;
mod codes;
mod context;
mod deny;
mod extract;
mod iam_prefixes;
mod jsonl;
mod refusal;
mod rules;
mod services;
mod wording;

#[cfg(test)]
mod context_tests;
#[cfg(test)]
mod corpus_eval;
#[cfg(test)]
mod dev_set_eval;
#[cfg(test)]
mod tests;

pub use crate::model::DenyKind;
pub use category::{AdviceSubject, Category, RoleKind};
pub use context::context_for_failure;
pub use iam_prefixes::is_iam_prefix;
pub use jsonl::{classify_jsonl, ClassifyJsonlError};
pub use refusal::{sandbox_refusal, Refusal, SandboxFacts};

use serde::Serialize;

/// What the caller knows about the failing resource beyond the error text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassifyContext {
    /// The diagnostic carried a resource `address`. Without one and without any AWS error shape,
    /// the failure is Terraform rejecting the configuration (`configuration_error`).
    pub has_address: bool,
    /// The failing resource references something created earlier in this same apply.
    pub refers_to_fresh_resource: bool,
    /// Names/ids of things created in this apply; the text mentioning one counts as
    /// `refers_to_fresh_resource`.
    pub fresh_identifiers: Vec<String>,
    /// The resources created earlier in this apply, those the failing resource refers to
    /// first: what a `propagation_delay` row names (see [`context_for_failure`]).
    pub fresh_resources: Vec<FreshRef>,
}

/// A resource created earlier in the same apply, as the classifier sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FreshRef {
    /// Its address (post it only through the redactor).
    pub address: String,
    /// Its id and names (may hold ARNs: never post them).
    pub identifiers: Vec<String>,
    /// The failing resource's configuration refers to it.
    pub referenced: bool,
    /// Seconds between its creation and the failure, when the stream had timestamps.
    pub seconds_earlier: Option<u64>,
}

/// The fresh resource a possible propagation delay is put down to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FreshCause {
    pub address: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds_earlier: Option<u64>,
}

impl Default for ClassifyContext {
    /// Context-free: an address is assumed, nothing is known to be fresh.
    fn default() -> Self {
        ClassifyContext {
            has_address: true,
            refers_to_fresh_resource: false,
            fresh_identifiers: Vec::new(),
            fresh_resources: Vec::new(),
        }
    }
}

/// The result of classifying one error text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Classification {
    pub category: Category,
    /// AWS error code (`AccessDenied`, `InvalidParameterValue`, `UnauthorizedOperation` …).
    pub aws_code: Option<String>,
    /// HTTP status of the failed call.
    pub status_code: Option<u16>,
    /// The API call as an IAM-style name, e.g. `iam:GetRole` from `operation error IAM: GetRole`.
    pub operation: Option<String>,
    /// The denied IAM action as the text names it, else (for permission failures) derived from
    /// the operation.
    pub iam_action: Option<String>,
    pub deny_kind: Option<DenyKind>,
    /// Request id (equals CloudTrail `requestID`).
    pub request_id: Option<String>,
    /// The text carries an `Encoded authorization failure message` (decode with
    /// `sts:DecodeAuthorizationMessage`).
    pub encoded_authorization_message: bool,
    /// For `propagation_delay`: the resource created earlier in this apply that the failing
    /// one refers to (or whose id the text names).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fresh_cause: Option<FreshCause>,
}

/// Classifies `text` (the diagnostic summary + "\n" + detail).
pub fn classify(text: &str, ctx: &ClassifyContext) -> Classification {
    let x = extract::extract(text);
    let category = rules::decide(text, &x, ctx);
    let iam_action = deny::named_action(text)
        .or_else(|| bare_operation_action(text))
        .or_else(|| match category {
            Category::PermissionMissing => x.operation.as_deref().and_then(operation_to_action),
            _ => None,
        });
    Classification {
        category,
        aws_code: x.code.clone(),
        status_code: x.status_code,
        operation: x.operation.clone(),
        iam_action,
        deny_kind: deny::deny_kind(text),
        request_id: x.request_id.clone(),
        encoded_authorization_message: x.encoded_authorization_message,
        fresh_cause: rules::fresh_cause(category, text, ctx),
    }
}

/// `iam:GetRole` stays as it is; service operations whose IAM action is named differently are
/// renamed (`s3:HeadBucket` → `s3:ListBucket`).
fn operation_to_action(operation: &str) -> Option<String> {
    let (prefix, op) = operation.split_once(':')?;
    Some(services::iam_action_for(prefix, op))
}

/// "Not authorized to perform DescribeSecurityGroups": a bare EC2 operation relayed by a service.
fn bare_operation_action(text: &str) -> Option<String> {
    static BARE: once_cell::sync::Lazy<regex::Regex> = once_cell::sync::Lazy::new(|| {
        regex::Regex::new(
            r"(?i:not authorized to perform|permissions? to perform)\s+([A-Z][A-Za-z0-9]+)\b",
        )
        .unwrap()
    });
    let op = BARE.captures(text)?;
    services::bare_ec2_action(&op[1])
}
