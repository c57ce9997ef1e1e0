//! Base against head (pure): which deploying objects a PR adds, changes or removes, and which
//! of those changes a person must acknowledge before merge.

use std::collections::BTreeMap;

use super::DeployObject;

/// One changed object: before and after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub before: DeployObject,
    pub after: DeployObject,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeployDiff {
    pub added: Vec<DeployObject>,
    pub changed: Vec<Change>,
    pub removed: Vec<DeployObject>,
}

impl DeployDiff {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.changed.is_empty() && self.removed.is_empty()
    }
}

/// What differs between the two trees' objects (moving an object to another file or line is
/// no change).
pub fn diff(base: &[DeployObject], head: &[DeployObject]) -> DeployDiff {
    let before: BTreeMap<_, _> = base.iter().map(|o| (o.key(), o)).collect();
    let after: BTreeMap<_, _> = head.iter().map(|o| (o.key(), o)).collect();
    let mut out = DeployDiff::default();
    for (key, new) in &after {
        match before.get(key) {
            None => out.added.push((*new).clone()),
            Some(old) if !same_deployment(old, new) => out.changed.push(Change {
                before: (*old).clone(),
                after: (*new).clone(),
            }),
            Some(_) => {}
        }
    }
    out.removed = before
        .iter()
        .filter(|(key, _)| !after.contains_key(*key))
        .map(|(_, old)| (*old).clone())
        .collect();
    out
}

fn same_deployment(a: &DeployObject, b: &DeployObject) -> bool {
    (&a.source, &a.destination, a.automated, a.prune)
        == (&b.source, &b.destination, b.automated, b.prune)
}

/// The diff of every watched folder (`(path glob, tool)`) between two trees.
pub fn compare(
    folders: &[(String, super::Tool)],
    base: &BTreeMap<String, String>,
    head: &BTreeMap<String, String>,
) -> Result<DeployDiff, Vec<super::ParseProblem>> {
    let mut out = DeployDiff::default();
    for tool in [super::Tool::Argocd, super::Tool::Flux] {
        let paths: Vec<String> = folders
            .iter()
            .filter(|(_, t)| *t == tool)
            .map(|(p, _)| p.clone())
            .collect();
        if paths.is_empty() {
            continue;
        }
        let before = super::collect(base, &paths, tool)?;
        let after = super::collect(head, &paths, tool)?;
        let d = diff(&before, &after);
        out.added.extend(d.added);
        out.changed.extend(d.changed);
        out.removed.extend(d.removed);
    }
    Ok(out)
}

/// One line per change a person must acknowledge: removals (on merge, a folder synced with
/// prune deletes what disappears from it), prune or automated sync turned on, and a changed
/// destination.
pub fn acknowledgements(diff: &DeployDiff) -> Vec<String> {
    let mut out = Vec::new();
    for o in &diff.removed {
        out.push(format!(
            "{} `{}` is removed: on merge, a folder synced with prune deletes it and what it deployed",
            o.kind.label(),
            o.name
        ));
    }
    for c in &diff.changed {
        let (old, new) = (&c.before, &c.after);
        if new.prune && !old.prune {
            out.push(format!(
                "{} `{}` turns prune on",
                new.kind.label(),
                new.name
            ));
        }
        if new.automated && !old.automated {
            out.push(format!(
                "{} `{}` turns automated sync on",
                new.kind.label(),
                new.name
            ));
        }
        if new.destination != old.destination {
            out.push(format!(
                "{} `{}` moves to another destination",
                new.kind.label(),
                new.name
            ));
        }
    }
    for o in diff.added.iter().filter(|o| o.automated && o.prune) {
        out.push(format!(
            "{} `{}` is new and syncs automatically with prune",
            o.kind.label(),
            o.name
        ));
    }
    out
}
