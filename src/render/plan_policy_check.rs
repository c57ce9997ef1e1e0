//! The `tfgate/plan-policy` check run of a PR's head (`check_run_plan_policy.md.j2`, issue 42).

use minijinja::context;

use super::template_names::PLAN_POLICY_CHECK;
use super::{CheckTitleSummary, RenderError, Renderer};
use crate::model::view::PlanPolicyCheckText;

impl Renderer {
    /// The check run's title and summary.
    pub fn render_plan_policy_check(
        &self,
        check: &PlanPolicyCheckText,
    ) -> Result<CheckTitleSummary, RenderError> {
        self.title_and_summary(PLAN_POLICY_CHECK, context! { check => check })
    }
}

/// A sample check: `network` blocked by `ssh`, `eks` passing (load-time validation, tests).
pub fn sample_plan_policy_check() -> PlanPolicyCheckText {
    use crate::model::view::{PlanPolicyCheckRoot, PolicyCheckView};
    let view = |set: &str, failures: usize, blocks: bool| PolicyCheckView {
        set: set.into(),
        enforcement: "deny".into(),
        failures: (0..failures)
            .map(|i| crate::model::PolicyMessage {
                rule: "deny".into(),
                message: format!("rule {i}"),
                address: None,
            })
            .collect(),
        warnings: vec![],
        error: None,
        blocks_apply: blocks,
        owners: vec!["@alice".into()],
        approved_by: vec![],
    };
    PlanPolicyCheckText {
        head_sha_short: "9c1b2d4".into(),
        roots: vec![
            PlanPolicyCheckRoot {
                project: "network".into(),
                workspace: "default".into(),
                checks: vec![view("ssh", 2, true)],
            },
            PlanPolicyCheckRoot {
                project: "eks".into(),
                workspace: "default".into(),
                checks: vec![view("ssh", 0, false)],
            },
        ],
        blocked: 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_check_names_blocked_roots_and_who_unblocks_them() {
        let r = Renderer::new().unwrap();
        let text = r
            .render_plan_policy_check(&sample_plan_policy_check())
            .unwrap();
        assert_eq!(text.title, "1 root(s) blocked by plan policy");
        assert!(
            text.summary
                .contains("- `network` · `ssh` (deny): ⛔ 2 failure(s), blocks `/apply`"),
            "{}",
            text.summary
        );
        assert!(text.summary.contains("- `eks` · `ssh` (deny): ✅ passed"));
        assert!(text.summary.contains("/approve-policies -p ROOT"));
        let mut passing = sample_plan_policy_check();
        passing.blocked = 0;
        passing.roots.remove(0);
        let text = r.render_plan_policy_check(&passing).unwrap();
        assert_eq!(text.title, "plan policies pass or are approved");
        assert!(!text.summary.contains("approve-policies"));
    }
}
