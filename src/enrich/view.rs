//! What the result comment shows about one failure's denied call, now and after CloudTrail.

use super::denied::{DeniedCall, EnrichmentSource};
use super::failure::{from_text, needs_cloudtrail, FailureToEnrich};
use super::pr_safe::safe_action;
use super::state::EnrichmentState;
use super::statement::{admin_hint, minimal_statement};
use crate::model::view::EnrichmentView;
use crate::redact::{Placeholders, Redactor};

/// Shown while the CloudTrail lookup runs.
pub const CONFIRMING: &str = "confirming with CloudTrail…";
pub const CONFIRMED: &str = "confirmed by CloudTrail";
pub const FROM_TEXT: &str = "from the error text";
pub const FROM_DECODED: &str = "from the decoded authorization message";

impl EnrichmentView {
    /// The same view for a plan-time denial: the statement goes to the plan role.
    pub fn for_plan_role(mut self) -> Self {
        if let Some(h) = &self.hint {
            self.hint = Some(h.replace("to the apply role.", "to the plan role."));
        }
        self
    }
}

/// Merges what is known, best source first: CloudTrail, then the decoded message, then the
/// SDK text; a better source's missing fields are filled from the others. `shown_address` is
/// the failure's address as the comment shows it; the resource name is dropped (the statement
/// then says `"*"`) unless it is a plain IAM-style name that `redactor` leaves alone, and an
/// action that is not a known `service:Action` is dropped.
pub fn enrichment_view(
    failure: &FailureToEnrich,
    shown_address: &str,
    decoded: Option<&DeniedCall>,
    state: &EnrichmentState,
    redactor: &Redactor,
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
    let merged = merged.and_then(|call| pr_safe(call, redactor));
    let status = match state {
        EnrichmentState::Found(_) => CONFIRMED.to_string(),
        EnrichmentState::Pending if needs_cloudtrail(failure, decoded) => CONFIRMING.to_string(),
        EnrichmentState::Pending if decoded.is_some() => FROM_DECODED.to_string(),
        EnrichmentState::Pending => FROM_TEXT.to_string(),
        EnrichmentState::GaveUp { note } => note.clone(),
    };
    EnrichmentView {
        address: shown_address.to_string(),
        iam_action: merged.as_ref().map(|c| c.iam_action.clone()),
        deny_kind: merged.as_ref().and_then(|c| c.deny_kind),
        deny_kind_label: merged
            .as_ref()
            .and_then(|c| c.deny_kind)
            .map(|k| k.label().to_string()),
        resource: merged
            .as_ref()
            .and_then(DeniedCall::resource)
            .map(|r| match r.name.as_str() {
                NAME_IN_RUN_LOG => format!("{} (name in the run log)", r.resource_type),
                name => format!("{} {name}", r.resource_type),
            }),
        statement: merged.as_ref().map(minimal_statement),
        hint: merged.as_ref().map(admin_hint),
        status,
    }
}

/// The call with only what may be posted: `None` without a postable action; the resource is
/// cleared unless its type and name are plain names that no redaction rule touches (a name can
/// be a shared-input value or carry an e-mail address).
fn pr_safe(mut call: DeniedCall, redactor: &Redactor) -> Option<DeniedCall> {
    call.iam_action = safe_action(Some(call.iam_action), redactor)?;
    let plain = |text: &str| {
        !text.is_empty()
            && text.len() <= 128
            && text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_+=,.@-*".contains(&b))
            && redactor.redact(text, &mut Placeholders::new()) == text
    };
    let resource_ok = call
        .resource()
        .is_some_and(|r| plain(&r.resource_type) && plain(&r.name) && call.is_pr_safe());
    if !resource_ok {
        call.resource_type = None;
        call.resource_name_redacted = None;
    } else if call.source == EnrichmentSource::SdkText {
        // Read from the error text, which is provider text: the comment names only the type,
        // and only a type from a fixed list (a word of the text could carry a planted value).
        let known = call.resource().is_some_and(|r| {
            r.has_iam_path() || TEXT_RESOURCE_TYPES.contains(&r.resource_type.as_str())
        });
        if !known {
            call.resource_type = None;
            call.resource_name_redacted = None;
        } else if call.resource_name_redacted.as_deref() != Some("*") {
            call.resource_name_redacted = Some(NAME_IN_RUN_LOG.to_string());
        }
    }
    Some(call)
}

