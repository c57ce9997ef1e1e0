//! The template context for apply comments, with rows cut to a given budget.
//!
//! Failed and interrupted rows, counts, configuration errors and advice are always kept;
//! only done / not-reached rows are shortened, keeping the first `optional_rows_kept` of
//! them (counted across roots in order).

use serde::Serialize;

use crate::model::view::EnrichmentView;

use crate::model::view::{
    AdviceView, AppliedPlan, ApplyComment, ApplyCounts, ApplyRow, ApplyStatus, CommentMeta,
    ConfigErrorView, RunNote,
};

pub fn optional_row_count(comment: &ApplyComment) -> usize {
    comment
        .roots
        .iter()
        .flat_map(|r| &r.rows)
        .filter(|row| !row.result.is_essential())
        .count()
}

#[derive(Debug, Serialize)]
pub struct ApplyView<'a> {
    pub meta: &'a CommentMeta,
    pub notes: &'a [RunNote],
    pub roots: Vec<RootApplyView<'a>>,
    pub omitted_rows_total: usize,
    pub in_check_run: bool,
}

#[derive(Debug, Serialize)]
pub struct RootApplyView<'a> {
    pub project: &'a str,
    pub dir: &'a str,
    pub workspace: &'a str,
    pub status: &'a ApplyStatus,
    pub counts: ApplyCounts,
    pub rows: Vec<&'a ApplyRow>,
    pub advice: &'a [AdviceView],
    pub config_errors: &'a [ConfigErrorView],
    pub pending_enrichment: bool,
    pub omitted_rows: usize,
    /// At most [`MAX_DENIALS_SHOWN`] per root; the statements repeat per denied action.
    pub denials: &'a [EnrichmentView],
    pub omitted_denials: usize,
    pub plan: Option<&'a AppliedPlan>,
}

/// Missing-permission entries listed per root (each failed row still shows its action).
pub const MAX_DENIALS_SHOWN: usize = 20;

pub fn apply_view(
    comment: &ApplyComment,
    optional_rows_kept: usize,
    in_check_run: bool,
) -> ApplyView<'_> {
    let mut optional_left = optional_rows_kept;
    let mut omitted_rows_total = 0;
    let roots = comment
        .roots
        .iter()
        .map(|root| {
            let mut omitted_rows = 0;
            let rows = root
                .rows
                .iter()
                .filter(|row| {
                    if row.result.is_essential() {
                        true
                    } else if optional_left > 0 {
                        optional_left -= 1;
                        true
                    } else {
                        omitted_rows += 1;
                        false
                    }
                })
                .collect();
            omitted_rows_total += omitted_rows;
            RootApplyView {
                project: &root.project,
                dir: &root.dir,
                workspace: &root.workspace,
                status: &root.status,
                counts: root.counts,
                rows,
                advice: &root.advice,
                config_errors: &root.config_errors,
                pending_enrichment: root.pending_enrichment,
                omitted_rows,
                denials: &root.denials[..root.denials.len().min(MAX_DENIALS_SHOWN)],
                omitted_denials: root.denials.len().saturating_sub(MAX_DENIALS_SHOWN),
                plan: root.plan.as_ref(),
            }
        })
        .collect();
    ApplyView {
        meta: &comment.meta,
        notes: &comment.notes,
        roots,
        omitted_rows_total,
        in_check_run,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::view::ApplyResult;
    use crate::render::samples;

    #[test]
    fn failed_rows_survive_any_trim_and_order_is_kept() {
        let comment = samples::apply_partial_failure();
        let optional = optional_row_count(&comment);
        assert!(optional >= 2);
        let view = apply_view(&comment, 0, false);
        assert_eq!(view.omitted_rows_total, optional);
        for (root_view, root) in view.roots.iter().zip(&comment.roots) {
            let essential: Vec<&ApplyRow> = root
                .rows
                .iter()
                .filter(|r| r.result.is_essential())
                .collect();
            assert_eq!(root_view.rows, essential);
        }
        let view = apply_view(&comment, 1, false);
        assert_eq!(view.omitted_rows_total, optional - 1);
        let first_optional = view.roots[0]
            .rows
            .iter()
            .find(|r| !r.result.is_essential())
            .unwrap();
        assert_eq!(first_optional.result, ApplyResult::Done);
    }
}
