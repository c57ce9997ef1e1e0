//! What an apply created before a resource failed, and whether the failing resource refers to
//! it: from the apply's `-json` stream (`apply_complete` with its timestamp and `id_value`)
//! and the plan's [`PlanReferences`]. A failure right after a dependency was created may be AWS
//! not having propagated it yet.

use std::collections::BTreeMap;

use chrono::DateTime;

use super::outcome::Action;
use super::plan_references::{config_address, PlanReferences};
use super::ui_stream::{UiMessage, UiStream};

/// A resource this apply created (or replaced).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FreshResource {
    /// Instance address, e.g. `module.app.aws_iam_role.lambda[0]`.
    pub address: String,
    /// The same without instance keys, as configuration references name it.
    pub config_address: Option<String>,
    /// Provider id and names known at plan time (may hold ARNs: never post them).
    pub identifiers: Vec<String>,
    /// `@timestamp` of its `apply_complete`, in milliseconds since the epoch.
    pub completed_ms: Option<i64>,
    /// Position of its `apply_complete` in the stream.
    pub seq: usize,
}

/// A fresh resource as seen from one failing resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FreshBefore<'a> {
    pub resource: &'a FreshResource,
    /// The failing resource's configuration refers to it.
    pub referenced: bool,
    /// Whole seconds between its completion and the failure, when both times are known.
    pub seconds_earlier: Option<u64>,
}

/// The apply's fresh resources and the plan's references.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApplyContext {
    pub fresh: Vec<FreshResource>,
    refers_to: BTreeMap<String, Vec<String>>,
    /// Instance address → position of its `apply_errored` (or first error diagnostic).
    failed_seq: BTreeMap<String, usize>,
}

/// Milliseconds since the epoch of an RFC 3339 `@timestamp`.
pub fn timestamp_ms(text: &str) -> Option<i64> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.timestamp_millis())
}

impl ApplyContext {
    /// Collects the resources created or replaced in `stream`, with their identifiers.
    pub fn new(stream: &UiStream, plan: &PlanReferences) -> ApplyContext {
        let mut fresh = Vec::new();
        let mut failed_seq = BTreeMap::new();
        for (seq, message) in stream.messages.iter().enumerate() {
            match message {
                UiMessage::ApplyComplete { meta, hook }
                    if matches!(hook.action(), Some(Action::Create | Action::Replace)) =>
                {
                    let address = hook.resource.addr.clone();
                    let mut identifiers: Vec<String> = hook.id_value.iter().cloned().collect();
                    if let Some(names) = plan.known_names.get(&address) {
                        identifiers.extend(names.iter().cloned());
                    }
                    identifiers.sort();
                    identifiers.dedup();
                    fresh.push(FreshResource {
                        config_address: config_address(&address),
                        address,
                        identifiers,
                        completed_ms: meta.timestamp.as_deref().and_then(timestamp_ms),
                        seq,
                    });
                }
                UiMessage::ApplyErrored { hook, .. } => {
                    failed_seq.entry(hook.resource.addr.clone()).or_insert(seq);
                }
                UiMessage::Diagnostic { diagnostic, .. } => {
                    if let Some(a) = &diagnostic.address {
                        failed_seq.entry(a.clone()).or_insert(seq);
                    }
                }
                _ => {}
            }
        }
        ApplyContext {
            fresh,
            refers_to: plan.refers_to.clone(),
            failed_seq,
        }
    }

    /// The fresh resources completed before `address` failed (at `failed_at`, its
    /// `@timestamp`), the ones its configuration refers to first, most recent first.
    pub fn fresh_before(&self, address: &str, failed_at: Option<&str>) -> Vec<FreshBefore<'_>> {
        let failed_ms = failed_at.and_then(timestamp_ms);
        let failed_seq = self.failed_seq.get(address).copied();
        let refs = self.refers_to.get(address);
        let mut out: Vec<FreshBefore<'_>> = self
            .fresh
            .iter()
            .filter(|f| f.address != address)
            .filter(|f| failed_seq.map_or(true, |s| f.seq < s))
            .filter(|f| match (f.completed_ms, failed_ms) {
                (Some(done), Some(failed)) => done <= failed,
                _ => true,
            })
            .map(|f| FreshBefore {
                resource: f,
                referenced: f
                    .config_address
                    .as_ref()
                    .is_some_and(|c| refs.is_some_and(|r| r.contains(c))),
                seconds_earlier: match (f.completed_ms, failed_ms) {
                    (Some(done), Some(failed)) => Some((failed - done) as u64 / 1000),
                    _ => None,
                },
            })
            .collect();
        out.sort_by_key(|f| (!f.referenced, std::cmp::Reverse(f.resource.seq)));
        out
    }
}

#[cfg(test)]
#[path = "apply_context_tests.rs"]
mod tests;
