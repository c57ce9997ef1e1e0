//! Advice that names what a failure is about: the role a permission failure was denied to
//! (plan role vs apply role, by name), and tfgate's own refusals (`egress_blocked`,
//! `provider_not_allowed`) with the endpoint or provider source and the policy key an admin
//! edits. Pure; every name shown passes the redactor first.

use std::net::IpAddr;

use crate::classify::{AdviceSubject, Category, Refusal, RoleKind};
use crate::model::view::{AdviceView, ApplyStatus, FailureRow, RootApply, RootPlan};
use crate::redact::{Placeholders, Redactor};

use super::RootIdent;

/// The name of a role from its ARN (`arn:aws:iam::1:role/path/tfgate-plan` → `tfgate-plan`),
/// shown only when it is a plain IAM role name the redactor leaves alone; never an ARN or an
/// account id.
pub fn role_name(role_arn: &str, redactor: &Redactor) -> Option<String> {
    let (_, path) = role_arn.split_once(":role/")?;
    let name = path.rsplit('/').next()?;
    let plain = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+=,.@_-".contains(&b))
        && !(name.len() == 12 && name.bytes().all(|b| b.is_ascii_digit()));
    let unchanged = redactor.redact(name, &mut Placeholders::new()) == name;
    (plain && unchanged).then(|| name.to_string())
}

/// Rewrites the `permission_missing` advice to name the role that was denied.
pub fn name_denied_role(
    advice: &mut [AdviceView],
    kind: RoleKind,
    role_arn: &str,
    redactor: &Redactor,
) {
    let subject = AdviceSubject::Role {
        kind,
        name: role_name(role_arn, redactor),
    };
    let c = Category::PermissionMissing;
    for a in advice.iter_mut().filter(|a| a.category_id == c.id()) {
        a.advice = c.advice_naming(&subject);
    }
}

/// `host:port` as a PR may see it: a loopback address as it is, any other address redacted
/// (placeholders of the run), a host name unless the redactor changes it; `None` for another
/// spelling (`127.1`), which is neither.
pub fn shown_endpoint(
    endpoint: &str,
    redactor: &Redactor,
    ph: &mut Placeholders,
) -> Option<String> {
    let (host, port) = endpoint.rsplit_once(':')?;
    port.parse::<u16>().ok()?;
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bare.parse::<IpAddr>() {
        return Some(match ip.is_loopback() {
            true => endpoint.to_string(),
            false => format!("{}:{port}", redactor.redact(host, ph)),
        });
    }
    let is_name = host.len() <= 253
        && host.bytes().any(|b| b.is_ascii_alphabetic())
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-');
    let unchanged = redactor.redact(host, &mut Placeholders::new()) == host;
    (is_name && unchanged).then(|| endpoint.to_string())
}

/// The category and advice of a refusal (what it names redacted).
pub fn refusal_advice(refusal: &Refusal, redactor: &Redactor, ph: &mut Placeholders) -> AdviceView {
    let (category, subject) = match refusal {
        Refusal::EgressBlocked { endpoint } => (
            Category::EgressBlocked,
            endpoint
                .as_deref()
                .and_then(|e| shown_endpoint(e, redactor, ph))
                .map(AdviceSubject::Endpoint),
        ),
        Refusal::ProviderNotAllowed { source } => {
            let shown = (redactor.redact(source, &mut Placeholders::new()) == *source)
                .then(|| AdviceSubject::Provider(source.clone()));
            (Category::ProviderNotAllowed, shown)
        }
    };
    AdviceView {
        category_id: category.id().to_string(),
        label: category.label().to_string(),
        advice: match subject {
            Some(s) => category.advice_naming(&s),
            None => category.advice().to_string(),
        },
    }
}

/// A root whose plan tfgate's sandbox or policy refused: failed, one row of the refusal's
/// category, its advice naming the endpoint or provider and the policy key.
pub fn refusal_plan(
    root: &RootIdent,
    refusal: &Refusal,
    redactor: &Redactor,
    ph: &mut Placeholders,
) -> RootPlan {
    let advice = refusal_advice(refusal, redactor, ph);
    let row = FailureRow {
        address: None,
        aws_code: None,
        category_id: advice.category_id.clone(),
        category_label: advice.label.clone(),
        iam_action: None,
        location: None,
    };
    super::runs::failed_plan(root, vec![row], vec![advice])
}

