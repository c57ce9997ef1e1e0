//! Attribution of every change in a plan: the changed attribute paths, the expressions behind
//! them, the variables and resources they reach, and whether the PR diff, a changed shared
//! input, the lock file or real drift explains them. Values are never compared.

use std::collections::{BTreeMap, BTreeSet};

use crate::terraform::plan_config::{ConfigResource, Configuration};
use crate::terraform::{attribute_changes as diff_attributes, split_instance_address};
use crate::terraform::{PathStep, PlanJson, ResourceChange};

use super::closure::{
    module_prefix, qualified, works, Closure, Decl, EachSource, Frame, Location, Resolver, Work,
};
use super::config_path::expression_for_path;
use super::explain::first_explaining_file;
use super::hcl_index::HclIndex;
use super::report::{CauseTrace, ChangeAttribution, DriftReport, DriftWarningLine, Verdict};
use super::status::{InputStatus, SharedInputRef};

/// The GitHub PR files API returns at most this many files.
pub const PR_FILES_LIMIT: usize = 3000;

/// Everything attribution needs besides the plan.
#[derive(Debug, Clone, Copy)]
pub struct AttributionContext<'c> {
    /// Shared inputs declared in policy for this root.
    pub shared_inputs: &'c [SharedInputRef],
    /// Root variable names of shared inputs that changed since the last apply.
    pub changed_inputs: &'c BTreeSet<String>,
    /// Input names whose lock entry this PR updates to the live fingerprint.
    pub lock_bumped_inputs: &'c BTreeSet<String>,
    /// Repo-relative paths of the files in the PR diff.
    pub pr_files: &'c [String],
    /// Repo-relative directory of the root module (`""` for the repo root).
    pub root_dir: &'c str,
    /// What the checked-out HCL says; `&HclIndex::default()` when not available.
    pub hcl: &'c HclIndex,
}

/// `changed_inputs` (variable names) and `lock_bumped_inputs` (input names) from statuses.
pub fn input_sets(statuses: &[InputStatus]) -> (BTreeSet<String>, BTreeSet<String>) {
    let changed = statuses
        .iter()
        .filter(|s| s.is_changed())
        .map(|s| s.variable.clone())
        .collect();
    let bumped = statuses
        .iter()
        .filter(|s| s.lock_updated_in_pr)
        .map(|s| s.name.clone())
        .collect();
    (changed, bumped)
}

/// Attributes every change of `plan` (actions other than no-op / read).
pub fn attribute_changes(plan: &PlanJson<'_>, ctx: &AttributionContext<'_>) -> DriftReport {
    let mut report = DriftReport::default();
    if ctx.pr_files.len() >= PR_FILES_LIMIT {
        report.warnings.push(DriftWarningLine::DiffTruncated {
            files: ctx.pr_files.len(),
        });
    }
    let empty = Configuration::default();
    let config = match &plan.configuration {
        Some(config) => {
            for input in ctx.shared_inputs {
                if !config.root_module.variables.contains_key(&input.variable) {
                    report.warnings.push(DriftWarningLine::InputNotDeclared {
                        input: input.name.clone(),
                        variable: input.variable.clone(),
                    });
                }
            }
            config
        }
        None => {
            report.warnings.push(DriftWarningLine::NoConfiguration);
            &empty
        }
    };
    let resolver = Resolver::new(plan, config, ctx.hcl, ctx.root_dir);
    for change in &plan.resource_changes {
        if is_no_change(&change.change.actions) {
            continue;
        }
        let (attribution, has_block) = attribute_one(&resolver, change, ctx);
        if !has_block && plan.configuration.is_some() {
            report.warnings.push(DriftWarningLine::NoConfigBlock {
                address: change.address.clone(),
            });
        }
        report.changes.push(attribution);
    }
    report
}

fn is_no_change(actions: &[String]) -> bool {
    actions.iter().all(|a| a == "no-op" || a == "read")
}

fn has(actions: &[String], action: &str) -> bool {
    actions.iter().any(|a| a == action)
}

/// A change of the instance set (not of an instance's values): a plain create, delete or forget.
fn changes_instance_set(actions: &[String]) -> bool {
    matches!(actions, [a] if a == "create" || a == "delete" || a == "forget")
}

