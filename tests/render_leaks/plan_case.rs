use std::collections::BTreeSet;

use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{json, Map, Value};
use tfgate::model::view::{PlanComment, RootPlan};
use tfgate::redact::Placeholders;
use tfgate::render::from_outcome::plan_root;
use tfgate::terraform::{parse_plan_json, plan_summary};

use crate::addresses::{address_spec, AddressSpec};
use crate::apply_case::line;
use crate::checks::{redactor_for, render_err};
use crate::config::{meta, renderer, root_ident};
use crate::errors::{diagnostic, ErrorSpec};
use crate::secrets::{
    account, any_secret, arn, plant, plant_into, plants, sensitive_only, Plant, Secret,
};

// ------------------------------------------------------------------ plan documents

/// One attribute of a planned resource.
#[derive(Debug, Clone)]
pub(crate) enum AttrSpec {
    /// A string with planted secrets (before / after).
    Text(Vec<Plant>, Vec<Plant>),
    /// A list of bare secrets (`cidr_blocks`).
    List(Vec<Secret>),
    /// A map whose keys and values hold secrets (`tags`).
    Tags(Vec<(Plant, Plant)>),
    /// An account id as a JSON number.
    AccountNumber(String),
    /// Marked sensitive: values never shown.
    Sensitive(Secret, String),
    /// Known after apply; the old value holds a secret.
    Unknown(Plant),
    /// A nested block list (`ingress`).
    Block(Vec<Secret>, Plant),
    /// An IAM policy document as a JSON string.
    Policy(Vec<Secret>),
    /// A sensitive attribute nested in a block.
    NestedSensitive(String, Secret),
    /// A known secret value that is all digits, as a JSON number (targeted property).
    KnownNumber(String),
    /// A `jsonencode`d document: Go's encoder writes `<`, `>`, `&` as `\u003c`, `\u003e`,
    /// `\u0026` (targeted property).
    GoJson(Vec<Plant>),
}

pub(crate) fn attr_spec() -> impl Strategy<Value = AttrSpec> {
    prop_oneof![
        3 => (plants(2), plants(2)).prop_map(|(b, a)| AttrSpec::Text(b, a)),
        2 => prop::collection::vec(any_secret(), 1..3).prop_map(AttrSpec::List),
        2 => prop::collection::vec((plant(), plant()), 1..3).prop_map(AttrSpec::Tags),
        1 => account().prop_map(AttrSpec::AccountNumber),
        2 => (any_secret(), sensitive_only()).prop_map(|(s, h)| AttrSpec::Sensitive(s, h)),
        1 => plant().prop_map(AttrSpec::Unknown),
        1 => (prop::collection::vec(any_secret(), 1..3), plant())
            .prop_map(|(c, d)| AttrSpec::Block(c, d)),
        2 => prop::collection::vec(arn().prop_map(|s| Secret::new("arn", s)), 1..4)
            .prop_map(AttrSpec::Policy),
        1 => (sensitive_only(), any_secret()).prop_map(|(h, s)| AttrSpec::NestedSensitive(h, s)),
    ]
}

/// before, after, after_unknown, sensitive marks of one attribute, and its secrets.
pub(crate) struct AttrValues {
    pub(crate) before: Value,
    pub(crate) after: Value,
    pub(crate) unknown: Option<Value>,
    pub(crate) sensitive: Option<Value>,
    pub(crate) secrets: Vec<Secret>,
}

/// before, after, after_unknown, sensitive marks.
type Values = (Value, Value, Option<Value>, Option<Value>);

pub(crate) fn attr_values(spec: &AttrSpec) -> AttrValues {
    let mut secrets = Vec::new();
    let (before, after, unknown, sensitive) = match spec {
        AttrSpec::Block(..)
        | AttrSpec::Policy(..)
        | AttrSpec::NestedSensitive(..)
        | AttrSpec::GoJson(..) => document_values(spec, &mut secrets),
        _ => scalar_values(spec, &mut secrets),
    };
    AttrValues {
        before,
        after,
        unknown,
        sensitive,
        secrets,
    }
}