/// An apply that tfgate refused: failed; the refusal's row replaces the configuration-error
/// rows, its advice theirs.
pub fn mark_refusal(
    model: &mut RootApply,
    refusal: &Refusal,
    redactor: &Redactor,
    ph: &mut Placeholders,
) {
    let advice = refusal_advice(refusal, redactor, ph);
    let config = Category::ConfigurationError.id();
    model.status = match model.counts.done {
        0 => ApplyStatus::Failed,
        _ => ApplyStatus::PartiallyFailed,
    };
    for e in model.config_errors.iter_mut() {
        e.summary_category.clone_from(&advice.label);
    }
    model
        .advice
        .retain(|a| a.category_id != config && a.category_id != advice.category_id);
    model.advice.push(advice);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::RedactionConfig;

    fn redactor() -> Redactor {
        Redactor::new(&RedactionConfig::default()).unwrap()
    }

    fn root() -> RootIdent {
        RootIdent {
            project: "app".into(),
            dir: "infra/app".into(),
            workspace: "default".into(),
        }
    }

    #[test]
    fn role_names_never_carry_an_arn_or_account() {
        let r = redactor();
        let table = [
            (
                "arn:aws:iam::111111111111:role/tfgate-plan",
                Some("tfgate-plan"),
            ),
            (
                "arn:aws:iam::111111111111:role/ci/deploy/tfgate-apply",
                Some("tfgate-apply"),
            ),
            ("arn:aws:iam::111111111111:role/123456789012", None),
            ("arn:aws:iam::111111111111:role/ops@example.com", None),
            ("arn:aws:iam::111111111111:user/alice", None),
            ("not an arn", None),
        ];
        for (arn, want) in table {
            assert_eq!(role_name(arn, &r).as_deref(), want, "{arn}");
        }
    }

    #[test]
    fn the_permission_advice_names_the_denied_role() {
        let mut advice = vec![
            AdviceView {
                category_id: "permission_missing".into(),
                label: "permission missing".into(),
                advice: Category::PermissionMissing.advice().into(),
            },
            AdviceView {
                category_id: "throttled".into(),
                label: "throttled".into(),
                advice: Category::Throttled.advice().into(),
            },
        ];
        let arn = "arn:aws:iam::111111111111:role/tfgate-plan";
        name_denied_role(&mut advice, RoleKind::Plan, arn, &redactor());
        assert!(advice[0].advice.contains("the plan role `tfgate-plan`"));
        assert!(!advice[0].advice.contains("111111111111"));
        assert_eq!(advice[1].advice, Category::Throttled.advice());
    }

    #[test]
    fn endpoints_are_shown_loopback_as_is_and_other_addresses_redacted() {
        let r = redactor();
        let mut ph = Placeholders::new();
        let shown = |e: &str, ph: &mut Placeholders| shown_endpoint(e, &r, ph);
        assert_eq!(
            shown("127.0.0.1:9000", &mut ph).as_deref(),
            Some("127.0.0.1:9000")
        );
        assert_eq!(shown("[::1]:8200", &mut ph).as_deref(), Some("[::1]:8200"));
        assert_eq!(
            shown("db.internal:5432", &mut ph).as_deref(),
            Some("db.internal:5432")
        );
        let private = shown("10.0.4.7:5432", &mut ph).unwrap();
        assert!(
            !private.contains("10.0.4.7") && private.ends_with(":5432"),
            "{private}"
        );
        assert_eq!(shown("127.1:80", &mut ph), None);
        assert_eq!(shown("no port", &mut ph), None);
    }

    #[test]
    fn a_refused_plan_is_one_row_of_the_refusals_category() {
        let r = redactor();
        let mut ph = Placeholders::new();
        let egress = Refusal::EgressBlocked {
            endpoint: Some("127.0.0.1:9000".into()),
        };
        let plan = refusal_plan(&root(), &egress, &r, &mut ph);
        assert_eq!(plan.errors[0].category_id, "egress_blocked");
        assert!(plan.advice[0].advice.starts_with("`127.0.0.1:9000` is not on this project's egress allowlist: an admin can add it under `egress:`"));
        let provider = Refusal::ProviderNotAllowed {
            source: "registry.terraform.io/hashicorp/aws".into(),
        };
        let plan = refusal_plan(&root(), &provider, &r, &mut ph);
        assert_eq!(plan.errors[0].category_label, "provider not allowed");
        assert!(plan.advice[0]
            .advice
            .contains("`registry.terraform.io/hashicorp/aws`"));
        assert!(plan.advice[0].advice.contains("under `providers:`"));
        let unnamed = Refusal::EgressBlocked { endpoint: None };
        let plan = refusal_plan(&root(), &unnamed, &r, &mut ph);
        assert_eq!(plan.advice[0].advice, Category::EgressBlocked.advice());
    }
}
