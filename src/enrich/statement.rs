//! The smallest IAM policy statement an admin could add for a denied call, PR-safe.
//!
//! Representation of `Resource` (never an ARN, account id or partition):
//! - `"<TYPE/NAME>"`: angle brackets mark a placeholder for "the ARN of this TYPE named NAME in
//!   the failing account"; the admin writes the ARN. `<instance/*>` for a wildcard resource.
//! - IAM types that carry paths (role, user, group, policy, instance-profile,
//!   server-certificate): `"<role/*NAME>"`. The denial shows the name without its path (e.g.
//!   `AWSServiceRoleForAmazonEKSNodegroup` lives under `aws-service-role/eks-nodegroup.amazonaws.com/`),
//!   and a `*` before the name matches any path (IAM's `*` spans `/`), where `role/NAME` alone
//!   would not match the real role.
//! - `"*"` when the resource is unknown.

use super::denied::DeniedCall;
use super::resource::is_pr_safe;
use serde::Serialize;

#[derive(Serialize)]
struct Statement<'a> {
    #[serde(rename = "Effect")]
    effect: &'a str,
    #[serde(rename = "Action")]
    action: &'a str,
    #[serde(rename = "Resource")]
    resource: String,
}

/// The `Resource` value for a denied call (see the module docs).
pub fn resource_pattern(call: &DeniedCall) -> String {
    let Some(resource) = call.resource() else {
        return "*".to_string();
    };
    let pattern = if resource.has_iam_path() && resource.name != "*" {
        format!("<{}/*{}>", resource.resource_type, resource.name)
    } else {
        format!("<{}/{}>", resource.resource_type, resource.name)
    };
    if is_pr_safe(&pattern) {
        pattern
    } else {
        "*".to_string()
    }
}

/// A JSON policy statement (pretty-printed) that allows the denied action on the redacted
/// resource pattern.
pub fn minimal_statement(call: &DeniedCall) -> String {
    let statement = Statement {
        effect: "Allow",
        action: &call.iam_action,
        resource: resource_pattern(call),
    };
    serde_json::to_string_pretty(&statement).expect("a statement of strings serializes")
}

/// What the admin should change, given the deny kind: an Allow only helps implicit denies.
pub fn admin_hint(call: &DeniedCall) -> String {
    match call.deny_kind {
        Some(kind) if kind.is_explicit() => format!(
            "An Allow statement will not help: the denial is an {}; that policy must change.",
            kind.label()
        ),
        Some(kind) => format!(
            "Denied because {}; an admin can add this statement to the apply role.",
            kind.label()
        ),
        None => "An admin can add this statement to the apply role.".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::DenyKind;
    use crate::enrich::denied::EnrichmentSource;
    use proptest::prelude::*;

    fn call(action: &str, resource: Option<(&str, &str)>) -> DeniedCall {
        DeniedCall {
            iam_action: action.into(),
            error_code: Some("AccessDenied".into()),
            deny_kind: Some(DenyKind::Implicit),
            resource_type: resource.map(|r| r.0.into()),
            resource_name_redacted: resource.map(|r| r.1.into()),
            source: EnrichmentSource::CloudTrail,
        }
    }

    #[test]
    fn statements_for_typical_denials() {
        let slr = call(
            "iam:GetRole",
            Some(("role", "AWSServiceRoleForAmazonEKSNodegroup")),
        );
        insta::assert_snapshot!("iam_get_role_slr", minimal_statement(&slr));
        let cases = [
            (slr.clone(), "<role/*AWSServiceRoleForAmazonEKSNodegroup>"),
            (
                call("ec2:RunInstances", Some(("instance", "*"))),
                "<instance/*>",
            ),
            (call("iam:PassRole", Some(("role", "*"))), "<role/*>"),
            (
                call("s3:PutObject", Some(("object", "b/*"))),
                "<object/b/*>",
            ),
            (call("logs:CreateLogGroup", None), "*"),
            // Never emitted even if an unsafe name slipped into a DeniedCall.
            (
                call("s3:GetObject", Some(("bucket", "logs-123456789012"))),
                "*",
            ),
            (
                call("s3:GetObject", Some(("bucket", "arn:aws:s3:::x"))),
                "*",
            ),
        ];
        for (c, want) in cases {
            assert_eq!(resource_pattern(&c), want, "{c:?}");
            let s: serde_json::Value = serde_json::from_str(&minimal_statement(&c)).unwrap();
            assert_eq!(s["Effect"], "Allow");
            assert_eq!(s["Action"], c.iam_action.as_str());
            assert_eq!(s["Resource"], want);
        }
    }

    #[test]
    fn hints_depend_on_the_deny_kind() {
        let mut c = call("ec2:RunInstances", None);
        assert!(admin_hint(&c).contains("no identity-based policy allows it"));
        c.deny_kind = Some(DenyKind::ExplicitScp);
        assert!(admin_hint(&c).starts_with("An Allow statement will not help"));
        assert!(admin_hint(&c).contains("service control policy"));
        c.deny_kind = None;
        assert!(admin_hint(&c).contains("can add"));
    }

    proptest! {
        /// Whatever resource an ARN names, the statement built from it is PR-safe.
        #[test]
        fn statements_from_any_arn_are_pr_safe(
            service in "[a-z0-9-]{1,12}",
            region in "(|[a-z]{2}-[a-z]+-[0-9])",
            account in "(|[0-9]{12})",
            resource in "[A-Za-z0-9/:*._@+=,-]{1,60}",
            extra_account in "[0-9]{12}",
        ) {
            let arn = format!("arn:aws:{service}:{region}:{account}:{resource}{extra_account}");
            if let Some(r) = crate::enrich::resource::from_arn(&arn) {
                let c = call("ec2:RunInstances", Some((&r.resource_type, &r.name)));
                let s = minimal_statement(&c);
                prop_assert!(!s.contains("arn:"), "{}", s);
                prop_assert!(!regex::Regex::new(r"\d{12}").unwrap().is_match(&s), "{}", s);
            }
        }
    }
}
