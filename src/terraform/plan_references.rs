//! From a plan JSON, what each planned resource's configuration refers to (expression
//! references, `depends_on`, through module inputs and outputs) and the names of the objects it
//! creates that are known before the apply. Stored with the plan for its apply: addresses and
//! plain names only, never values of other attributes.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::outcome::Action;
use super::plan_config::{ConfigModule, Configuration};
use super::plan_json::{PlanJson, ResourceChange};
use super::resource_address::{split_instance_address, split_segments, strip_key};

/// How deep module inputs and outputs are followed.
const MAX_DEPTH: usize = 16;
/// Names longer than this are not identifiers worth matching.
const MAX_NAME_LEN: usize = 255;

/// What an apply needs to tell whether a failing resource refers to one created before it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanReferences {
    /// Planned instance address → absolute configuration addresses without instance keys
    /// (`module.net.aws_iam_role.r`) of the managed resources its configuration refers to.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub refers_to: BTreeMap<String, Vec<String>>,
    /// Created or replaced instance address → its name-like string attributes known at plan
    /// time (`name`, `*_name`, `bucket`), not sensitive.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub known_names: BTreeMap<String, Vec<String>>,
}

impl PlanReferences {
    pub fn is_empty(&self) -> bool {
        self.refers_to.is_empty() && self.known_names.is_empty()
    }

    /// Keeps only the names `keep` accepts (the worker drops any a redaction rule touches:
    /// a shared input's value, an account id, an address, before they are stored).
    pub fn retain_names(&mut self, keep: impl Fn(&str) -> bool) {
        for names in self.known_names.values_mut() {
            names.retain(|n| keep(n));
        }
        self.known_names.retain(|_, names| !names.is_empty());
    }
}

/// The absolute configuration address (no instance keys) of an instance address:
/// `module.m[0].aws_x.y["k"]` → `module.m.aws_x.y`.
pub fn config_address(instance: &str) -> Option<String> {
    let split = split_instance_address(instance)?;
    Some(format!(
        "{}{}",
        module_prefix(&split.module_calls),
        split.resource
    ))
}

fn module_prefix(frame: &[String]) -> String {
    frame.iter().map(|c| format!("module.{c}.")).collect()
}

/// References and known names of every planned change that creates, updates or replaces.
pub fn plan_references(plan: &PlanJson<'_>) -> PlanReferences {
    let mut out = PlanReferences::default();
    for change in &plan.resource_changes {
        let action = change.change.action();
        if change.mode != "managed"
            || matches!(
                action,
                None | Some(Action::NoOp | Action::Read | Action::Delete | Action::Forget)
            )
        {
            continue;
        }
        if let Some(config) = &plan.configuration {
            let refs = referenced_resources(config, &change.address);
            if !refs.is_empty() {
                out.refers_to.insert(change.address.clone(), refs);
            }
        }
        if matches!(
            action,
            Some(Action::Create | Action::Replace | Action::CreateThenForget)
        ) {
            let names = known_names(change);
            if !names.is_empty() {
                out.known_names.insert(change.address.clone(), names);
            }
        }
    }
    out
}