/// Resource types a denial read from the error text may name besides the IAM types with paths
/// ([`crate::enrich::RedactedResource::has_iam_path`]): common ARN resource types of the Service
/// Authorization Reference.
const TEXT_RESOURCE_TYPES: &[&str] = &[
    "oidc-provider",
    "saml-provider",
    "bucket",
    "object",
    "instance",
    "image",
    "volume",
    "snapshot",
    "security-group",
    "subnet",
    "vpc",
    "network-interface",
    "key",
    "alias",
    "secret",
    "parameter",
    "function",
    "layer",
    "table",
    "queue",
    "topic",
    "cluster",
    "nodegroup",
    "log-group",
    "stream",
    "repository",
    "db",
    "certificate",
    "hostedzone",
    "loadbalancer",
    "targetgroup",
    "resource",
];

/// Stands for a resource name the comment does not repeat from the error text.
pub const NAME_IN_RUN_LOG: &str = "…";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::enrich::state::GaveUpReason;
    use crate::model::DenyKind;
    use crate::redact::RedactionConfig;

    /// The view of `f` shown as `aws_instance.web`, with the test redactor.
    fn view(
        f: &FailureToEnrich,
        decoded: Option<&DeniedCall>,
        state: &EnrichmentState,
    ) -> EnrichmentView {
        enrichment_view(f, "aws_instance.web", decoded, state, &redactor())
    }

    fn redactor() -> Redactor {
        Redactor::new(&RedactionConfig {
            secret_values: vec!["shared-secret-name".into()],
            ..Default::default()
        })
        .unwrap()
    }

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
        let first = view(&bare(), None, &EnrichmentState::Pending);
        assert_eq!(first.status, CONFIRMING);
        assert_eq!(first.iam_action, None);
        assert_eq!(first.statement, None);

        let after = view(&bare(), None, &EnrichmentState::Found(run_instances()));
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
        let v = view(&f, None, &gave_up);
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
        let v = view(&f, None, &EnrichmentState::Found(ct));
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
        let v = view(&f, None, &EnrichmentState::Pending);
        assert_eq!(v.status, FROM_TEXT);
        let mut decoded = run_instances();
        decoded.source = EnrichmentSource::DecodedMessage;
        let v = view(&bare(), Some(&decoded), &EnrichmentState::Pending);
        assert_eq!(v.status, FROM_DECODED);
        assert_eq!(v.iam_action.as_deref(), Some("ec2:RunInstances"));
        decoded.deny_kind = None;
        let v = view(&bare(), Some(&decoded), &EnrichmentState::Pending);
        assert_eq!(v.status, CONFIRMING);
    }

    #[test]
    fn resource_names_that_are_secrets_or_odd_are_not_shown() {
        let mut call = run_instances();
        call.resource_type = Some("role".into());
        for (name, shown) in [
            ("AWSServiceRoleForAmazonEKSNodegroup", true),
            ("shared-secret-name", false),
            ("ops@example.com", false),
            ("a`b", false),
        ] {
            call.resource_name_redacted = Some(name.into());
            let v = enrichment_view(
                &bare(),
                "a.b",
                None,
                &EnrichmentState::Found(call.clone()),
                &redactor(),
            );
            assert_eq!(v.resource.is_some(), shown, "{name}");
            let statement = v.statement.unwrap();
            assert_eq!(statement.contains(name), shown, "{statement}");
        }
        call.iam_action = "arn:aws".into();
        let v = enrichment_view(
            &bare(),
            "a.b",
            None,
            &EnrichmentState::Found(call),
            &redactor(),
        );
        assert_eq!((v.iam_action, v.statement), (None, None));
    }

    #[test]
    fn a_resource_read_from_the_error_text_shows_only_a_known_type() {
        let named = |text_type: &str| {
            let f = FailureToEnrich {
                text_iam_action: Some("iam:GetRole".into()),
                permission_missing: true,
                text_resource: Some(crate::enrich::RedactedResource {
                    resource_type: text_type.into(),
                    name: "XPTO".into(),
                }),
                ..bare()
            };
            enrichment_view(&f, "a.b", None, &EnrichmentState::Pending, &redactor()).resource
        };
        assert_eq!(named("role").as_deref(), Some("role (name in the run log)"));
        assert_eq!(named("roakiaiosfodnn7examplele"), None);
    }
}
