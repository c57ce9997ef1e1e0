//! `configuration` of a plan: what the drift analysis walks (modules, resources, expressions).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::plan_expression::{parse_expression, parse_expressions, Expression, ExpressionNode};
use super::resource_address::split_instance_address;

#[derive(Debug, Default, Deserialize)]
pub struct Configuration<'a> {
    /// Keyed by provider config key: `aws`, `aws.east`, `module.files:local`.
    #[serde(borrow, default)]
    pub provider_config: BTreeMap<String, ProviderConfig<'a>>,
    #[serde(borrow, default)]
    pub root_module: ConfigModule<'a>,
}

impl<'a> Configuration<'a> {
    /// The module reached by a chain of module call names (`[]` = root).
    pub fn module(&self, call_names: &[&str]) -> Option<&ConfigModule<'a>> {
        let mut module = &self.root_module;
        for name in call_names {
            module = &module.module_calls.get(*name)?.module;
        }
        Some(module)
    }

    /// The resource block of an absolute instance address
    /// (`module.files.local_file.foo["a"]` → block `local_file.foo` of module call `files`).
    pub fn resource_for_instance(&self, address: &str) -> Option<&ConfigResource<'a>> {
        let split = split_instance_address(address)?;
        let calls: Vec<&str> = split.module_calls.iter().map(String::as_str).collect();
        self.module(&calls)?.resource(&split.resource)
    }
}

#[derive(Debug, Deserialize)]
pub struct ProviderConfig<'a> {
    #[serde(default)]
    pub name: String,
    /// TF 1.2+ (format 1.1).
    #[serde(default)]
    pub full_name: Option<String>,
    #[serde(default)]
    pub alias: Option<String>,
    #[serde(default)]
    pub version_constraint: Option<String>,
    #[serde(default)]
    pub module_address: Option<String>,
    #[serde(borrow, default)]
    pub expressions: Option<&'a RawValue>,
}

impl ProviderConfig<'_> {
    /// Provider arguments (`region`, `assume_role` …) as expressions.
    pub fn expressions(&self) -> BTreeMap<String, ExpressionNode> {
        parse_expressions(self.expressions)
    }
}

#[derive(Debug, Default, Deserialize)]
pub struct ConfigModule<'a> {
    #[serde(borrow, default)]
    pub outputs: BTreeMap<String, ConfigOutput<'a>>,
    #[serde(borrow, default)]
    pub resources: Vec<ConfigResource<'a>>,
    #[serde(borrow, default)]
    pub module_calls: BTreeMap<String, ModuleCall<'a>>,
    #[serde(default)]
    pub variables: BTreeMap<String, ConfigVariable>,
}

impl<'a> ConfigModule<'a> {
    /// A resource block by module-relative address without instance key
    /// (`aws_s3_bucket.b`, `data.aws_iam_policy_document.p`).
    pub fn resource(&self, address: &str) -> Option<&ConfigResource<'a>> {
        self.resources.iter().find(|r| r.address == address)
    }
}

/// A resource block. `address` is module-relative and has no instance key.
#[derive(Debug, Deserialize)]
pub struct ConfigResource<'a> {
    pub address: String,
    #[serde(default)]
    pub mode: String,
    #[serde(rename = "type", default)]
    pub type_: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub provider_config_key: Option<String>,
    #[serde(borrow, default)]
    pub expressions: Option<&'a RawValue>,
    #[serde(default)]
    pub schema_version: Option<u64>,
    #[serde(borrow, default)]
    pub count_expression: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub for_each_expression: Option<&'a RawValue>,
    #[serde(default)]
    pub depends_on: Vec<String>,
}

impl ConfigResource<'_> {
    /// Arguments and nested blocks as expressions (parsed on each call).
    pub fn expressions(&self) -> BTreeMap<String, ExpressionNode> {
        parse_expressions(self.expressions)
    }

    pub fn count_expression(&self) -> Option<Expression> {
        parse_expression(self.count_expression)
    }

    pub fn for_each_expression(&self) -> Option<Expression> {
        parse_expression(self.for_each_expression)
    }
}

/// A `module` block. Real output uses `source` (the docs say `resolved_source`).
#[derive(Debug, Deserialize)]
pub struct ModuleCall<'a> {
    #[serde(default)]
    pub source: String,
    #[serde(borrow, default)]
    pub expressions: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub count_expression: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub for_each_expression: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub module: ConfigModule<'a>,
    #[serde(default)]
    pub version_constraint: Option<String>,
    #[serde(default)]
    pub depends_on: Vec<String>,
}

impl ModuleCall<'_> {
    /// Module input arguments as expressions.
    pub fn expressions(&self) -> BTreeMap<String, ExpressionNode> {
        parse_expressions(self.expressions)
    }

    pub fn count_expression(&self) -> Option<Expression> {
        parse_expression(self.count_expression)
    }

    pub fn for_each_expression(&self) -> Option<Expression> {
        parse_expression(self.for_each_expression)
    }
}

/// A `variable` declaration.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ConfigVariable {
    /// `None` when the variable has no default (must be supplied by the caller).
    #[serde(default)]
    pub default: Option<Value>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub sensitive: bool,
}

/// An `output` declaration.
#[derive(Debug, Deserialize)]
pub struct ConfigOutput<'a> {
    #[serde(borrow, default)]
    pub expression: Option<&'a RawValue>,
    #[serde(default)]
    pub sensitive: bool,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub depends_on: Vec<String>,
}

impl ConfigOutput<'_> {
    pub fn expression(&self) -> Option<Expression> {
        parse_expression(self.expression)
    }
}
