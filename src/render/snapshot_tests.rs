//! Snapshot tests: one per template × outcome.

use super::samples;
use super::*;

/// Snapshot names without the crate/module prefix, so the files stay valid when this
/// module moves into the main crate.
fn snap_text(name: &str, text: String) {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

fn snap_yaml(name: &str, value: &impl serde::Serialize) {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_yaml_snapshot!(name, value));
}

fn renderer() -> Renderer {
    Renderer::new().expect("default templates load")
}

fn notice(kind: CommentKind) -> Notice {
    samples::notices()
        .into_iter()
        .find(|n| notice_kind(&n.body) == kind)
        .expect("a sample notice of every kind")
}

#[test]
fn plan_with_changes() {
    snap_text(
        "plan_with_changes",
        renderer()
            .render_plan(&samples::plan_with_changes())
            .unwrap(),
    );
}

#[test]
fn plan_no_changes() {
    snap_text(
        "plan_no_changes",
        renderer().render_plan(&samples::plan_no_changes()).unwrap(),
    );
}

#[test]
fn plan_failed_with_config_error() {
    snap_text(
        "plan_failed_with_config_error",
        renderer()
            .render_plan(&samples::plan_failed_config_error())
            .unwrap(),
    );
}

#[test]
fn plan_denied_at_plan_time_names_the_plan_role_and_the_statement() {
    let text = renderer()
        .render_plan(&samples::plan_denied_at_plan_time())
        .unwrap();
    assert!(text.contains("the plan role `tfgate-plan`"), "{text}");
    assert!(text.contains("in the plan role's account"), "{text}");
    assert!(text.contains("\"Action\": \"ec2:DescribeVpcs\""), "{text}");
    assert!(
        !text.contains("arn:") && !text.contains("111111111111"),
        "{text}"
    );
    snap_text("plan_denied_at_plan_time", text);
}

#[test]
fn plan_egress_blocked_names_the_endpoint_and_the_key() {
    let text = renderer()
        .render_plan(&samples::plan_egress_blocked())
        .unwrap();
    assert!(text.contains("egress blocked"), "{text}");
    assert!(!text.contains("configuration error"), "{text}");
    snap_text("plan_egress_blocked", text);
}

#[test]
fn plan_provider_not_allowed_names_the_source_and_the_key() {
    let text = renderer()
        .render_plan(&samples::plan_provider_not_allowed())
        .unwrap();
    assert!(text.contains("provider not allowed"), "{text}");
    snap_text("plan_provider_not_allowed", text);
}

#[test]
fn plan_split_in_progress() {
    let text = renderer()
        .render_plan(&samples::plan_split_in_progress())
        .unwrap();
    assert!(text.contains("| `network` | `infra/network` | `default` |  |  |  |  | ⏳ planning… |"));
    assert!(text.contains("2 more roots are still planning"));
    snap_text("plan_split_in_progress", text);
}

#[test]
fn plan_with_policy_checks() {
    let text = renderer()
        .render_plan(&samples::plan_with_policy_checks())
        .unwrap();
    assert!(text.contains("#### Policy checks: `eks`"), "{text}");
    assert!(
        text.contains("- ⛔ `network-guard` (deny): 2 failures"),
        "{text}"
    );
    assert!(text.contains("**Blocks `/apply` of `eks`.**"), "{text}");
    assert!(text.contains("`/approve-policies -p eks`"), "{text}");
    assert!(text.contains("- ✅ `baseline` (deny) passed"), "{text}");
    assert!(text.contains("fails closed"), "{text}");
    snap_text("plan_with_policy_checks", text);
}

#[test]
fn plan_drift_warning_comes_first() {
    let text = renderer().render_plan(&samples::plan_with_drift()).unwrap();
    let drift = text.find("changes because shared input").unwrap();
    let summary = text.find("| project | dir |").unwrap();
    let details = text.find("<details>").unwrap();
    assert!(drift < summary && summary < details);
    assert!(text.contains(
        "⚠ `aws_eks_cluster.this` (`vpc_config.public_access_cidrs`) changes because shared \
         input `ADMIN_CIDRS` changed since the last apply (fingerprint 3f2a…→9c1b…); \
         no file in this PR sets it."
    ));
    assert!(text.contains(
        "⚠ `aws_security_group.admin` (`ingress`) changes because shared input `ADMIN_CIDRS` \
         changed since the last apply (fingerprint 3f2a…→9c1b…); this PR also edits \
         `infra/eks/security.tf`, which sets `ingress`."
    ));
    snap_text("plan_drift_warning_comes_first", text);
}

#[test]
fn apply_success() {
    snap_text(
        "apply_success",
        renderer().render_apply(&samples::apply_success()).unwrap(),
    );
}

#[test]
fn apply_partial_failure_gives_advice_once_per_category() {
    let text = renderer()
        .render_apply(&samples::apply_partial_failure())
        .unwrap();
    // two propagation-delay rows, one advice line for that category; the row whose resource
    // refers to one created earlier in the apply names it, and the wait is said once
    assert_eq!(text.matches("| propagation delay |").count(), 1);
    assert_eq!(
        text.matches("| propagation delay: refers to `aws_iam_instance_profile.node`, created 4 s earlier in this apply |").count(),
        1
    );
    assert_eq!(
        text.matches("⏳ `aws_launch_template.node` failed right after")
            .count(),
        1
    );
    assert_eq!(text.matches("- **propagation delay**:").count(), 1);
    assert_eq!(text.matches("- **permission missing**:").count(), 1);
    snap_text("apply_partial_failure_gives_advice_once_per_category", text);
}

