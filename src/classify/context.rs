//! The one place a failing resource's [`ClassifyContext`] is built from its apply: used by the
//! bot's apply comment, `tfgate render apply` / `tfgate run` and so the UI's run page.

use super::{ClassifyContext, FreshRef};
use crate::terraform::ApplyContext;

/// Context of the resource `address` that failed at `failed_at` (its `@timestamp`): the
/// resources created before it in this apply, whether its configuration refers to one, and
/// their identifiers (the error text naming one counts as referring to it).
pub fn context_for_failure(
    apply: &ApplyContext,
    address: &str,
    failed_at: Option<&str>,
) -> ClassifyContext {
    let fresh_resources: Vec<FreshRef> = apply
        .fresh_before(address, failed_at)
        .into_iter()
        .map(|f| FreshRef {
            address: f.resource.address.clone(),
            identifiers: f.resource.identifiers.clone(),
            referenced: f.referenced,
            seconds_earlier: f.seconds_earlier,
        })
        .collect();
    let mut fresh_identifiers: Vec<String> = fresh_resources
        .iter()
        .flat_map(|f| f.identifiers.iter().cloned())
        .collect();
    fresh_identifiers.sort();
    fresh_identifiers.dedup();
    ClassifyContext {
        has_address: true,
        refers_to_fresh_resource: fresh_resources.iter().any(|f| f.referenced),
        fresh_identifiers,
        fresh_resources,
    }
}
