//! Checks of `plan_policies:`: set names, the Rego directory (relative, inside the policy
//! directory), project globs, owners and namespaces. The `.rego` files themselves are compiled
//! when the whole policy directory is loaded (`plan_sets.rs`).

use super::super::model::ResolvedProject;
use super::super::schema::PolicyFile;
use super::{idx, key, p, values, Checker};
use crate::model::{PlanPolicySet, PolicyOwners};
use std::collections::BTreeSet;

pub(super) fn check(
    c: &mut Checker,
    file: &PolicyFile,
    projects: &[ResolvedProject],
) -> Vec<PlanPolicySet> {
    let mut out = Vec::new();
    let mut names = BTreeSet::new();
    for (i, spec) in file.plan_policies.iter().enumerate() {
        let at = |k: &str| p(&[key("plan_policies"), idx(i), key(k)]);
        let before = c.problems.len();
        if let Err(message) = set_name(&spec.name) {
            c.at(&at("name"), message);
        } else if !names.insert(spec.name.to_lowercase()) {
            c.at(
                &at("name"),
                format!("plan policy set `{}` is named twice", spec.name),
            );
        }
        let path = c.check(&at("path"), rego_dir(&spec.path));
        check_projects(c, i, &spec.projects, file.allow_repo_layout, projects);
        for (j, user) in spec.owners.users.iter().enumerate() {
            let at = p(&[
                key("plan_policies"),
                idx(i),
                key("owners"),
                key("users"),
                idx(j),
            ]);
            c.check(&at, values::login(user));
        }
        for (j, team) in spec.owners.teams.iter().enumerate() {
            let at = p(&[
                key("plan_policies"),
                idx(i),
                key("owners"),
                key("teams"),
                idx(j),
            ]);
            c.check(&at, values::team(team));
        }
        for (j, ns) in spec.namespaces.iter().enumerate() {
            let at = p(&[key("plan_policies"), idx(i), key("namespaces"), idx(j)]);
            c.check(&at, package_name(ns));
        }
        if let (Some(path), true) = (path, c.problems.len() == before) {
            out.push(PlanPolicySet {
                name: spec.name.clone(),
                path,
                projects: spec.projects.clone(),
                enforcement: spec.enforcement,
                owners: PolicyOwners {
                    users: spec.owners.users.clone(),
                    teams: spec.owners.teams.clone(),
                },
                namespaces: spec.namespaces.clone(),
            });
        }
    }
    out
}

/// Each glob is valid and, unless the repository's layout may add projects, names one of the
/// file's projects (a glob naming none is most likely a typo that leaves roots unchecked).
fn check_projects(
    c: &mut Checker,
    i: usize,
    globs: &[String],
    layout_may_add: bool,
    projects: &[ResolvedProject],
) {
    for (j, glob) in globs.iter().enumerate() {
        let at = p(&[key("plan_policies"), idx(i), key("projects"), idx(j)]);
        let Ok(pattern) = glob::Pattern::new(glob) else {
            c.at(&at, format!("bad glob `{glob}`"));
            continue;
        };
        let names_one = projects
            .iter()
            .any(|pr| pattern.matches(pr.spec.id.as_str()) || pr.spec.id.as_str() == glob);
        if !names_one && !layout_may_add {
            c.at(
                &at,
                format!("`{glob}` names no project of this file; the set would check no root"),
            );
        }
    }
}

/// A set name: letters, digits, `-`, `_`, `.`; at most 64 characters.
pub(crate) fn set_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .next()
            .is_some_and(|ch| ch.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "bad plan policy set name `{name}`: use letters, digits, `-`, `_` and `.` (at most 64)"
        ))
    }
}

/// The set's directory, normalised (`./plan/` -> `plan`): relative to the policy file's
/// directory and inside it (no absolute path, no `..`, no `\`).
pub(crate) fn rego_dir(path: &str) -> Result<String, String> {
    let escapes = path.starts_with('/')
        || path.contains('\\')
        || path.split('/').any(|seg| seg == "..")
        || path.contains(':');
    if escapes {
        return Err(format!(
            "path `{path}` must be a directory inside the policy directory (relative, no `..`)"
        ));
    }
    let norm: Vec<&str> = path
        .split('/')
        .filter(|seg| !seg.is_empty() && *seg != ".")
        .collect();
    if norm.is_empty() {
        return Err(format!(
            "path `{path}` must name a sub-directory of the policy directory holding the \
             set's .rego files"
        ));
    }
    Ok(norm.join("/"))
}

/// A Rego package path such as `terraform.aws`.
fn package_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.split('.').all(|seg| {
            seg.chars()
                .next()
                .is_some_and(|ch| ch.is_ascii_alphabetic() || ch == '_')
                && seg
                    .chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
        });
    if ok {
        Ok(())
    } else {
        Err(format!(
            "bad namespace `{name}`: a Rego package such as `terraform.aws`"
        ))
    }
}