/// The values of a text, list, map or number attribute.
fn scalar_values(spec: &AttrSpec, secrets: &mut Vec<Secret>) -> Values {
    let text = |plants: &[Plant], base: &str| plant_into(base, plants);
    match spec {
        AttrSpec::Text(b, a) => {
            secrets.extend(b.iter().chain(a).map(|p| p.secret.clone()));
            (
                json!(text(b, "allow admin access from")),
                json!(text(a, "allow office access via")),
                None,
                None,
            )
        }
        AttrSpec::List(items) => {
            secrets.extend(items.iter().cloned());
            let list: Vec<&str> = items.iter().map(|s| s.text.as_str()).collect();
            (json!([]), json!(list), None, None)
        }
        AttrSpec::Tags(pairs) => {
            let mut map = Map::new();
            for (k, v) in pairs {
                secrets.push(k.secret.clone());
                secrets.push(v.secret.clone());
                map.insert(k.text(), json!(v.text()));
            }
            (json!({"Name": "old"}), Value::Object(map), None, None)
        }
        AttrSpec::AccountNumber(a) => {
            secrets.push(Secret::new("account", a.clone()));
            let n: u64 = a.parse().unwrap();
            (json!(1), json!(n), None, None)
        }
        AttrSpec::Sensitive(s, hidden) => {
            secrets.push(s.clone());
            secrets.push(Secret::new("sensitive-only", hidden.clone()));
            (json!(s.text), json!(hidden), None, Some(json!(true)))
        }
        AttrSpec::Unknown(p) => {
            secrets.push(p.secret.clone());
            (json!(p.text()), Value::Null, Some(json!(true)), None)
        }
        AttrSpec::KnownNumber(digits) => {
            secrets.push(Secret::new("known", digits.clone()));
            let n: u64 = digits.parse().unwrap();
            (json!(n + 1), json!(n), None, None)
        }
        _ => unreachable!("{spec:?} is a document attribute"),
    }
}

/// The values of a nested block, a JSON document or a nested sensitive attribute.
fn document_values(spec: &AttrSpec, secrets: &mut Vec<Secret>) -> Values {
    match spec {
        AttrSpec::Block(cidrs, desc) => {
            secrets.extend(cidrs.iter().cloned());
            secrets.push(desc.secret.clone());
            let list: Vec<&str> = cidrs.iter().map(|s| s.text.as_str()).collect();
            (
                json!([]),
                json!([{"cidr_blocks": list, "description": desc.text(), "from_port": 443}]),
                None,
                None,
            )
        }
        AttrSpec::Policy(arns) => {
            secrets.extend(arns.iter().cloned());
            let resources: Vec<&str> = arns.iter().map(|s| s.text.as_str()).collect();
            let doc = json!({
                "Version": "2012-10-17",
                "Statement": [{"Effect": "Allow", "Action": ["s3:GetObject"], "Resource": resources}]
            });
            (json!(null), json!(doc.to_string()), None, None)
        }
        AttrSpec::NestedSensitive(hidden, s) => {
            secrets.push(s.clone());
            secrets.push(Secret::new("sensitive-only", hidden.clone()));
            (
                json!([{"user": "admin", "password": s.text}]),
                json!([{"user": "admin", "password": hidden}]),
                None,
                Some(json!([{"password": true}])),
            )
        }
        AttrSpec::GoJson(plants) => {
            secrets.extend(plants.iter().map(|p| p.secret.clone()));
            let notes: Vec<String> = plants.iter().map(Plant::text).collect();
            let doc = json!({"Statement": [{"Sid": "Owners", "Condition": {"StringLike": {"aws:PrincipalTag/owner": notes}}}]});
            (json!(null), json!(go_json_encode(&doc)), None, None)
        }
        _ => unreachable!("{spec:?} is a scalar attribute"),
    }
}

