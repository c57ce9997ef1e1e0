//! The embedded default templates (the crate's `templates/` directory).

/// `(name, source)` of every default template; partials start with `_`.
pub const DEFAULT_TEMPLATES: &[(&str, &str)] = &[
    (
        "_advice.md.j2",
        include_str!("../../templates/_advice.md.j2"),
    ),
    (
        "_apply_roots.md.j2",
        include_str!("../../templates/_apply_roots.md.j2"),
    ),
    (
        "_denials.md.j2",
        include_str!("../../templates/_denials.md.j2"),
    ),
    ("_drift.md.j2", include_str!("../../templates/_drift.md.j2")),
    (
        "_failure_table.md.j2",
        include_str!("../../templates/_failure_table.md.j2"),
    ),
    (
        "_footer.md.j2",
        include_str!("../../templates/_footer.md.j2"),
    ),
    (
        "_header.md.j2",
        include_str!("../../templates/_header.md.j2"),
    ),
    (
        "_plan_details.md.j2",
        include_str!("../../templates/_plan_details.md.j2"),
    ),
    (
        "_plan_summary.md.j2",
        include_str!("../../templates/_plan_summary.md.j2"),
    ),
    (
        "_resource_table.md.j2",
        include_str!("../../templates/_resource_table.md.j2"),
    ),
    ("apply.md.j2", include_str!("../../templates/apply.md.j2")),
    (
        "check_run_apply_summary.md.j2",
        include_str!("../../templates/check_run_apply_summary.md.j2"),
    ),
    (
        "check_run_plan_summary.md.j2",
        include_str!("../../templates/check_run_plan_summary.md.j2"),
    ),
    (
        "check_run_plan_text.md.j2",
        include_str!("../../templates/check_run_plan_text.md.j2"),
    ),
    (
        "command_rejected.md.j2",
        include_str!("../../templates/command_rejected.md.j2"),
    ),
    ("help.md.j2", include_str!("../../templates/help.md.j2")),
    (
        "internal_error.md.j2",
        include_str!("../../templates/internal_error.md.j2"),
    ),
    (
        "interrupted.md.j2",
        include_str!("../../templates/interrupted.md.j2"),
    ),
    (
        "lock_held.md.j2",
        include_str!("../../templates/lock_held.md.j2"),
    ),
    (
        "not_enabled.md.j2",
        include_str!("../../templates/not_enabled.md.j2"),
    ),
    ("plan.md.j2", include_str!("../../templates/plan.md.j2")),
    (
        "plan_stale.md.j2",
        include_str!("../../templates/plan_stale.md.j2"),
    ),
    (
        "policy_denied.md.j2",
        include_str!("../../templates/policy_denied.md.j2"),
    ),
];
