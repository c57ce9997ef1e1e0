use std::collections::BTreeSet;

use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{json, Map, Value};
use tfgate::model::view::{ApplyComment, RootApply};
use tfgate::redact::Placeholders;
use tfgate::render::from_outcome::apply_root;
use tfgate::terraform::{
    apply_outcome, parse_ui_stream, Action, ApplyContext, PlanReferences, PlannedChangeRef,
};

use crate::addresses::{address_spec, hook_resource, AddressSpec};
use crate::checks::{redactor_for, render_err};
use crate::config::{meta, renderer, root_ident};
use crate::errors::{diagnostic, error_spec, ErrorSpec};
use crate::secrets::{any_secret, plant_into, plants, sensitive_only, Plant, Secret};

// ------------------------------------------------------------------ apply streams

#[derive(Debug, Clone)]
pub(crate) enum Fate {
    /// `apply_complete` with a provider id (often an ARN).
    Done {
        id: Secret,
    },
    /// `apply_errored` + error diagnostic addressed to the instance.
    Failed(ErrorSpec),
    /// Only an error diagnostic (e.g. a refresh failure during apply).
    DiagnosticOnly(ErrorSpec),
    NotReached,
    /// `apply_start` + `apply_progress`, then nothing.
    Interrupted,
}

#[derive(Debug, Clone)]
pub(crate) struct ResourceSpec {
    pub(crate) address: AddressSpec,
    pub(crate) action: &'static str,
    pub(crate) fate: Fate,
}

pub(crate) fn fate() -> impl Strategy<Value = Fate> {
    prop_oneof![
        3 => any_secret().prop_map(|id| Fate::Done { id }),
        3 => error_spec().prop_map(Fate::Failed),
        1 => error_spec().prop_map(Fate::DiagnosticOnly),
        1 => Just(Fate::NotReached),
        1 => Just(Fate::Interrupted),
    ]
}

pub(crate) fn resource_spec_with(
    address: impl Strategy<Value = AddressSpec>,
) -> impl Strategy<Value = ResourceSpec> {
    (
        address,
        select(vec!["create", "update", "delete", "replace"]),
        fate(),
    )
        .prop_map(|(address, action, fate)| ResourceSpec {
            address,
            action,
            fate,
        })
}

#[derive(Debug, Clone)]
pub(crate) struct ApplySpec {
    /// (terraform version, ui version)
    pub(crate) version: (&'static str, &'static str),
    pub(crate) resources: Vec<ResourceSpec>,
    /// Configuration / provider errors tied to no instance.
    pub(crate) unattached: Vec<(bool, ErrorSpec)>,
    /// Crash output and `log` lines.
    pub(crate) noise: Vec<Vec<Plant>>,
    /// Outputs (UI 1.0 prints sensitive values in clear).
    pub(crate) outputs: Vec<(bool, Secret, String)>,
}

pub(crate) fn apply_spec_with(
    resource: impl Strategy<Value = ResourceSpec>,
) -> impl Strategy<Value = ApplySpec> {
    (
        select(vec![("1.0.3", "0.1.0"), ("1.3.7", "1.0"), ("1.5.7", "1.1")]),
        prop::collection::vec(resource, 1..6),
        prop::collection::vec((any::<bool>(), error_spec()), 0..2),
        prop::collection::vec(plants(2), 0..3),
        prop::collection::vec((any::<bool>(), any_secret(), sensitive_only()), 0..3),
    )
        .prop_map(
            |(version, resources, unattached, noise, outputs)| ApplySpec {
                version,
                resources,
                unattached,
                noise,
                outputs,
            },
        )
}

pub(crate) fn apply_spec() -> impl Strategy<Value = ApplySpec> {
    apply_spec_with(resource_spec_with(address_spec()))
}

