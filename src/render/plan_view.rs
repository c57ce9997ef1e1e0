//! The template context for plan comments, with details cut to a given budget.
//!
//! Shortening keeps a prefix: the first `attributes_kept` attribute rows (counted across all
//! roots and resources in order) and the first `resources_kept` resource entries. Summary,
//! drift warnings, warnings, denials and failures are always complete.

use serde::Serialize;

use crate::model::view::{
    AdviceView, AttrView, CommentMeta, DriftWarning, FailureRow, PlanComment, PlanCounts,
    PlanStatus, RunNote,
};

/// How much of the optional detail to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanTrim {
    pub resources_kept: usize,
    pub attributes_kept: usize,
}

impl PlanTrim {
    pub fn everything(comment: &PlanComment) -> PlanTrim {
        PlanTrim {
            resources_kept: resource_count(comment),
            attributes_kept: attribute_count(comment),
        }
    }
}

pub fn resource_count(comment: &PlanComment) -> usize {
    comment
        .repo_root_summaries
        .iter()
        .map(|r| r.resources.len())
        .sum()
}

pub fn attribute_count(comment: &PlanComment) -> usize {
    comment
        .repo_root_summaries
        .iter()
        .flat_map(|r| &r.resources)
        .map(|res| res.attributes.len())
        .sum()
}

#[derive(Debug, Serialize)]
pub struct PlanView<'a> {
    pub meta: &'a CommentMeta,
    pub drift_warnings: &'a [DriftWarning],
    pub denials: &'a [String],
    pub notes: &'a [RunNote],
    pub roots: Vec<RootPlanView<'a>>,
    /// Roots of a split `/plan` not finished yet.
    pub still_planning: &'a [crate::model::view::PlanningRoot],
    pub omitted_resources_total: usize,
    pub omitted_attributes_total: usize,
    /// Rendering into the check run itself (changes where "full output" points).
    pub in_check_run: bool,
}

#[derive(Debug, Serialize)]
pub struct RootPlanView<'a> {
    pub project: &'a str,
    pub dir: &'a str,
    pub workspace: &'a str,
    pub status: PlanStatus,
    pub counts: PlanCounts,
    pub warnings: &'a [String],
    pub errors: &'a [FailureRow],
    pub advice: &'a [AdviceView],
    /// Plan-time permission failures whose denied action is known.
    pub denials: &'a [crate::model::view::EnrichmentView],
    pub pending_enrichment: bool,
    pub details: Vec<ResourceDetail<'a>>,
    pub omitted_resources: usize,
    /// What the plan policy sets found (issue 42); never shortened.
    pub policy_checks: &'a [crate::model::view::PolicyCheckView],
}

#[derive(Debug, Serialize)]
pub struct ResourceDetail<'a> {
    pub address: &'a str,
    pub action: &'a str,
    pub action_reason: Option<&'a str>,
    pub attributes: &'a [AttrView],
    pub omitted_attributes: usize,
}

pub fn plan_view(comment: &PlanComment, trim: PlanTrim, in_check_run: bool) -> PlanView<'_> {
    let mut resources_left = trim.resources_kept;
    let mut attributes_left = trim.attributes_kept;
    let mut omitted_resources_total = 0;
    let mut omitted_attributes_total = 0;
    let roots = comment
        .repo_root_summaries
        .iter()
        .map(|root| {
            let shown = root.resources.len().min(resources_left);
            resources_left -= shown;
            let omitted_resources = root.resources.len() - shown;
            omitted_resources_total += omitted_resources;
            let details = root.resources[..shown]
                .iter()
                .map(|res| {
                    let kept = res.attributes.len().min(attributes_left);
                    attributes_left -= kept;
                    let omitted_attributes = res.attributes.len() - kept + res.omitted_attributes;
                    omitted_attributes_total += omitted_attributes;
                    ResourceDetail {
                        address: &res.address,
                        action: &res.action,
                        action_reason: res.action_reason.as_deref(),
                        attributes: &res.attributes[..kept],
                        omitted_attributes,
                    }
                })
                .collect();
            RootPlanView {
                project: &root.project,
                dir: &root.dir,
                workspace: &root.workspace,
                status: root.status,
                counts: root.counts,
                warnings: &root.warnings,
                errors: &root.errors,
                advice: &root.advice,
                denials: &root.denials,
                pending_enrichment: root.pending_enrichment,
                details,
                omitted_resources,
                policy_checks: &root.policy_checks,
            }
        })
        .collect();
    PlanView {
        meta: &comment.meta,
        drift_warnings: &comment.drift_warnings,
        denials: &comment.denials,
        notes: &comment.notes,
        roots,
        still_planning: &comment.still_planning,
        omitted_resources_total,
        omitted_attributes_total,
        in_check_run,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::samples;

    #[test]
    fn trimming_keeps_a_prefix_and_counts_what_it_dropped() {
        let comment = samples::plan_with_changes();
        let total_attrs = attribute_count(&comment);
        let total_res = resource_count(&comment);
        assert!(total_res >= 3 && total_attrs >= 3);

        let full = plan_view(&comment, PlanTrim::everything(&comment), false);
        assert_eq!(full.omitted_resources_total, 0);
        assert_eq!(full.omitted_attributes_total, 0);

        let one_attr = plan_view(
            &comment,
            PlanTrim {
                resources_kept: total_res,
                attributes_kept: 1,
            },
            false,
        );
        assert_eq!(one_attr.omitted_attributes_total, total_attrs - 1);
        assert_eq!(one_attr.omitted_resources_total, 0);
        let first = &one_attr.roots[0].details[0];
        assert_eq!(first.attributes.len(), 1);

        let one_res = plan_view(
            &comment,
            PlanTrim {
                resources_kept: 1,
                attributes_kept: 0,
            },
            false,
        );
        assert_eq!(one_res.omitted_resources_total, total_res - 1);
        let shown: usize = one_res.roots.iter().map(|r| r.details.len()).sum();
        assert_eq!(shown, 1);
        // failures and warnings are untouched by trimming
        for (view, root) in one_res.roots.iter().zip(&comment.repo_root_summaries) {
            assert_eq!(view.errors, root.errors.as_slice());
            assert_eq!(view.warnings, root.warnings.as_slice());
        }
    }
}
