//! The reference closure: from the references of a changed attribute to the root variables,
//! drifted resources and unresolvable names behind it, following module frames.

use std::collections::{BTreeMap, BTreeSet};

use crate::terraform::plan_config::{ConfigModule, ConfigResource, Configuration};
use crate::terraform::plan_expression::{Expression, ExpressionNode};
use crate::terraform::split_instance_address;
use crate::terraform::PlanJson;

use super::hcl_index::HclIndex;
use super::paths::{is_local_source, join};
use super::reference::{most_specific, parse_reference, Reference};

/// A module instance path without keys: call names from the root (`[]` = root module).
pub(super) type Frame = Vec<String>;

/// Where `each.*` / `count.index` point in the frame of a reference.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum EachSource {
    None,
    /// A resource block's own `for_each` / `count` (same frame).
    Resource(String),
    /// A module call's `for_each` / `count` (the call named here, in the current frame).
    ModuleCall(String),
}

/// One reference to follow, in the frame whose expression contains it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Work {
    pub frame: Frame,
    pub reference: String,
    pub each: EachSource,
}

/// A place whose presence in the PR diff explains a change.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Location {
    /// This exact file.
    File(String),
    /// Any `*.tf` file directly in this directory (declaration file unknown).
    TfIn(String),
    /// Any file under this directory (a local module's source).
    Under(String),
    /// Any `*.tfvars` file directly in this directory (assignments unknown).
    TfvarsIn(String),
}

#[derive(Debug, Default, Clone)]
pub(super) struct Closure {
    pub root_variables: BTreeSet<String>,
    pub drifted_resources: BTreeSet<String>,
    pub unresolved: BTreeSet<String>,
    pub locations: BTreeSet<Location>,
}

impl Closure {
    pub fn extend(&mut self, other: Closure) {
        self.root_variables.extend(other.root_variables);
        self.drifted_resources.extend(other.drifted_resources);
        self.unresolved.extend(other.unresolved);
        self.locations.extend(other.locations);
    }
}

