//! Size fitting and template-override tests for [`Renderer`].

use super::samples;
use super::*;

fn big_plan(resources: usize, attributes_each: usize) -> PlanComment {
    let mut comment = samples::plan_with_drift();
    let big = &mut comment.repo_root_summaries[0];
    big.resources = (0..resources)
        .map(|i| PlannedResourceView {
            address: format!("module.buckets.aws_s3_bucket.this[\"bucket-{i:05}\"]"),
            action: "create".into(),
            action_reason: None,
            omitted_attributes: 0,
            attributes: (0..attributes_each)
                .map(|a| AttrView {
                    path: format!("tags.attribute_{a}"),
                    before: None,
                    after: Some(format!("value-{i}-{a}-{}", "x".repeat(40))),
                    sensitive: false,
                    unknown: false,
                })
                .collect(),
        })
        .collect();
    big.counts.add = resources as u32;
    big.warnings = (0..15)
        .map(|i| format!("warning number {i}: deprecated argument"))
        .collect();
    let mut failed = samples::plan_failed_config_error().repo_root_summaries[0].clone();
    failed.project = "network".into();
    failed.errors = (0..40)
        .map(|i| FailureRow {
            address: Some(format!("aws_subnet.private[{i}]")),
            aws_code: Some("UnauthorizedOperation".into()),
            category_id: "permission_missing".into(),
            category_label: "permission missing".into(),
            iam_action: Some("ec2:DescribeSubnets".into()),
            location: None,
        })
        .collect();
    comment.repo_root_summaries.push(failed);
    comment
}

/// Resource entries shown, folded (`<details>`) or compact (a list line).
fn shown_details(text: &str) -> usize {
    text.lines()
        .filter(|l| {
            l.starts_with("<details><summary><code>module.buckets")
                || l.starts_with("- `module.buckets")
        })
        .count()
}

#[test]
fn ten_thousand_resources_fit_with_summary_failures_and_an_exact_note() {
    let comment = big_plan(10_000, 3);
    let text = Renderer::new().unwrap().render_plan(&comment).unwrap();

    assert!(char_count(&text) <= COMMENT_LIMIT_CHARS);
    assert!(char_count(&text) <= 65_536);
    // summary rows for both roots, drift, warnings and every failure are present
    assert!(text.contains("| `eks` | `infra/eks` | `default` | 10000 | 1 | 0 | 1 | 📝 changes |"));
    assert!(text.contains("| `network` | `infra/eks` | `default` | 0 | 0 | 0 | 0 | ❌ failed |"));
    assert!(text.contains("shared input `ADMIN_CIDRS`"));
    for i in 0..15 {
        assert!(text.contains(&format!("warning number {i}:")));
    }
    for i in 0..40 {
        assert!(
            text.contains(&format!("`aws_subnet.private[{i}]`")),
            "failure {i}"
        );
    }
    // details are a prefix, and the note names exactly what is missing
    let shown = shown_details(&text);
    assert!(shown > 0 && shown < 10_000, "{shown} shown");
    assert!(text.contains("bucket-00000"));
    assert!(!text.contains("bucket-09999"));
    let note = format!(
        "{} more not shown; full redacted output in the check run",
        10_000 - shown
    );
    assert!(text.contains(&note), "missing {note:?}");
    assert!(text.contains(&format!(
        "Shortened to fit GitHub's comment limit: {} more not shown",
        10_000 - shown
    )));
    // fitting is tight: the budget is mostly used
    assert!(char_count(&text) > COMMENT_LIMIT_CHARS - 1_000);
}

#[test]
fn attribute_rows_go_before_whole_resources() {
    // 60 resources × 40 long attributes: too big, but fits once attributes are cut.
    let comment = big_plan(60, 40);
    let text = Renderer::new().unwrap().render_plan(&comment).unwrap();
    assert!(char_count(&text) <= COMMENT_LIMIT_CHARS);
    assert_eq!(shown_details(&text), 60);
    assert!(!text.contains("more not shown; full redacted output"));
    let shown_rows = text.matches("| `tags.attribute_").count();
    let omitted = 60 * 40 - shown_rows;
    assert!(omitted > 0);
    assert!(text.contains(&format!("{omitted} attribute changes not shown")));
    // the cut is from the end: the first resource is complete, the last has none shown
    assert!(text.contains("value-0-39-"));
    assert!(!text.contains("value-59-0-"));
}

#[test]
fn apply_keeps_every_failure_and_counts_the_rows_it_drops() {
    let mut comment = samples::apply_partial_failure();
    let root = &mut comment.roots[0];
    let failed_rows = root.rows.clone();
    root.rows = (0..10_000)
        .map(|i| ApplyRow {
            address: format!("aws_route53_record.r[{i}]"),
            action: "create".into(),
            result: ApplyResult::Done,
            aws_code: None,
            category_id: None,
            category_label: None,
            iam_action: None,
            deny_kind_label: None,
            location: None,
            fresh_cause: None,
        })
        .chain(failed_rows.iter().cloned())
        .collect();
    let optional_total = root
        .rows
        .iter()
        .filter(|r| !r.result.is_essential())
        .count();
    let text = Renderer::new().unwrap().render_apply(&comment).unwrap();
    assert!(char_count(&text) <= COMMENT_LIMIT_CHARS);
    for row in failed_rows.iter().filter(|r| r.result.is_essential()) {
        assert!(
            text.contains(&escape::code_span(&row.address, true)),
            "{}",
            row.address
        );
    }
    let shown_optional =
        text.matches("| ✅ done |").count() + text.matches("| ⏭ not reached |").count();
    let note = format!(
        "{} more not shown; full redacted output in the check run",
        optional_total - shown_optional
    );
    assert!(text.contains(&note), "missing {note:?}");
    assert_eq!(text.matches("- **propagation delay**:").count(), 1);
}