fn only_removes(actions: &[String]) -> bool {
    !has(actions, "create") && !has(actions, "update")
}

/// What explains one change: its own block, the causes reaching it and the paths they change.
struct Causes {
    /// Drift of the resource itself.
    own: Closure,
    /// Cause label (configuration path, `for_each`, provider) → what it reaches.
    causes: Vec<(String, Closure)>,
    attribute_paths: BTreeSet<String>,
}

fn attribute_one(
    resolver: &Resolver<'_, '_>,
    change: &ResourceChange<'_>,
    ctx: &AttributionContext<'_>,
) -> (ChangeAttribution, bool) {
    let actions = &change.change.actions;
    let split = split_instance_address(&change.address);
    let (frame, block): (Frame, String) = split
        .map(|s| (s.module_calls, s.resource))
        .unwrap_or_default();
    let resource = resolver
        .config
        .module(&frame.iter().map(String::as_str).collect::<Vec<_>>())
        .and_then(|m| m.resource(&block));

    let mut locations = own_locations(resolver, &frame, &block, resource.is_some());
    let Causes {
        own,
        causes,
        attribute_paths,
    } = causes_of(resolver, change, &frame, &block, resource);
    let diff_paths = paths_the_diff_sets(&locations, &causes, ctx.pr_files);

    let mut all = own;
    for (_, closure) in &causes {
        all.extend(closure.clone());
    }
    locations.extend(all.locations.iter().cloned());
    let explained_by_diff = first_explaining_file(&locations, ctx.pr_files);

    let reached = inputs_reaching(ctx, &all.root_variables);
    let inputs: Vec<String> = sorted(reached.iter().map(|i| i.name.clone()));
    let changed: Vec<String> = sorted(
        reached
            .iter()
            .filter(|i| ctx.changed_inputs.contains(&i.variable))
            .map(|i| i.name.clone()),
    );
    let changed_input_paths = changed_input_paths(ctx, &causes, &changed);

    let drifted_resources: Vec<String> = all.drifted_resources.iter().cloned().collect();
    let unresolved: Vec<String> = all.unresolved.iter().cloned().collect();
    let verdict = verdict_of(
        ctx,
        &changed,
        explained_by_diff.is_some(),
        &drifted_resources,
        &unresolved,
    );

    let attribution = ChangeAttribution {
        address: change.address.clone(),
        actions: actions.clone(),
        attribute_paths: attribute_paths.into_iter().collect(),
        causes: cause_traces(causes),
        inputs,
        changed_inputs: changed,
        changed_input_paths,
        explained_by_diff,
        diff_paths,
        drifted_resources,
        unresolved,
        verdict,
    };
    (attribution, resource.is_some())
}