/// Kind of declaration, for looking up its file.
#[derive(Clone, Copy)]
pub(super) enum Decl<'n> {
    Resource(&'n str),
    Variable(&'n str),
    Output(&'n str),
    ModuleCall(&'n str),
    Provider(&'n str),
}

pub(super) struct Resolver<'p, 'a> {
    pub config: &'p Configuration<'a>,
    pub hcl: &'p HclIndex,
    pub root_dir: String,
    /// Blocks (frame, module-relative address) in `resource_drift`.
    drifted: BTreeSet<(Frame, String)>,
    /// Blocks in `resource_changes` → whether any instance has a real change.
    planned: BTreeMap<(Frame, String), bool>,
}

impl<'p, 'a> Resolver<'p, 'a> {
    pub fn new(
        plan: &'p PlanJson<'a>,
        config: &'p Configuration<'a>,
        hcl: &'p HclIndex,
        root_dir: &str,
    ) -> Self {
        let block =
            |address: &str| split_instance_address(address).map(|a| (a.module_calls, a.resource));
        let drifted = plan
            .resource_drift
            .iter()
            .filter(|d| !is_no_change(&d.change.actions))
            .filter_map(|d| block(&d.address))
            .collect();
        let mut planned: BTreeMap<(Frame, String), bool> = BTreeMap::new();
        for rc in &plan.resource_changes {
            if let Some(key) = block(&rc.address) {
                *planned.entry(key).or_default() |= !is_no_change(&rc.change.actions);
            }
        }
        Resolver {
            config,
            hcl,
            root_dir: join("", root_dir),
            drifted,
            planned,
        }
    }

    /// Repo-relative directory of a module frame; `None` for remote modules (not in the repo).
    pub fn frame_dir(&self, frame: &[String]) -> Option<String> {
        let mut dir = self.root_dir.clone();
        let mut module = &self.config.root_module;
        for call in frame {
            let call = module.module_calls.get(call)?;
            if !is_local_source(&call.source) {
                return None;
            }
            dir = join(&dir, &call.source);
            module = &call.module;
        }
        Some(dir)
    }

    /// The file declaring something in a frame. When the HCL index has not scanned the
    /// frame's directory: any `.tf` file of that directory. `None` for remote modules and for
    /// what the scanned directory does not declare (e.g. an implicit provider).
    pub fn decl_location(&self, frame: &[String], decl: Decl<'_>) -> Option<Location> {
        let dir = self.frame_dir(frame)?;
        let Some(module) = self.hcl.module(&dir) else {
            return Some(Location::TfIn(dir));
        };
        let file = match decl {
            Decl::Resource(n) => module.resources.get(n).map(|r| &r.file),
            Decl::Variable(n) => module.variables.get(n),
            Decl::Output(n) => module.outputs.get(n),
            Decl::ModuleCall(n) => module.module_calls.get(n),
            Decl::Provider(n) => module.providers.get(n),
        };
        file.map(|f| Location::File(f.clone()))
    }

    /// Locations of the module calls leading to `frame` (call declarations and local
    /// module source directories).
    pub fn chain_locations(&self, frame: &[String]) -> Vec<Location> {
        let mut out = Vec::new();
        for depth in 1..=frame.len() {
            let (parent, call) = (&frame[..depth - 1], frame[depth - 1].as_str());
            out.extend(self.decl_location(parent, Decl::ModuleCall(call)));
            out.extend(self.frame_dir(&frame[..depth]).map(Location::Under));
        }
        out
    }

    pub fn is_drifted(&self, frame: &[String], address: &str) -> bool {
        self.drifted
            .contains(&(frame.to_vec(), address.to_string()))
    }

    /// Follows every reference to its roots.
    pub fn closure(&self, seeds: Vec<Work>) -> Closure {
        let mut out = Closure::default();
        let mut seen: BTreeSet<Work> = BTreeSet::new();
        let mut queue = seeds;
        while let Some(work) = queue.pop() {
            if seen.insert(work.clone()) {
                self.step(&work, &mut out, &mut queue);
            }
        }
        out
    }

    fn step(&self, work: &Work, out: &mut Closure, queue: &mut Vec<Work>) {
        let frame = &work.frame;
        let Some(module) = self.config.module(&strs(frame)) else {
            out.unresolved.insert(qualified(frame, &work.reference));
            return;
        };
        match parse_reference(&work.reference) {
            Reference::Var(name) => self.variable(frame, &name, out, queue),
            Reference::Local(name) => {
                let local = self
                    .frame_dir(frame)
                    .and_then(|dir| self.hcl.module(&dir))
                    .and_then(|m| m.locals.get(&name));
                match local {
                    Some(local) => {
                        out.locations.insert(Location::File(local.file.clone()));
                        queue.extend(works(frame, refs(&local.references), EachSource::None));
                    }
                    None => {
                        out.unresolved
                            .insert(qualified(frame, &format!("local.{name}")));
                    }
                }
            }
            Reference::ModuleOutput { call, output } => {
                self.module_output(frame, module, &call, output.as_deref(), out, queue)
            }
            Reference::Resource { address, attribute } => {
                self.resource(frame, module, &address, attribute.as_deref(), out, queue)
            }
            Reference::Each | Reference::CountIndex => {
                let is_each = matches!(parse_reference(&work.reference), Reference::Each);
                let expression = match &work.each {
                    EachSource::Resource(address) => module.resource(address).and_then(|r| {
                        if is_each {
                            r.for_each_expression()
                        } else {
                            r.count_expression()
                        }
                    }),
                    EachSource::ModuleCall(call) => module.module_calls.get(call).and_then(|c| {
                        if is_each {
                            c.for_each_expression()
                        } else {
                            c.count_expression()
                        }
                    }),
                    EachSource::None => {
                        out.unresolved.insert(qualified(frame, &work.reference));
                        None
                    }
                };
                if let Some(expression) = expression {
                    queue.extend(works(frame, expression_refs(&expression), EachSource::None));
                }
            }
            Reference::Context => {}
            Reference::Unknown => {
                out.unresolved.insert(qualified(frame, &work.reference));
            }
        }
    }

    fn variable(&self, frame: &Frame, name: &str, out: &mut Closure, queue: &mut Vec<Work>) {
        out.locations
            .extend(self.decl_location(frame, Decl::Variable(name)));
        let Some((call_name, parent)) = frame.split_last() else {
            out.root_variables.insert(name.to_string());
            let dir = self.root_dir.clone();
            if self.hcl.knows_tfvars_in(&dir) {
                out.locations.extend(
                    self.hcl
                        .tfvars_setting(&dir, name)
                        .into_iter()
                        .map(|f| Location::File(f.to_string())),
                );
            } else {
                out.locations.insert(Location::TfvarsIn(dir));
            }
            return;
        };
        let parent = parent.to_vec();
        out.locations
            .extend(self.decl_location(&parent, Decl::ModuleCall(call_name)));
        let call = self
            .config
            .module(&strs(&parent))
            .and_then(|m| m.module_calls.get(call_name));
        let Some(call) = call else {
            out.unresolved
                .insert(qualified(frame, &format!("var.{name}")));
            return;
        };
        // Absent from the call: the child's default applies, which is no input.
        if let Some(node) = call.expressions().get(name) {
            let each = EachSource::ModuleCall(call_name.clone());
            queue.extend(works(&parent, node_refs(node), each));
        }
    }

    fn module_output(
        &self,
        frame: &Frame,
        module: &ConfigModule<'_>,
        call: &str,
        output: Option<&str>,
        out: &mut Closure,
        queue: &mut Vec<Work>,
    ) {
        let mut child = frame.clone();
        child.push(call.to_string());
        out.locations
            .extend(self.decl_location(frame, Decl::ModuleCall(call)));
        out.locations
            .extend(self.frame_dir(&child).map(Location::Under));
        let Some(call_config) = module.module_calls.get(call) else {
            out.unresolved
                .insert(qualified(frame, &format!("module.{call}")));
            return;
        };
        let outputs = &call_config.module.outputs;
        let selected: Vec<(&String, _)> = match output {
            Some(name) => match outputs.get_key_value(name) {
                Some(entry) => vec![entry],
                None => {
                    out.unresolved
                        .insert(qualified(frame, &format!("module.{call}.{name}")));
                    return;
                }
            },
            None => outputs.iter().collect(),
        };
        for (name, output) in selected {
            out.locations
                .extend(self.decl_location(&child, Decl::Output(name)));
            if let Some(expression) = output.expression() {
                queue.extend(works(
                    &child,
                    expression_refs(&expression),
                    EachSource::None,
                ));
            }
        }
    }

    fn resource(
        &self,
        frame: &Frame,
        module: &ConfigModule<'_>,
        address: &str,
        attribute: Option<&str>,
        out: &mut Closure,
        queue: &mut Vec<Work>,
    ) {
        out.locations
            .extend(self.decl_location(frame, Decl::Resource(address)));
        if self.is_drifted(frame, address) {
            out.drifted_resources.insert(qualified(frame, address));
        }
        let Some(resource) = module.resource(address) else {
            out.unresolved.insert(qualified(frame, address));
            return;
        };
        let is_data = address.starts_with("data.");
        let stable =
            !is_data && self.planned.get(&(frame.clone(), address.to_string())) == Some(&false);
        if stable {
            // Planned as no-op: its values are the (refreshed) state; only drift can move them.
            return;
        }
        let expressions = resource.expressions();
        let each = EachSource::Resource(address.to_string());
        match attribute.and_then(|a| expressions.get(a)) {
            Some(node) => queue.extend(works(frame, node_refs(node), each)),
            None => {
                // A computed attribute (id, arn …) or the whole object: all of its inputs.
                for node in expressions.values() {
                    queue.extend(works(frame, node_refs(node), each.clone()));
                }
                queue.extend(self.instance_set_seeds(frame, resource));
                if let Some((provider_frame, provider_refs, _)) =
                    self.provider_refs(frame, resource)
                {
                    queue.extend(works(&provider_frame, provider_refs, EachSource::None));
                }
            }
        }
    }

    /// `count` / `for_each` of the block itself, as work items.
    pub fn instance_set_seeds(&self, frame: &Frame, resource: &ConfigResource<'_>) -> Vec<Work> {
        [resource.for_each_expression(), resource.count_expression()]
            .into_iter()
            .flatten()
            .flat_map(|e| works(frame, expression_refs(&e), EachSource::None))
            .collect()
    }

    /// The provider configuration a resource uses: (its frame, its references, its key).
    /// A key missing from `provider_config` falls back to the same provider in the parent
    /// module (an inherited provider).
    pub fn provider_refs(
        &self,
        frame: &Frame,
        resource: &ConfigResource<'_>,
    ) -> Option<(Frame, Vec<String>, String)> {
        let key = resource.provider_config_key.as_deref()?;
        let (prefix, local) = match key.split_once(':') {
            Some((prefix, local)) => (prefix, local),
            None => ("", key),
        };
        let mut key_frame: Frame = frame_of_module_address(prefix);
        if prefix.is_empty() {
            key_frame.clone_from(frame);
        }
        loop {
            let candidates = if key_frame.is_empty() {
                vec![local.to_string()]
            } else {
                vec![
                    format!("{}:{local}", module_prefix(&key_frame)),
                    format!("{}:{local}", key_frame.join(".")),
                ]
            };
            let found = candidates
                .iter()
                .find_map(|k| self.config.provider_config.get(k).map(|p| (k, p)));
            if let Some((found_key, provider)) = found {
                let provider_frame = provider
                    .module_address
                    .as_deref()
                    .map(frame_of_module_address)
                    .unwrap_or(key_frame);
                let references: Vec<String> = provider
                    .expressions()
                    .values()
                    .flat_map(|n| n.all_references())
                    .map(String::from)
                    .collect();
                return Some((provider_frame, references, found_key.clone()));
            }
            key_frame.pop()?;
        }
    }
}

fn is_no_change(actions: &[String]) -> bool {
    actions.iter().all(|a| a == "no-op" || a == "read")
}

fn strs(frame: &[String]) -> Vec<&str> {
    frame.iter().map(String::as_str).collect()
}

/// `module.a.module.b`.
pub(super) fn module_prefix(frame: &[String]) -> String {
    frame
        .iter()
        .map(|c| format!("module.{c}"))
        .collect::<Vec<_>>()
        .join(".")
}

/// `module.a.module.b.local.x` (or `local.x` in the root).
pub(super) fn qualified(frame: &[String], name: &str) -> String {
    if frame.is_empty() {
        name.to_string()
    } else {
        format!("{}.{name}", module_prefix(frame))
    }
}

/// `module.a["k"].module.b` → `[a, b]`; the 0.13-era form `a.b` (no `module.`) too.
fn frame_of_module_address(address: &str) -> Frame {
    address
        .split('.')
        .filter(|s| !s.is_empty() && *s != "module")
        .map(|s| s.split('[').next().unwrap_or(s).to_string())
        .collect()
}

pub(super) fn refs(references: &[String]) -> Vec<String> {
    let borrowed: Vec<&str> = references.iter().map(String::as_str).collect();
    most_specific(&borrowed)
        .into_iter()
        .map(String::from)
        .collect()
}

pub(super) fn node_refs(node: &ExpressionNode) -> Vec<String> {
    most_specific(&node.all_references())
        .into_iter()
        .map(String::from)
        .collect()
}

pub(super) fn expression_refs(expression: &Expression) -> Vec<String> {
    refs(&expression.references)
}

pub(super) fn works(frame: &[String], references: Vec<String>, each: EachSource) -> Vec<Work> {
    references
        .into_iter()
        .map(|reference| Work {
            frame: frame.to_vec(),
            reference,
            each: each.clone(),
        })
        .collect()
}
