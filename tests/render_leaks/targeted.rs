use proptest::prelude::*;
use proptest::sample::select;

use crate::addresses::{address_spec, AddressSpec, KeySpec};
use crate::apply_case::{ApplySpec, Fate, ResourceSpec};
use crate::errors::{error_spec_with, path_secret, ErrorSpec, FileSpec, NO_FILE};
use crate::plan_case::{build_plan, plan_markdown, AttrSpec, PlanCase, PlanResourceSpec, PlanSpec};
use crate::secrets::{account, any_secret, arn, arn_in, ipv6, Plant, Secret, WRAPS};

// ------------------------------------------------------------------ targeted properties

pub(crate) fn plain_address(type_: &'static str) -> AddressSpec {
    AddressSpec {
        module: None,
        type_,
        name: "this".into(),
        key: KeySpec::None,
        in_names: Vec::new(),
    }
}

pub(crate) fn one_resource_plan(attrs: Vec<AttrSpec>) -> PlanSpec {
    PlanSpec {
        format: "1.2",
        resources: vec![PlanResourceSpec {
            address: plain_address("aws_iam_policy"),
            actions: 1,
            attrs,
        }],
        variables: Vec::new(),
        outputs: Vec::new(),
        drift: Vec::new(),
        provider_role: "arn:aws:iam::123456789012:role/tfgate-plan".into(),
    }
}

pub(crate) fn one_resource_apply(address: AddressSpec, fate: Fate) -> ApplySpec {
    ApplySpec {
        version: ("1.5.7", "1.1"),
        resources: vec![ResourceSpec {
            address,
            action: "create",
            fate,
        }],
        unattached: Vec::new(),
        noise: Vec::new(),
        outputs: Vec::new(),
    }
}

pub(crate) fn plan_md_of(spec: &PlanSpec) -> Result<(PlanCase, String), TestCaseError> {
    let case = build_plan(spec);
    let (_, md) = plan_markdown(&case)?;
    Ok((case, md))
}

/// ARNs whose region is `*` (IAM policy resources such as `arn:aws:ec2:*:123456789012:instance/*`).
pub(crate) fn wildcard_region_arn() -> impl Strategy<Value = Secret> {
    arn_in(vec!["*"])
        .prop_filter("region is *", |a| a.split(':').nth(3) == Some("*"))
        .prop_map(|a| Secret::new("arn", a))
}

/// Known secret values holding an HCL template introducer (`${`, `%{`).
pub(crate) fn template_known() -> impl Strategy<Value = Secret> {
    "[A-Za-z0-9]{3,10}[$%]\\{[A-Za-z0-9]{3,10}\\}?".prop_map(|s| Secret::new("known", s))
}

/// A shared-input value made of digits (not 12: those are account ids).
pub(crate) fn numeric_known() -> impl Strategy<Value = String> {
    prop_oneof!["[1-9][0-9]{4,10}", "[1-9][0-9]{12,14}"]
}

/// Plants wrapped in `<…>` or `&…&` (what Go's JSON encoder escapes).
pub(crate) fn html_wrapped_plant() -> impl Strategy<Value = Plant> {
    let angle = WRAPS.iter().position(|w| *w == ("<", ">")).unwrap();
    let amp = WRAPS.iter().position(|w| *w == ("&", "&")).unwrap();
    (any_secret(), select(vec![angle, amp]), any::<usize>()).prop_map(|(secret, wrap, at)| Plant {
        secret,
        wrap,
        at,
    })
}

/// Module and resource names carrying an account id (`module.acct_123456789012`).
pub(crate) fn address_with_account_in_name() -> impl Strategy<Value = AddressSpec> {
    (account(), 0usize..2, address_spec()).prop_map(|(a, shape, mut spec)| {
        match shape {
            0 => spec.module = Some((format!("acct_{a}"), KeySpec::None)),
            _ => spec.name = format!("role_{a}"),
        }
        spec.in_names.push(Secret::new("account", a));
        spec
    })
}

/// An old-provider wording that names the resource before the code, without parentheses:
/// `Error creating IAM Role NAME: CODE: …` (NAME is a shared-input value).
pub(crate) fn legacy_wording_error() -> impl Strategy<Value = ErrorSpec> {
    (
        "[A-Z][a-z]{2,6}[A-Z][a-z]{2,6}[0-9]{0,4}",
        select(vec![
            "EntityAlreadyExists",
            "UnmodifiableEntity",
            "MalformedPolicyDocument",
            "PasswordPolicyViolation",
            "DuplicateSSHPublicKey",
            "ReportInProgress",
        ]),
        error_spec_with(Just(NO_FILE), Just(Vec::new())),
    )
        .prop_map(|(name, code, mut spec)| {
            spec.raw = Some(format!(
                "Error creating IAM Role {name}: {code}: Role with name {name} cannot be created.\n\tstatus code: 409, request id: {}",
                spec.natural.request_id
            ));
            spec.natural.known = name;
            spec
        })
}

/// ARNs and IPv6 addresses (`x:y` shapes) bare or on their own line: what an IAM-action
/// pattern could read.
pub(crate) fn colon_plant() -> impl Strategy<Value = Plant> {
    let bare = WRAPS.iter().position(|w| *w == ("", "")).unwrap();
    let line = WRAPS.iter().position(|w| *w == ("\n", "\n")).unwrap();
    (
        prop_oneof![
            arn().prop_map(|s| Secret::new("arn", s)),
            ipv6().prop_map(|s| Secret::new("ipv6", s)),
        ],
        select(vec![bare, line]),
        any::<usize>(),
    )
        // An even `at`: with `after_perform` it goes right after `perform:`.
        .prop_map(|(secret, wrap, at)| Plant {
            secret,
            wrap,
            at: at & !1,
        })
}

pub(crate) fn always_file() -> impl Strategy<Value = FileSpec> {
    (path_secret(), 0usize..3).prop_map(|(s, shape)| FileSpec {
        secret: Some(s),
        shape,
    })
}