/// A rendered stream, what the plan meant to do, and everything planted in it.
pub(crate) struct ApplyCase {
    pub(crate) text: String,
    pub(crate) planned: Vec<PlannedChangeRef>,
    pub(crate) secrets: BTreeSet<Secret>,
    pub(crate) addresses: BTreeSet<String>,
    pub(crate) failed: BTreeSet<String>,
}

pub(crate) fn ui_action(action: &str) -> Option<Action> {
    Action::from_ui(action)
}

pub(crate) fn line(level: &str, message: &str, type_: &str, extra: Value) -> String {
    let mut v = json!({
        "@level": level,
        "@message": message,
        "@module": "terraform.ui",
        "@timestamp": "2026-12-02T09:46:49.081570Z",
        "type": type_,
    });
    if let (Value::Object(m), Value::Object(e)) = (&mut v, extra) {
        m.extend(e);
    }
    v.to_string()
}

/// The stream being written, and what was planted in it so far.
#[derive(Default)]
struct ApplyStream {
    lines: Vec<String>,
    secrets: BTreeSet<Secret>,
    planned: Vec<PlannedChangeRef>,
    addresses: BTreeSet<String>,
    failed: BTreeSet<String>,
}

pub(crate) fn build_apply(spec: &ApplySpec) -> ApplyCase {
    let mut s = ApplyStream::default();
    let (tf, ui) = spec.version;
    s.lines.push(line(
        "info",
        &format!("Terraform {tf}"),
        "version",
        json!({"terraform": tf, "ui": ui}),
    ));
    for r in &spec.resources {
        s.planned_change(r);
    }
    for (i, r) in spec.resources.iter().enumerate() {
        s.resource(r);
        if let Some(noise) = spec.noise.get(i) {
            s.noise(noise);
        }
    }
    for (with_provider, e) in &spec.unattached {
        s.unattached(*with_provider, e);
    }
    if !spec.outputs.is_empty() {
        s.outputs(&spec.outputs);
    }
    if s.failed.is_empty() {
        s.lines.push(line(
            "info",
            "Apply complete!",
            "change_summary",
            json!({"changes": {"add": 1, "change": 0, "remove": 0, "operation": "apply"}}),
        ));
    }
    ApplyCase {
        text: s.lines.join("\n") + "\n",
        planned: s.planned,
        secrets: s.secrets,
        addresses: s.addresses,
        failed: s.failed,
    }
}

impl ApplyStream {
    fn planned_change(&mut self, r: &ResourceSpec) {
        let addr = r.address.address();
        self.secrets.extend(r.address.secrets());
        if self.addresses.insert(addr.clone()) {
            self.planned.push(PlannedChangeRef {
                address: addr.clone(),
                action: ui_action(r.action).unwrap(),
            });
        }
        self.lines.push(line(
            "info",
            &format!("{addr}: Plan to {}", r.action),
            "planned_change",
            json!({"change": {"resource": hook_resource(&r.address), "action": r.action}}),
        ));
    }

    /// The lines of one resource's fate.
    fn resource(&mut self, r: &ResourceSpec) {
        let addr = r.address.address();
        let hook = |extra: Value| {
            let mut h = json!({"resource": hook_resource(&r.address), "action": r.action});
            if let (Value::Object(m), Value::Object(e)) = (&mut h, extra) {
                m.extend(e);
            }
            json!({ "hook": h })
        };
        let start = line(
            "info",
            &format!("{addr}: Creating..."),
            "apply_start",
            hook(json!({})),
        );
        match &r.fate {
            Fate::Done { id } => {
                self.secrets.insert(id.clone());
                self.lines.push(start);
                self.lines.push(line(
                    "info",
                    &format!("{addr}: Creation complete after 1s [id={}]", id.text),
                    "apply_complete",
                    hook(json!({"id_key": "id", "id_value": id.text, "elapsed_seconds": 1})),
                ));
            }
            Fate::Failed(e) => {
                self.lines.push(start);
                self.lines.push(line(
                    "info",
                    &format!("{addr}: Creation errored after 1s"),
                    "apply_errored",
                    hook(json!({"elapsed_seconds": 1})),
                ));
                self.failure(&addr, e);
            }
            Fate::DiagnosticOnly(e) => self.failure(&addr, e),
            Fate::NotReached => {}
            Fate::Interrupted => {
                self.lines.push(start);
                self.lines.push(line(
                    "info",
                    &format!("{addr}: Still creating... [10s elapsed]"),
                    "apply_progress",
                    hook(json!({"elapsed_seconds": 10})),
                ));
            }
        }
    }