/// The cause labels the PR diff touches: all of them when it edits the block's own file (or a
/// module call on the way), else those whose references lead to a file it edits.
fn paths_the_diff_sets(
    own: &[Location],
    causes: &[(String, Closure)],
    pr_files: &[String],
) -> Vec<String> {
    let own_edited = first_explaining_file(own, pr_files).is_some();
    causes
        .iter()
        .filter(|(_, closure)| {
            own_edited || {
                let reached: Vec<Location> = closure.locations.iter().cloned().collect();
                first_explaining_file(&reached, pr_files).is_some()
            }
        })
        .map(|(label, _)| label.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// Where the change's own block lives, then the module calls on the way to it. Own location first:
/// it is the most telling explanation.
fn own_locations(
    resolver: &Resolver<'_, '_>,
    frame: &Frame,
    block: &str,
    in_configuration: bool,
) -> Vec<Location> {
    let mut locations: Vec<Location> = resolver
        .decl_location(frame, Decl::Resource(block))
        .into_iter()
        .collect();
    if !in_configuration && locations.is_empty() {
        // Removed from the configuration: by some `.tf` file of its module's directory.
        locations.extend(resolver.frame_dir(frame).map(Location::TfIn));
    }
    locations.extend(resolver.chain_locations(frame));
    locations
}

/// The changed expressions, instance-set expressions and provider configuration behind a change.
fn causes_of(
    resolver: &Resolver<'_, '_>,
    change: &ResourceChange<'_>,
    frame: &Frame,
    block: &str,
    resource: Option<&ConfigResource<'_>>,
) -> Causes {
    let actions = &change.change.actions;
    let mut causes: Vec<(String, Closure)> = Vec::new();
    let mut attribute_paths: BTreeSet<String> = BTreeSet::new();
    let mut own = Closure::default();
    if resolver.is_drifted(frame, block) {
        own.drifted_resources.insert(qualified(frame, block));
    }
    let Some(resource) = resource else {
        if !only_removes(actions) {
            attribute_paths.extend(changed_paths(change).iter().filter_map(|p| top_key(p)));
        }
        return Causes {
            own,
            causes,
            attribute_paths,
        };
    };
    if !only_removes(actions) {
        for (label, refs) in changed_expressions(resolver, change, frame, block, resource, &mut own)
        {
            attribute_paths.insert(label.clone());
            let each = EachSource::Resource(block.to_string());
            causes.push((label, resolver.closure(works(frame, refs, each))));
        }
    }
    if changes_instance_set(actions) {
        causes.extend(instance_set_causes(resolver, frame, resource));
    }
    if let Some((provider_frame, refs, key)) = resolver.provider_refs(frame, resource) {
        let mut closure = resolver.closure(works(&provider_frame, refs, EachSource::None));
        let local = key.rsplit(':').next().unwrap_or(&key).to_string();
        closure
            .locations
            .extend(resolver.decl_location(&provider_frame, Decl::Provider(&local)));
        causes.push((format!("provider {key}"), closure));
    }
    Causes {
        own,
        causes,
        attribute_paths,
    }
}

/// The shared inputs whose root variable is among `variables`.
fn inputs_reaching<'c>(
    ctx: &AttributionContext<'c>,
    variables: &BTreeSet<String>,
) -> Vec<&'c SharedInputRef> {
    ctx.shared_inputs
        .iter()
        .filter(|i| variables.contains(&i.variable))
        .collect()
}

/// Changed input name → the cause labels through which it reaches the change.
fn changed_input_paths(
    ctx: &AttributionContext<'_>,
    causes: &[(String, Closure)],
    changed: &[String],
) -> BTreeMap<String, Vec<String>> {
    let mut paths_by_input: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (via, closure) in causes {
        for input in inputs_reaching(ctx, &closure.root_variables) {
            if changed.contains(&input.name) {
                paths_by_input
                    .entry(input.name.clone())
                    .or_default()
                    .push(via.clone());
            }
        }
    }
    for paths in paths_by_input.values_mut() {
        paths.sort();
        paths.dedup();
    }
    paths_by_input
}

/// The most telling explanation, in order: changed shared inputs, the PR diff, drifted
/// resources, unresolved references, nothing.
fn verdict_of(
    ctx: &AttributionContext<'_>,
    changed: &[String],
    explained_by_diff: bool,
    drifted_resources: &[String],
    unresolved: &[String],
) -> Verdict {
    if !changed.is_empty() {
        let not_bumped: Vec<String> = changed
            .iter()
            .filter(|n| !ctx.lock_bumped_inputs.contains(*n))
            .cloned()
            .collect();
        if not_bumped.is_empty() {
            Verdict::ExplainedByLockfile {
                inputs: changed.to_vec(),
            }
        } else {
            Verdict::SharedInputDrift { inputs: not_bumped }
        }
    } else if explained_by_diff {
        Verdict::ExplainedByDiff
    } else if !drifted_resources.is_empty() {
        Verdict::ExplainedByResourceDrift {
            resources: drifted_resources.to_vec(),
        }
    } else if !unresolved.is_empty() {
        Verdict::Unresolved
    } else {
        Verdict::OutsideDiff
    }
}

/// The causes that reach anything, as report lines.
fn cause_traces(causes: Vec<(String, Closure)>) -> Vec<CauseTrace> {
    causes
        .into_iter()
        .filter(|(_, c)| {
            !(c.root_variables.is_empty()
                && c.drifted_resources.is_empty()
                && c.unresolved.is_empty())
        })
        .map(|(via, c)| CauseTrace {
            via,
            root_variables: c.root_variables.into_iter().collect(),
            drifted_resources: c.drifted_resources.into_iter().collect(),
            unresolved: c.unresolved.into_iter().collect(),
        })
        .collect()
}

