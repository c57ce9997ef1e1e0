use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{json, Value};

use crate::checks::hcl_quote;
use crate::secrets::{plant, Plant, Secret};

// ------------------------------------------------------------------ addresses

/// An instance key: none, a count index, a plain word, or planted text.
#[derive(Debug, Clone)]
pub(crate) enum KeySpec {
    None,
    Index(u8),
    Word(&'static str),
    Planted(Plant),
}

impl KeySpec {
    pub(crate) fn suffix(&self) -> String {
        match self {
            KeySpec::None => String::new(),
            KeySpec::Index(i) => format!("[{i}]"),
            KeySpec::Word(w) => format!("[{}]", hcl_quote(w)),
            KeySpec::Planted(p) => format!("[{}]", hcl_quote(&p.text())),
        }
    }

    pub(crate) fn secret(&self) -> Option<Secret> {
        match self {
            KeySpec::Planted(p) => Some(p.secret.clone()),
            _ => None,
        }
    }
}

pub(crate) fn key_spec_of(plant: impl Strategy<Value = Plant>) -> impl Strategy<Value = KeySpec> {
    prop_oneof![
        1 => Just(KeySpec::None),
        1 => (0u8..5).prop_map(KeySpec::Index),
        1 => select(vec!["primary", "us-east-1", "Name tag", "a.b"]).prop_map(KeySpec::Word),
        3 => plant.prop_map(KeySpec::Planted),
    ]
}

pub(crate) fn key_spec() -> impl Strategy<Value = KeySpec> {
    key_spec_of(plant())
}

#[derive(Debug, Clone)]
pub(crate) struct AddressSpec {
    pub(crate) module: Option<(String, KeySpec)>,
    pub(crate) type_: &'static str,
    pub(crate) name: String,
    pub(crate) key: KeySpec,
    /// Secrets inside module or resource names (targeted property).
    pub(crate) in_names: Vec<Secret>,
}

impl AddressSpec {
    pub(crate) fn module_address(&self) -> Option<String> {
        self.module
            .as_ref()
            .map(|(m, k)| format!("module.{m}{}", k.suffix()))
    }

    pub(crate) fn resource(&self) -> String {
        format!("{}.{}{}", self.type_, self.name, self.key.suffix())
    }

    pub(crate) fn address(&self) -> String {
        match self.module_address() {
            Some(m) => format!("{m}.{}", self.resource()),
            None => self.resource(),
        }
    }

    pub(crate) fn secrets(&self) -> Vec<Secret> {
        let mut out: Vec<Secret> = self.key.secret().into_iter().collect();
        out.extend(self.in_names.iter().cloned());
        if let Some((_, k)) = &self.module {
            out.extend(k.secret());
        }
        out
    }

    pub(crate) fn index(&self) -> Value {
        match &self.key {
            KeySpec::None => Value::Null,
            KeySpec::Index(i) => json!(i),
            KeySpec::Word(w) => json!(w),
            KeySpec::Planted(p) => json!(p.text()),
        }
    }
}

pub(crate) fn address_spec_with(
    key: impl Strategy<Value = KeySpec> + Clone,
) -> impl Strategy<Value = AddressSpec> {
    (
        prop::option::weighted(
            0.4,
            (
                select(vec!["net", "acct", "iam"]).prop_map(String::from),
                key.clone(),
            ),
        ),
        select(vec![
            "aws_iam_role",
            "aws_security_group_rule",
            "aws_s3_bucket",
            "aws_instance",
            "aws_vpc",
        ]),
        select(vec!["this", "admin", "deploy", "logs", "web"]).prop_map(String::from),
        key,
    )
        .prop_map(|(module, type_, name, key)| AddressSpec {
            module,
            type_,
            name,
            key,
            in_names: Vec::new(),
        })
}

pub(crate) fn address_spec() -> impl Strategy<Value = AddressSpec> {
    address_spec_with(key_spec().boxed())
}

pub(crate) fn hook_resource(a: &AddressSpec) -> Value {
    json!({
        "addr": a.address(),
        "module": a.module_address().unwrap_or_default(),
        "resource": a.resource(),
        "implied_provider": "aws",
        "resource_type": a.type_,
        "resource_name": a.name,
        "resource_key": a.index(),
    })
}