    /// The failure of the resource at `addr`: its diagnostic.
    fn failure(&mut self, addr: &str, e: &ErrorSpec) {
        self.secrets.extend(e.secrets());
        self.failed.insert(addr.to_string());
        self.lines.push(line(
            "error",
            &format!("Error: {}", e.text()),
            "diagnostic",
            json!({"diagnostic": diagnostic(e, Some(addr))}),
        ));
    }

    /// Crash output and a `log` line with `noise` planted in them.
    fn noise(&mut self, noise: &[Plant]) {
        for p in noise {
            self.secrets.insert(p.secret.clone());
        }
        self.lines.push(plant_into(
            "panic: runtime error: invalid memory address",
            noise,
        ));
        self.lines.push(line(
            "info",
            &plant_into("provider: retrying request", noise),
            "log",
            json!({}),
        ));
    }

    /// A configuration or provider error tied to no instance.
    fn unattached(&mut self, with_provider: bool, e: &ErrorSpec) {
        self.secrets.extend(e.secrets());
        let mut d = diagnostic(e, None);
        if with_provider {
            d["address"] = json!("provider[\"registry.terraform.io/hashicorp/aws\"]");
        }
        self.lines.push(line(
            "error",
            &format!("Error: {}", e.text()),
            "diagnostic",
            json!({ "diagnostic": d }),
        ));
    }

    fn outputs(&mut self, spec: &[(bool, Secret, String)]) {
        let mut outputs = Map::new();
        for (i, (sensitive, secret, hidden)) in spec.iter().enumerate() {
            self.secrets.insert(secret.clone());
            self.secrets
                .insert(Secret::new("sensitive-only", hidden.clone()));
            let value = if *sensitive { hidden } else { &secret.text };
            outputs.insert(
                format!("out_{i}"),
                json!({"sensitive": sensitive, "type": "string", "value": value}),
            );
            outputs.insert(
                format!("pair_{i}"),
                json!({"sensitive": true, "type": ["tuple", ["string", "string"]], "value": [secret.text, hidden]}),
            );
        }
        self.lines.push(line(
            "info",
            &format!("Outputs: {}", outputs.len()),
            "outputs",
            json!({ "outputs": outputs }),
        ));
    }
}

pub(crate) fn apply_markdown(case: &ApplyCase) -> Result<(RootApply, String), TestCaseError> {
    let redactor = redactor_for(&case.secrets);
    let stream = parse_ui_stream(&case.text).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let outcome = apply_outcome(&stream, &case.planned);
    let mut ph = Placeholders::new();
    let context = ApplyContext::new(&stream, &PlanReferences::default());
    let root = apply_root(&root_ident(), &outcome, &context, &redactor, &mut ph);
    // The pipeline really saw every resource and every failure.
    prop_assert_eq!(root.rows.len(), case.addresses.len());
    prop_assert_eq!(root.counts.failed as usize, {
        let interrupted = root
            .rows
            .iter()
            .filter(|r| r.result == tfgate::model::view::ApplyResult::Interrupted)
            .count();
        case.failed.len() + interrupted
    });
    let md = renderer()
        .render_apply(&ApplyComment {
            meta: meta(),
            roots: vec![root.clone()],
            notes: vec![],
        })
        .map_err(render_err)?;
    prop_assert!(
        case.failed.is_empty() || md.contains("❌ failed"),
        "failed rows are shown"
    );
    Ok((root, md))
}