fn sorted(items: impl Iterator<Item = String>) -> Vec<String> {
    let set: BTreeSet<String> = items.collect();
    set.into_iter().collect()
}

fn top_key(path: &[PathStep]) -> Option<String> {
    match path.first() {
        Some(PathStep::Key(k)) => Some(k.clone()),
        _ => None,
    }
}

/// Changed leaf paths and `replace_paths`.
fn changed_paths(change: &ResourceChange<'_>) -> Vec<Vec<PathStep>> {
    let mut paths: Vec<Vec<PathStep>> = diff_attributes(&change.change)
        .into_iter()
        .map(|c| c.path)
        .collect();
    paths.extend(change.change.replace_paths.iter().cloned());
    paths
}

/// Configuration path label → references, for every changed path. Adds `dynamic` block
/// references from the HCL index; a nested-block change with neither JSON nor HCL
/// expression is recorded in `own.unresolved`.
fn changed_expressions(
    resolver: &Resolver<'_, '_>,
    change: &ResourceChange<'_>,
    frame: &Frame,
    block: &str,
    resource: &ConfigResource<'_>,
    own: &mut Closure,
) -> BTreeMap<String, Vec<String>> {
    let expressions = resource.expressions();
    let hcl_resource = resolver
        .frame_dir(frame)
        .and_then(|dir| resolver.hcl.module(&dir))
        .and_then(|m| m.resources.get(block));
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for path in changed_paths(change) {
        let found = expression_for_path(&expressions, &path);
        if found.label.is_empty() {
            continue;
        }
        let entry = out.entry(found.label.clone()).or_default();
        entry.extend(found.references);
        let top = top_key(&path).unwrap_or_default();
        match hcl_resource.and_then(|r| r.dynamic_blocks.get(&top)) {
            Some(dynamic_refs) => entry.extend(dynamic_refs.iter().cloned()),
            None if !found.found && hcl_resource.is_none() && looks_like_block(&path) => {
                own.unresolved
                    .insert(qualified(frame, &format!("{block}.{top} (dynamic block?)")));
            }
            None => {}
        }
    }
    for refs in out.values_mut() {
        refs.sort();
        refs.dedup();
    }
    out
}

/// `name[i].attr…`: the shape of a nested block.
fn looks_like_block(path: &[PathStep]) -> bool {
    matches!(
        path,
        [PathStep::Key(_), PathStep::Index(_), PathStep::Key(_), ..]
    )
}

/// `for_each` / `count` of the block and of every module call on the way to it.
fn instance_set_causes(
    resolver: &Resolver<'_, '_>,
    frame: &Frame,
    resource: &ConfigResource<'_>,
) -> Vec<(String, Closure)> {
    let mut out = Vec::new();
    let own: Vec<(&str, _)> = vec![
        ("for_each", resource.for_each_expression()),
        ("count", resource.count_expression()),
    ];
    for (label, expression) in own {
        if let Some(expression) = expression {
            let seeds = works(
                frame,
                super::closure::expression_refs(&expression),
                EachSource::None,
            );
            out.push((label.to_string(), resolver.closure(seeds)));
        }
    }
    for depth in 1..=frame.len() {
        let parent: Frame = frame[..depth - 1].to_vec();
        let name = &frame[depth - 1];
        let call = resolver
            .config
            .module(&parent.iter().map(String::as_str).collect::<Vec<_>>())
            .and_then(|m| m.module_calls.get(name));
        let Some(call) = call else { continue };
        let prefix = module_prefix(&frame[..depth]);
        for (label, expression) in [
            ("for_each", call.for_each_expression()),
            ("count", call.count_expression()),
        ] {
            if let Some(expression) = expression {
                let seeds: Vec<Work> = works(
                    &parent,
                    super::closure::expression_refs(&expression),
                    EachSource::None,
                );
                out.push((format!("{prefix} {label}"), resolver.closure(seeds)));
            }
        }
    }
    out
}

#[cfg(test)]
#[path = "attribute_tests.rs"]
mod tests;
