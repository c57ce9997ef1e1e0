//! `sts:DecodeAuthorizationMessage`'s `DecodedMessage` → the denied call.
//!
//! The JSON shape is observed, not specified (design/formats.md §4): `{"allowed":false,
//! "explicitDeny":bool, "matchedStatements":{"items":[…]}, "failures":{"items":[]},
//! "context":{"principal":{…}, "action", "resource", "conditions":{…}}}`. Best effort: the
//! kind of an explicit deny is read from whatever the matched statements say about their
//! source policy, else it is `ExplicitOther`.

use super::denied::{clean_action, DeniedCall, EnrichmentSource};
use super::resource::{from_arn, from_denial_resource_text};
use crate::classify::DenyKind;
use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct DecodedMessage {
    allowed: Option<bool>,
    explicit_deny: Option<bool>,
    matched_statements: Option<Value>,
    context: Option<DecodedContext>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct DecodedContext {
    action: Option<String>,
    resource: Option<String>,
}

/// The denied call in a decoded authorization message; `None` when the JSON is not of that
/// shape, names no action, or says the request was allowed.
pub fn parse_decoded_authorization_message(json: &str) -> Option<DeniedCall> {
    let message: DecodedMessage = serde_json::from_str(json).ok()?;
    if message.allowed == Some(true) {
        return None;
    }
    let context = message.context?;
    let iam_action = clean_action(context.action.as_deref()?)?;
    let resource = context.resource.as_deref().and_then(|r| {
        if r.starts_with("arn:") {
            from_arn(r)
        } else {
            from_denial_resource_text(r)
        }
    });
    let deny_kind = match message.explicit_deny {
        Some(true) => Some(explicit_kind(message.matched_statements.as_ref())),
        Some(false) => Some(DenyKind::Implicit),
        None => None,
    };
    let (resource_type, resource_name_redacted) = match resource {
        Some(r) => (Some(r.resource_type), Some(r.name)),
        None => (None, None),
    };
    Some(DeniedCall {
        iam_action,
        error_code: None,
        deny_kind,
        resource_type,
        resource_name_redacted,
        source: EnrichmentSource::DecodedMessage,
    })
}

/// Looks through the matched statements' string values for a policy-type hint.
fn explicit_kind(matched: Option<&Value>) -> DenyKind {
    let mut texts = Vec::new();
    if let Some(v) = matched {
        collect_hints(v, &mut texts);
    }
    let has = |needle: &str| texts.iter().any(|t| t.contains(needle));
    if has("service control") || has("servicecontrol") || has("organizations") || has("scp") {
        DenyKind::ExplicitScp
    } else if has("resource control") || has("resourcecontrol") || has("rcp") {
        DenyKind::ExplicitRcp
    } else if has("boundary") {
        DenyKind::ExplicitPermissionsBoundary
    } else if has("session") {
        DenyKind::ExplicitSessionPolicy
    } else {
        DenyKind::ExplicitOther
    }
}

/// Lower-cased values of keys that describe the statement's source policy.
fn collect_hints(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                let key_lower = key.to_ascii_lowercase();
                let is_hint_key = key_lower.contains("policytype")
                    || key_lower.contains("sourcepolicy")
                    || key_lower == "source";
                match v {
                    Value::String(s) if is_hint_key => out.push(s.to_ascii_lowercase()),
                    _ => collect_hints(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_hints(v, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXPLICIT: &str =
        include_str!("../../tests/fixtures/cloudtrail/decoded-explicit-deny.json");
    const IMPLICIT: &str =
        include_str!("../../tests/fixtures/cloudtrail/decoded-implicit-deny.json");

    #[test]
    fn explicit_deny_without_source_hint() {
        let call = parse_decoded_authorization_message(EXPLICIT).unwrap();
        assert_eq!(call.iam_action, "ec2:RunInstances");
        assert_eq!(call.deny_kind, Some(DenyKind::ExplicitOther));
        assert_eq!(call.resource_type.as_deref(), Some("instance"));
        assert_eq!(call.resource_name_redacted.as_deref(), Some("*"));
        assert_eq!(call.source, EnrichmentSource::DecodedMessage);
        assert!(call.is_pr_safe());
    }

    #[test]
    fn implicit_deny_drops_the_iam_path() {
        let call = parse_decoded_authorization_message(IMPLICIT).unwrap();
        assert_eq!(call.iam_action, "iam:PassRole");
        assert_eq!(call.deny_kind, Some(DenyKind::Implicit));
        assert_eq!(call.resource_type.as_deref(), Some("role"));
        assert_eq!(call.resource_name_redacted.as_deref(), Some("eks-node"));
    }

    #[test]
    fn explicit_deny_kinds_from_statement_hints() {
        let cases = [
            (
                r#"{"items":[{"sourcePolicyType":"ServiceControlPolicy"}]}"#,
                DenyKind::ExplicitScp,
            ),
            (
                r#"{"items":[{"sourcePolicyType":"PermissionsBoundary"}]}"#,
                DenyKind::ExplicitPermissionsBoundary,
            ),
            (
                r#"{"items":[{"source":{"policyType":"Session Policy"}}]}"#,
                DenyKind::ExplicitSessionPolicy,
            ),
            (
                r#"{"items":[{"sourcePolicyType":"ResourceControlPolicy"}]}"#,
                DenyKind::ExplicitRcp,
            ),
            // A statement id mentioning a boundary is not a source hint.
            (
                r#"{"items":[{"statementId":"boundary-scp"}]}"#,
                DenyKind::ExplicitOther,
            ),
        ];
        for (matched, want) in cases {
            let json = format!(
                r#"{{"allowed":false,"explicitDeny":true,"matchedStatements":{matched},"context":{{"action":"s3:PutObject","resource":"arn:aws:s3:::b/k"}}}}"#
            );
            let call = parse_decoded_authorization_message(&json).unwrap();
            assert_eq!(call.deny_kind, Some(want), "{matched}");
            assert_eq!(call.resource_type.as_deref(), Some("object"));
        }
    }

    #[test]
    fn rejects_other_shapes() {
        let cases = [
            "not json",
            "{}",
            r#"{"allowed":true,"context":{"action":"ec2:RunInstances"}}"#,
            r#"{"allowed":false,"context":{"action":"RunInstances"}}"#,
            r#"{"allowed":false,"context":{"resource":"*"}}"#,
        ];
        for json in cases {
            assert_eq!(parse_decoded_authorization_message(json), None, "{json}");
        }
        let no_kind = parse_decoded_authorization_message(
            r#"{"allowed":false,"context":{"action":"ec2:RunInstances"}}"#,
        )
        .unwrap();
        assert_eq!(no_kind.deny_kind, None);
        assert_eq!(no_kind.resource_type, None);
    }
}