pub(crate) fn go_json_encode(value: &Value) -> String {
    value
        .to_string()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

#[derive(Debug, Clone)]
pub(crate) struct PlanResourceSpec {
    pub(crate) address: AddressSpec,
    pub(crate) actions: usize,
    pub(crate) attrs: Vec<AttrSpec>,
}

pub(crate) const PLAN_ACTIONS: [&[&str]; 5] = [
    &["create"],
    &["update"],
    &["delete"],
    &["delete", "create"],
    &["create", "delete"],
];

pub(crate) fn plan_resource_spec() -> impl Strategy<Value = PlanResourceSpec> {
    (
        address_spec(),
        0..PLAN_ACTIONS.len(),
        prop::collection::vec(attr_spec(), 1..5),
    )
        .prop_map(|(address, actions, attrs)| PlanResourceSpec {
            address,
            actions,
            attrs,
        })
}

#[derive(Debug, Clone)]
pub(crate) struct PlanSpec {
    pub(crate) format: &'static str,
    pub(crate) resources: Vec<PlanResourceSpec>,
    pub(crate) variables: Vec<(Secret, String)>,
    pub(crate) outputs: Vec<(Secret, String)>,
    pub(crate) drift: Vec<Plant>,
    pub(crate) provider_role: String,
}

pub(crate) fn plan_spec() -> impl Strategy<Value = PlanSpec> {
    (
        select(vec!["0.1", "0.2", "1.0", "1.1", "1.2"]),
        prop::collection::vec(plan_resource_spec(), 1..5),
        prop::collection::vec((any_secret(), sensitive_only()), 0..3),
        prop::collection::vec((any_secret(), sensitive_only()), 0..3),
        plants(3),
        arn(),
    )
        .prop_map(
            |(format, resources, variables, outputs, drift, provider_role)| PlanSpec {
                format,
                resources,
                variables,
                outputs,
                drift,
                provider_role,
            },
        )
}

pub(crate) struct PlanCase {
    pub(crate) text: String,
    pub(crate) secrets: BTreeSet<Secret>,
    pub(crate) changed: usize,
}

pub(crate) fn resource_change(r: &PlanResourceSpec, secrets: &mut BTreeSet<Secret>) -> Value {
    let actions = PLAN_ACTIONS[r.actions];
    let (mut before, mut after, mut unknown) = (Map::new(), Map::new(), Map::new());
    let mut sensitive = Map::new();
    for (i, a) in r.attrs.iter().enumerate() {
        let v = attr_values(a);
        let name = format!("attr_{i}");
        secrets.extend(v.secrets);
        before.insert(name.clone(), v.before);
        after.insert(name.clone(), v.after);
        if let Some(u) = v.unknown {
            unknown.insert(name.clone(), u);
        }
        if let Some(s) = v.sensitive {
            sensitive.insert(name, s);
        }
    }
    let (before, after) = match actions {
        ["create"] => (Value::Null, Value::Object(after)),
        ["delete"] => (Value::Object(before), Value::Null),
        _ => (Value::Object(before), Value::Object(after)),
    };
    let sens = Value::Object(sensitive);
    let mut rc = json!({
        "address": r.address.address(),
        "mode": "managed",
        "type": r.address.type_,
        "name": r.address.name,
        "provider_name": "registry.terraform.io/hashicorp/aws",
        "change": {
            "actions": actions,
            "before": before,
            "after": after,
            "after_unknown": Value::Object(unknown),
            "before_sensitive": sens,
            "after_sensitive": sens,
        },
    });
    if let Some(m) = r.address.module_address() {
        rc["module_address"] = json!(m);
    }
    if !r.address.index().is_null() {
        rc["index"] = r.address.index();
    }
    if actions.len() == 2 {
        rc["action_reason"] = json!("replace_because_tainted");
    }
    rc
}

pub(crate) fn build_plan(spec: &PlanSpec) -> PlanCase {
    let mut secrets = BTreeSet::new();
    let mut changes = Vec::new();
    let mut addresses = BTreeSet::new();
    for r in &spec.resources {
        secrets.extend(r.address.secrets());
        addresses.insert(r.address.address());
        changes.push(resource_change(r, &mut secrets));
    }
    let mut variables = Map::new();
    for (i, (s, hidden)) in spec.variables.iter().enumerate() {
        secrets.insert(s.clone());
        secrets.insert(Secret::new("sensitive-only", hidden.clone()));
        variables.insert(format!("var_{i}"), json!({"value": s.text}));
        variables.insert(format!("password_{i}"), json!({"value": hidden}));
    }
    let mut outputs = Map::new();
    for (i, (s, hidden)) in spec.outputs.iter().enumerate() {
        secrets.insert(s.clone());
        secrets.insert(Secret::new("sensitive-only", hidden.clone()));
        outputs.insert(
            format!("out_{i}"),
            json!({"actions": ["create"], "before": null, "after": s.text, "after_unknown": false, "before_sensitive": false, "after_sensitive": false}),
        );
        outputs.insert(
            format!("token_{i}"),
            json!({"actions": ["create"], "before": null, "after": hidden, "after_unknown": false, "before_sensitive": true, "after_sensitive": true}),
        );
    }
    secrets.extend(spec.drift.iter().map(|p| p.secret.clone()));
    secrets.insert(Secret::new("arn", spec.provider_role.clone()));
    let drift_text = plant_into("changed outside of Terraform", &spec.drift);
    let planned: Vec<Value> = changes
        .iter()
        .map(|c| json!({"address": c["address"], "values": c["change"]["after"], "sensitive_values": {}}))
        .collect();
    let doc = json!({
        "format_version": spec.format,
        "terraform_version": "1.5.7",
        "variables": variables,
        "planned_values": {"root_module": {"resources": planned}},
        "resource_drift": [{
            "address": "aws_vpc.main",
            "mode": "managed",
            "type": "aws_vpc",
            "name": "main",
            "change": {"actions": ["update"], "before": {"description": "x"}, "after": {"description": drift_text}}
        }],
        "resource_changes": changes,
        "output_changes": outputs,
        "prior_state": {"values": {"root_module": {"resources": [{"address": "aws_vpc.main", "values": {"description": drift_text}}]}}},
        "configuration": {
            "provider_config": {"aws": {"name": "aws", "expressions": {
                "region": {"constant_value": "us-east-1"},
                "assume_role": [{"role_arn": {"constant_value": spec.provider_role}}]
            }}},
            "root_module": {"variables": {"admin_cidrs": {"default": drift_text, "sensitive": false}}}
        }
    });
    PlanCase {
        text: serde_json::to_string_pretty(&doc).unwrap(),
        secrets,
        changed: addresses.len(),
    }
}

pub(crate) fn plan_markdown(case: &PlanCase) -> Result<(RootPlan, String), TestCaseError> {
    let redactor = redactor_for(&case.secrets);
    let plan = parse_plan_json(&case.text).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let summary = plan_summary(&plan);
    let mut ph = Placeholders::new();
    let root = plan_root(&root_ident(), &summary, &redactor, &mut ph);
    prop_assert!(root.resources.len() >= case.changed);
    let md = renderer()
        .render_plan(&PlanComment {
            meta: meta(),
            repo_root_summaries: vec![root.clone()],
            drift_warnings: vec![],
            denials: vec![],
            notes: vec![],
            still_planning: Vec::new(),
        })
        .map_err(render_err)?;
    prop_assert!(md.contains("attribute"), "details table rendered");
    Ok((root, md))
}

/// A `plan -json` stream that stopped on error diagnostics (some addressed).
pub(crate) fn failed_plan_stream(
    errors: &[(Option<AddressSpec>, ErrorSpec)],
    secrets: &mut BTreeSet<Secret>,
) -> String {
    let mut lines = vec![line(
        "info",
        "Terraform 1.5.7",
        "version",
        json!({"terraform": "1.5.7", "ui": "1.1"}),
    )];
    for (address, e) in errors {
        secrets.extend(e.secrets());
        let addr = address.as_ref().map(|a| {
            secrets.extend(a.secrets());
            a.address()
        });
        lines.push(line(
            "error",
            &format!("Error: {}", e.text()),
            "diagnostic",
            json!({"diagnostic": diagnostic(e, addr.as_deref())}),
        ));
    }
    lines.join("\n") + "\n"
}