#[test]
fn essentials_over_the_limit_are_an_error_not_a_cut() {
    let mut comment = samples::plan_failed_config_error();
    let row = comment.repo_root_summaries[0].errors[0].clone();
    comment.repo_root_summaries[0].errors = vec![row; 2_000];
    match Renderer::new().unwrap().render_plan(&comment) {
        Err(RenderError::TooLarge { kind, chars, limit }) => {
            assert_eq!(kind, "plan");
            assert!(chars > limit);
        }
        other => panic!("expected TooLarge, got {other:?}"),
    }
}

fn with_overrides(files: &[(&str, &str)]) -> Result<Renderer, RenderError> {
    Renderer::with_override_files(
        files
            .iter()
            .map(|(n, s)| (n.to_string(), s.to_string()))
            .collect(),
    )
}

#[test]
fn override_replaces_the_template_of_the_same_name() {
    let renderer = with_overrides(&[(
        "_footer.md.j2",
        "\n_Questions? Ask in {{ '#platform'|code }}. Run {{ meta.run_id|code }}._\n{{ marker }}\n",
    )])
    .unwrap();
    let text = renderer.render_plan(&samples::plan_with_changes()).unwrap();
    assert!(text.contains("_Questions? Ask in `#platform`. Run `r-0042`._"));
    assert!(!text.contains("requested by"));
    assert_eq!(parse_marker(&text).unwrap().kind, CommentKind::Plan);
}

#[test]
fn override_may_add_a_partial_for_other_overrides() {
    let renderer = with_overrides(&[
        ("_company.md.j2", "> Change window: weekdays 09–17 KST\n"),
        (
            "lock_held.md.j2",
            "{% include \"_company.md.j2\" %}\nLocked by PR {{ body.holder_pr }}.\n",
        ),
    ])
    .unwrap();
    let notice = samples::notices()
        .into_iter()
        .find(|n| notice_kind(&n.body) == CommentKind::LockHeld)
        .unwrap();
    let text = renderer.render_notice(&notice).unwrap();
    assert!(text.starts_with("> Change window: weekdays 09–17 KST\nLocked by PR 11."));
    // the override dropped the footer; the marker is appended anyway
    assert_eq!(parse_marker(&text).unwrap().kind, CommentKind::LockHeld);
}

#[test]
fn broken_overrides_fail_at_load_time() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "apply.md.j2",
            "{{ roots|no_such_filter }}",
            "unknown filter",
        ),
        (
            "_drift.md.j2",
            "{{ drift_warnings[0].no_such_field }}",
            "undefined",
        ),
        (
            "lock_held.md.j2",
            "{% include \"_missing.md.j2\" %}",
            "not found",
        ),
    ];
    for (name, source, hint) in cases {
        match with_overrides(&[(name, source)]) {
            Err(RenderError::Template { name: got, message }) => {
                assert!(
                    message.to_lowercase().contains(hint),
                    "{name}: message {message:?} lacks {hint:?}"
                );
                // the error names the template the admin must fix
                assert_eq!(&got, name, "{message}");
            }
            Err(other) => panic!("{name}: unexpected error {other}"),
            Ok(_) => panic!("{name}: broken override accepted"),
        }
    }
}

#[test]
fn a_syntax_error_names_the_file_and_line() {
    match with_overrides(&[("plan.md.j2", "line one\n{% if %}")]) {
        Err(RenderError::Syntax {
            file,
            line,
            message,
        }) => {
            assert_eq!((file.as_str(), line), ("plan.md.j2", 2));
            assert!(message.contains("syntax error"), "{message}");
        }
        other => panic!("expected a syntax error, got {other:?}"),
    }
}

#[test]
fn unknown_override_names_are_rejected() {
    assert!(matches!(
        with_overrides(&[("plan.md", "x")]),
        Err(RenderError::UnknownTemplate(name)) if name == "plan.md"
    ));
}

#[test]
fn default_list_matches_the_templates_directory() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/templates");
    let mut on_disk: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md.j2"))
        .collect();
    on_disk.sort();
    let embedded: Vec<String> = DEFAULT_TEMPLATES
        .iter()
        .map(|(n, _)| n.to_string())
        .collect();
    assert_eq!(embedded, on_disk);
}

#[test]
fn check_run_of_a_huge_plan_fits_both_fields() {
    let comment = big_plan(10_000, 3);
    let out = Renderer::new().unwrap().check_run_plan(&comment).unwrap();
    assert!(char_count(&out.summary) <= CHECK_RUN_TEXT_LIMIT_CHARS);
    assert!(char_count(&out.text) <= CHECK_RUN_TEXT_LIMIT_CHARS);
    assert!(char_count(&out.title) <= CHECK_RUN_TITLE_LIMIT);
    for i in 0..40 {
        assert!(out.summary.contains(&format!("`aws_subnet.private[{i}]`")));
    }
    let shown = shown_details(&out.text);
    assert!(out.text.contains(&format!(
        "{} more not shown; the full redacted output is kept on the tfgate server for admins",
        10_000 - shown
    )));
    assert!(!out.summary.contains("tfgate:kind="));
}

#[test]
fn renderer_can_be_shared_between_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Renderer>();
}