/// Name-like top-level string attributes of the planned object, minus sensitive ones.
fn known_names(change: &ResourceChange<'_>) -> Vec<String> {
    let Some(Value::Object(after)) = change.change.after_value() else {
        return Vec::new();
    };
    let sensitive = change.change.after_sensitive_value();
    if sensitive == Some(Value::Bool(true)) {
        return Vec::new();
    }
    let is_sensitive = |key: &str| {
        sensitive
            .as_ref()
            .and_then(|s| s.get(key))
            .is_some_and(|v| v != &Value::Bool(false))
    };
    let mut names: Vec<String> = after
        .iter()
        .filter(|(k, _)| *k == "name" || k.ends_with("_name") || *k == "bucket")
        .filter(|(k, _)| !is_sensitive(k))
        .filter_map(|(_, v)| v.as_str())
        .filter(|v| (3..=MAX_NAME_LEN).contains(&v.len()) && !v.contains(char::is_whitespace))
        .map(str::to_string)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Absolute configuration addresses of the managed resources the block of `instance` refers to,
/// its module calls' `depends_on` included; the block itself is left out.
fn referenced_resources(config: &Configuration<'_>, instance: &str) -> Vec<String> {
    let Some(split) = split_instance_address(instance) else {
        return Vec::new();
    };
    let frame = split.module_calls;
    let calls: Vec<&str> = frame.iter().map(String::as_str).collect();
    let Some(resource) = config
        .module(&calls)
        .and_then(|m| m.resource(&split.resource))
    else {
        return Vec::new();
    };
    let mut seeds: Vec<(Vec<String>, String)> = Vec::new();
    let mut add = |frame: &[String], refs: Vec<String>| {
        seeds.extend(refs.into_iter().map(|r| (frame.to_vec(), r)));
    };
    for node in resource.expressions().values() {
        add(
            &frame,
            node.all_references()
                .into_iter()
                .map(String::from)
                .collect(),
        );
    }
    for e in [resource.count_expression(), resource.for_each_expression()]
        .into_iter()
        .flatten()
    {
        add(&frame, e.references);
    }
    add(&frame, resource.depends_on.clone());
    for depth in 1..=frame.len() {
        let parent = &frame[..depth - 1];
        let parent_calls: Vec<&str> = parent.iter().map(String::as_str).collect();
        if let Some(call) = config
            .module(&parent_calls)
            .and_then(|m| m.module_calls.get(&frame[depth - 1]))
        {
            add(parent, call.depends_on.clone());
        }
    }
    let own = format!("{}{}", module_prefix(&frame), split.resource);
    let mut found = BTreeSet::new();
    let mut seen = BTreeSet::new();
    for (f, r) in seeds {
        resolve(config, &f, &r, 0, &mut seen, &mut found);
    }
    found.remove(&own);
    found.into_iter().collect()
}

/// Follows one reference made in module `frame` to the managed resources behind it.
fn resolve(
    config: &Configuration<'_>,
    frame: &[String],
    reference: &str,
    depth: usize,
    seen: &mut BTreeSet<(Vec<String>, String)>,
    found: &mut BTreeSet<String>,
) {
    if depth > MAX_DEPTH || !seen.insert((frame.to_vec(), reference.to_string())) {
        return;
    }
    let segments: Vec<&str> = split_segments(reference)
        .segments
        .into_iter()
        .map(strip_key)
        .collect();
    let calls: Vec<&str> = frame.iter().map(String::as_str).collect();
    let follow = |frame: &[String], refs: Vec<String>, seen: &mut _, found: &mut _| {
        for r in refs {
            resolve(config, frame, &r, depth + 1, seen, found);
        }
    };
    match segments.as_slice() {
        ["var", name, ..] => {
            let Some((call, parent)) = frame.split_last() else {
                return;
            };
            let parent_calls: Vec<&str> = parent.iter().map(String::as_str).collect();
            let refs = config
                .module(&parent_calls)
                .and_then(|m| m.module_calls.get(call))
                .and_then(|c| c.expressions().remove(*name))
                .map(|n| n.all_references().into_iter().map(String::from).collect())
                .unwrap_or_default();
            follow(parent, refs, seen, found);
        }
        ["module", child, rest @ ..] => {
            let mut inner = frame.to_vec();
            inner.push(child.to_string());
            let mut child_calls = calls.clone();
            child_calls.push(child);
            let Some(module) = config.module(&child_calls) else {
                return;
            };
            match rest.first() {
                Some(output) => {
                    let refs = module
                        .outputs
                        .get(*output)
                        .and_then(|o| o.expression())
                        .map(|e| e.references)
                        .unwrap_or_default();
                    follow(&inner, refs, seen, found);
                }
                // The whole module (`depends_on = [module.x]`): every resource in it.
                None => all_resources(module, &inner, found),
            }
        }
        ["data" | "local" | "each" | "count" | "path" | "terraform" | "self", ..] => {}
        [type_, name, ..] if !type_.is_empty() && !name.is_empty() => {
            let address = format!("{}{type_}.{name}", module_prefix(frame));
            let declared = config
                .module(&calls)
                .is_some_and(|m| m.resource(&format!("{type_}.{name}")).is_some());
            if declared {
                found.insert(address);
            }
        }
        _ => {}
    }
}

fn all_resources(module: &ConfigModule<'_>, frame: &[String], found: &mut BTreeSet<String>) {
    for r in module.resources.iter().filter(|r| r.mode == "managed") {
        found.insert(format!("{}{}", module_prefix(frame), r.address));
    }
    for (name, call) in &module.module_calls {
        let mut inner = frame.to_vec();
        inner.push(name.clone());
        all_resources(&call.module, &inner, found);
    }
}

#[cfg(test)]
#[path = "plan_references_tests.rs"]
mod tests;
