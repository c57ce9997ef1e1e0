//! Check-run output (title, summary, text) and annotations.
//!
//! The summary holds what the comment's top holds (drift, summary table, failures,
//! advice); the text holds the per-resource details with its own 65,535-character budget.

use minijinja::Value;

use super::fit::char_count;
use super::plan_view::{plan_view, PlanTrim};
use super::{too_large, RenderError, Renderer, CHECK_RUN_TEXT_LIMIT_CHARS};
use crate::model::view::{
    AnnotationLevel, AnnotationView, ApplyComment, ApplyResult, CheckRunText, FailureRow,
    PlanComment, PlanStatus,
};

/// Check-run titles are kept to one short line.
pub const CHECK_RUN_TITLE_LIMIT: usize = 255;

impl Renderer {
    pub fn check_run_plan(&self, comment: &PlanComment) -> Result<CheckRunText, RenderError> {
        let view = plan_view(comment, PlanTrim::everything(comment), true);
        let summary = self.render_with_marker(
            super::template_names::CHECK_RUN_PLAN_SUMMARY,
            Value::from_serialize(&view),
            "",
        )?;
        if char_count(&summary) > CHECK_RUN_TEXT_LIMIT_CHARS {
            return Err(too_large(
                "check run summary",
                summary,
                CHECK_RUN_TEXT_LIMIT_CHARS,
            ));
        }
        let text = self.fit_plan(
            super::template_names::CHECK_RUN_PLAN_TEXT,
            comment,
            "",
            true,
            CHECK_RUN_TEXT_LIMIT_CHARS,
        )?;
        Ok(CheckRunText {
            title: limit_title(plan_title(comment)),
            summary,
            text,
        })
    }

    pub fn check_run_apply(&self, comment: &ApplyComment) -> Result<CheckRunText, RenderError> {
        let summary = self.fit_apply(
            super::template_names::CHECK_RUN_APPLY_SUMMARY,
            comment,
            "",
            true,
            CHECK_RUN_TEXT_LIMIT_CHARS,
        )?;
        Ok(CheckRunText {
            title: limit_title(apply_title(comment)),
            summary,
            text: String::new(),
        })
    }
}

fn plan_title(comment: &PlanComment) -> String {
    let roots = &comment.repo_root_summaries;
    let failed = roots
        .iter()
        .filter(|r| r.status == PlanStatus::Failed)
        .count();
    if failed > 0 {
        return format!("Plan failed in {failed} of {} roots", roots.len());
    }
    let sum = |f: fn(&crate::model::view::PlanCounts) -> u32| -> u32 {
        roots.iter().map(|r| f(&r.counts)).sum()
    };
    let (add, change, destroy, replace) = (
        sum(|c| c.add),
        sum(|c| c.change),
        sum(|c| c.destroy),
        sum(|c| c.replace),
    );
    let drift = if comment.drift_warnings.is_empty() {
        String::new()
    } else {
        format!(
            " (⚠ {} change(s) this PR does not explain)",
            comment.drift_warnings.len()
        )
    };
    if add + change + destroy + replace == 0 {
        format!("Plan: no changes{drift}")
    } else {
        format!(
            "Plan: {add} to add, {change} to change, {destroy} to destroy, {replace} to replace{drift}"
        )
    }
}

fn apply_title(comment: &ApplyComment) -> String {
    let (mut done, mut failed, mut not_reached) = (0, 0, 0);
    for root in &comment.roots {
        done += root.counts.done;
        failed += root.counts.failed;
        not_reached += root.counts.not_reached;
    }
    format!("Apply: {done} done, {failed} failed, {not_reached} not reached")
}

fn limit_title(title: String) -> String {
    if char_count(&title) <= CHECK_RUN_TITLE_LIMIT {
        return title;
    }
    let mut short: String = title.chars().take(CHECK_RUN_TITLE_LIMIT - 1).collect();
    short.push('…');
    short
}

/// One failure annotation per plan failure that has a source location in the repository.
pub fn annotations_for_plan(comment: &PlanComment) -> Vec<AnnotationView> {
    comment
        .repo_root_summaries
        .iter()
        .flat_map(|root| root.errors.iter().map(move |e| (root.dir.as_str(), e)))
        .filter_map(|(dir, e)| failure_annotation(dir, e))
        .collect()
}

/// The repository path of `file`, which Terraform names relative to the root `dir`
/// (`main.tf`, `../modules/vpc/main.tf`); `None` outside the repository or in Terraform's
/// module cache (`.terraform/`), which annotations cannot point at.
pub fn repo_path(dir: &str, file: &str) -> Option<String> {
    let in_module_cache = dir
        .split('/')
        .chain(file.split('/'))
        .any(|p| p == ".terraform");
    if file.is_empty() || in_module_cache {
        return None;
    }
    crate::project::join_relative(dir, file).filter(|path| path != ".")
}

