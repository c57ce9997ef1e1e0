//! The names of the templates the code renders by name (besides the notices, whose names come
//! from their kind: `notice_kind(body).as_str()` + `.md.j2`). The renderer uses these and
//! `tests/templates_used.rs` checks that each exists in `templates/` and renders its sample.

pub const PLAN: &str = "plan.md.j2";
pub const APPLY: &str = "apply.md.j2";
pub const CHECK_RUN_PLAN_SUMMARY: &str = "check_run_plan_summary.md.j2";
pub const CHECK_RUN_PLAN_TEXT: &str = "check_run_plan_text.md.j2";
pub const CHECK_RUN_APPLY_SUMMARY: &str = "check_run_apply_summary.md.j2";
pub const FOOTER: &str = "_footer.md.j2";
/// An earlier plan comment folded under an "outdated" summary.
pub const PLAN_OUTDATED: &str = "plan_outdated.md.j2";
/// The banner at the top of a plan comment another PR's apply made stale.
pub const PLAN_STALE_BANNER: &str = "plan_stale_banner.md.j2";
/// The `tfgate/policy` check run (`title` and `summary` blocks).
pub const POLICY_CHECK: &str = "policy_check.md.j2";
/// The `tfgate/deploy` check run (`title` and `summary` blocks).
pub const DEPLOY_CHECK: &str = "deploy_check.md.j2";
/// The `tfgate/apply` check run (`title` and `summary` blocks).
pub const APPLY_CHECK: &str = "apply_check.md.j2";
/// The `tfgate/plan-policy` check run (`title` and `summary` blocks).
pub const PLAN_POLICY_CHECK: &str = "check_run_plan_policy.md.j2";
/// The scheduled drift report issue's body.
pub const DRIFT_REPORT: &str = "drift_report.md.j2";

/// Every name above.
pub const NAMED: &[&str] = &[
    PLAN,
    APPLY,
    CHECK_RUN_PLAN_SUMMARY,
    CHECK_RUN_PLAN_TEXT,
    CHECK_RUN_APPLY_SUMMARY,
    FOOTER,
    PLAN_OUTDATED,
    PLAN_STALE_BANNER,
    POLICY_CHECK,
    DEPLOY_CHECK,
    APPLY_CHECK,
    PLAN_POLICY_CHECK,
    DRIFT_REPORT,
];