#[test]
fn apply_interrupted() {
    snap_text(
        "apply_interrupted",
        renderer()
            .render_apply(&samples::apply_interrupted())
            .unwrap(),
    );
}

#[test]
fn apply_config_error() {
    snap_text(
        "apply_config_error",
        renderer()
            .render_apply(&samples::apply_config_error())
            .unwrap(),
    );
}

#[test]
fn notice_lock_held() {
    snap_text(
        "notice_lock_held",
        renderer()
            .render_notice(&notice(CommentKind::LockHeld))
            .unwrap(),
    );
}

#[test]
fn notice_plan_stale() {
    snap_text(
        "notice_plan_stale",
        renderer()
            .render_notice(&notice(CommentKind::PlanStale))
            .unwrap(),
    );
}

#[test]
fn notice_command_rejected() {
    snap_text(
        "notice_command_rejected",
        renderer()
            .render_notice(&notice(CommentKind::CommandRejected))
            .unwrap(),
    );
}

#[test]
fn notice_policy_denied() {
    snap_text(
        "notice_policy_denied",
        renderer()
            .render_notice(&notice(CommentKind::PolicyDenied))
            .unwrap(),
    );
}

#[test]
fn notice_not_enabled() {
    snap_text(
        "notice_not_enabled",
        renderer()
            .render_notice(&notice(CommentKind::NotEnabled))
            .unwrap(),
    );
}

#[test]
fn notice_interrupted() {
    snap_text(
        "notice_interrupted",
        renderer()
            .render_notice(&notice(CommentKind::Interrupted))
            .unwrap(),
    );
}

#[test]
fn notice_help() {
    snap_text(
        "notice_help",
        renderer()
            .render_notice(&notice(CommentKind::Help))
            .unwrap(),
    );
}

#[test]
fn notice_internal_error() {
    snap_text(
        "notice_internal_error",
        renderer()
            .render_notice(&notice(CommentKind::InternalError))
            .unwrap(),
    );
}

#[test]
fn check_run_plan_with_drift() {
    let out = renderer()
        .check_run_plan(&samples::plan_with_drift())
        .unwrap();
    snap_yaml("check_run_plan_with_drift", &out);
}

#[test]
fn check_run_apply_partial_failure() {
    let out = renderer()
        .check_run_apply(&samples::apply_partial_failure())
        .unwrap();
    snap_yaml("check_run_apply_partial_failure", &out);
}

#[test]
fn every_comment_ends_with_a_parsable_marker() {
    let r = renderer();
    let plan = r.render_plan(&samples::plan_with_changes()).unwrap();
    assert_eq!(
        parse_marker(&plan),
        Some(Marker {
            kind: CommentKind::Plan,
            pr: 17,
            key: MarkerKey {
                root: "all".into(),
                run: "r-0042".into()
            }
        })
    );
    let apply = r.render_apply(&samples::apply_success()).unwrap();
    assert_eq!(parse_marker(&apply).unwrap().kind, CommentKind::Apply);
    for n in samples::notices() {
        let text = r.render_notice(&n).unwrap();
        assert_eq!(parse_marker(&text).unwrap().kind, notice_kind(&n.body));
    }
}

#[test]
fn hostile_values_cannot_ping_or_inject() {
    let mut plan = samples::plan_with_changes();
    let root = &mut plan.repo_root_summaries[0];
    root.project = "@octocat | <img src=x>".into();
    root.warnings = vec!["see [here](https://evil.example) @admins\n| x | y |".into()];
    root.resources[0].address = "aws_s3_bucket.b[\"@all</summary><b>x\"]".into();
    root.resources[0].attributes[0].after = Some("`a`|\n<script>".into());
    let text = renderer().render_plan(&plan).unwrap();
    let expected_fragments = [
        // table cell: one code span, pipe escaped (GitHub does not mention inside code)
        "| `@octocat \\| <img src=x>` | `infra/eks` |",
        // plain text: link, mention and table row defused
        "- ⚠ see \\[here\\](https:\u{200B}//evil.example) @\u{200B}admins \\| x \\| y \\|",
        // HTML block: tags and quotes escaped, mention broken
        "<summary><code>aws_s3_bucket.b[&quot;@\u{200B}all&lt;/summary&gt;&lt;b&gt;x&quot;]</code>",
        // code span that contains backticks and a newline stays one span on one line
        "| `` `a`\\| <script> `` |",
    ];
    for fragment in expected_fragments {
        assert!(text.contains(fragment), "missing {fragment:?} in:\n{text}");
    }
    let outside_code: String = text
        .lines()
        .filter(|l| !l.starts_with('|') && !l.starts_with("### ") && !l.starts_with("#### "))
        .collect();
    for forbidden in ["@octocat", "@admins", "<img", "<script", "](https://evil"] {
        assert!(
            !outside_code.contains(forbidden),
            "{forbidden} leaked:\n{text}"
        );
    }
}