/// One failure annotation per failed or interrupted resource with a known location, and
/// one per configuration error.
pub fn annotations_for_apply(comment: &ApplyComment) -> Vec<AnnotationView> {
    let mut out = Vec::new();
    for root in &comment.roots {
        for error in &root.config_errors {
            let Some(path) = repo_path(&root.dir, &error.file) else {
                continue;
            };
            out.push(AnnotationView {
                path,
                start_line: error.line,
                end_line: error.line,
                level: AnnotationLevel::Failure,
                title: error.summary_category.clone(),
                message: format!("{} in {}", error.summary_category, root.dir),
            });
        }
        for row in &root.rows {
            let Some(location) = &row.location else {
                continue;
            };
            let Some(path) = repo_path(&root.dir, &location.file) else {
                continue;
            };
            if !matches!(row.result, ApplyResult::Failed | ApplyResult::Interrupted) {
                continue;
            }
            let mut message = row
                .category_label
                .clone()
                .unwrap_or_else(|| match row.result {
                    ApplyResult::Interrupted => "interrupted".to_string(),
                    _ => "failed".to_string(),
                });
            append_detail(&mut message, "AWS code", row.aws_code.as_deref());
            append_detail(&mut message, "IAM action", row.iam_action.as_deref());
            append_detail(&mut message, "deny", row.deny_kind_label.as_deref());
            out.push(AnnotationView {
                path,
                start_line: location.line,
                end_line: location.line,
                level: AnnotationLevel::Failure,
                title: limit_title(format!("{} ({})", row.address, row.action)),
                message,
            });
        }
    }
    out
}

fn failure_annotation(dir: &str, row: &FailureRow) -> Option<AnnotationView> {
    let location = row.location.as_ref()?;
    let path = repo_path(dir, &location.file)?;
    let mut message = row.category_label.clone();
    append_detail(&mut message, "AWS code", row.aws_code.as_deref());
    append_detail(&mut message, "IAM action", row.iam_action.as_deref());
    Some(AnnotationView {
        path,
        start_line: location.line,
        end_line: location.line,
        level: AnnotationLevel::Failure,
        title: limit_title(
            row.address
                .clone()
                .unwrap_or_else(|| row.category_label.clone()),
        ),
        message,
    })
}

fn append_detail(message: &mut String, label: &str, value: Option<&str>) {
    if let Some(value) = value {
        message.push_str(&format!("; {label}: {value}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::samples;

    #[test]
    fn titles_sum_the_roots() {
        assert_eq!(
            plan_title(&samples::plan_with_changes()),
            "Plan: 1 to add, 1 to change, 0 to destroy, 1 to replace"
        );
        assert_eq!(
            plan_title(&samples::plan_with_drift()),
            "Plan: 1 to add, 1 to change, 0 to destroy, 1 to replace (⚠ 2 change(s) this PR does not explain)"
        );
        assert_eq!(plan_title(&samples::plan_no_changes()), "Plan: no changes");
        assert_eq!(
            plan_title(&samples::plan_failed_config_error()),
            "Plan failed in 1 of 1 roots"
        );
        assert_eq!(
            apply_title(&samples::apply_partial_failure()),
            "Apply: 1 done, 3 failed, 1 not reached"
        );
    }

    #[test]
    fn long_titles_are_cut() {
        let title = limit_title("x".repeat(400));
        assert_eq!(char_count(&title), CHECK_RUN_TITLE_LIMIT);
        assert!(title.ends_with('…'));
    }

    #[test]
    fn apply_annotations_cover_located_failures_only() {
        let annotations = annotations_for_apply(&samples::apply_partial_failure());
        assert_eq!(
            annotations,
            vec![AnnotationView {
                path: "infra/eks/nodes.tf".into(),
                start_line: 3,
                end_line: 3,
                level: AnnotationLevel::Failure,
                title: "aws_eks_node_group.main (create)".into(),
                message: "permission missing; AWS code: AccessDenied; IAM action: iam:GetRole; deny: identity policy".into(),
            }]
        );
        let config = annotations_for_apply(&samples::apply_config_error());
        assert_eq!(config.len(), 1);
        assert_eq!(
            (config[0].path.as_str(), config[0].start_line),
            ("infra/eks/main.tf", 42)
        );
    }

    #[test]
    fn repository_paths_of_diagnostic_files() {
        let table: &[(&str, &str, Option<&str>)] = &[
            ("infra/eks", "main.tf", Some("infra/eks/main.tf")),
            ("infra/eks", "./nodes.tf", Some("infra/eks/nodes.tf")),
            (
                "infra/eks",
                "../../modules/vpc/main.tf",
                Some("modules/vpc/main.tf"),
            ),
            ("infra/eks", "sub/x.tf", Some("infra/eks/sub/x.tf")),
            ("", "main.tf", Some("main.tf")),
            (".", "main.tf", Some("main.tf")),
            ("infra/eks", "../../../outside.tf", None),
            ("infra/eks", ".terraform/modules/vpc/main.tf", None),
            ("infra/eks", "/etc/passwd", None),
            ("infra/eks", "", None),
        ];
        for (dir, file, expected) in table {
            assert_eq!(repo_path(dir, file).as_deref(), *expected, "{dir} + {file}");
        }
    }

    #[test]
    fn plan_annotations_use_failure_locations() {
        let annotations = annotations_for_plan(&samples::plan_failed_config_error());
        assert_eq!(annotations.len(), 1);
        assert_eq!(annotations[0].title, "configuration error");
        assert_eq!(annotations[0].path, "infra/eks/main.tf");
        assert!(annotations_for_plan(&samples::plan_with_changes()).is_empty());
    }

    #[test]
    fn check_run_texts_fit_and_carry_the_summary() {
        let renderer = Renderer::new().unwrap();
        let out = renderer
            .check_run_plan(&samples::plan_with_drift())
            .unwrap();
        assert!(out.summary.contains("ADMIN\\_CIDRS") || out.summary.contains("`ADMIN_CIDRS`"));
        assert!(out.summary.contains("| project | dir | workspace |"));
        assert!(!out.summary.contains("<details>"));
        assert!(out.text.contains("<details>"));
        assert!(!out.summary.contains("tfgate:kind="));
        let apply = renderer
            .check_run_apply(&samples::apply_partial_failure())
            .unwrap();
        assert!(apply.summary.contains("`iam:GetRole`"));
    }
}
