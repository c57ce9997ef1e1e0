//! The banner a plan comment gets when another PR's apply made its plan stale
//! (`plan_stale_banner.md.j2`).

use minijinja::context;

use super::template_names::PLAN_STALE_BANNER;
use super::{RenderError, Renderer};
use crate::model::stale_plan::StalePlanBanner;
use crate::run_planner::stale_plans::with_banner;

impl Renderer {
    /// The banner, starting with its hidden marker (`StalePlanBanner::marker`).
    pub fn render_stale_banner(&self, banner: &StalePlanBanner) -> Result<String, RenderError> {
        let marker = banner.marker();
        let text = self.render(
            PLAN_STALE_BANNER,
            context! { banner => banner, marker => marker },
        )?;
        Ok(text.trim_end_matches('\n').to_string())
    }

    /// The plan comment `body` with the banner on top; `None` when it has this root's banner
    /// already or was folded under a newer plan (`run_planner::stale_plans::with_banner`).
    pub fn render_stale_plan_comment(
        &self,
        banner: &StalePlanBanner,
        body: &str,
    ) -> Result<Option<String>, RenderError> {
        let text = self.render_stale_banner(banner)?;
        let folded = self.plan_outdated_prefix()?;
        Ok(with_banner(body, &text, &banner.marker(), &folded))
    }
}

/// A sample banner (load-time validation and tests).
pub fn sample_banner() -> StalePlanBanner {
    StalePlanBanner {
        project: "eks".into(),
        workspace: "default".into(),
        applied_by_pr: 12,
        applied_at: "2026-12-06 12:03 UTC".into(),
        replanning: false,
        replan_after_release_by: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_banner_names_the_root_the_pr_and_what_to_do() {
        let r = Renderer::new().unwrap();
        let text = r.render_stale_banner(&sample_banner()).unwrap();
        assert!(text.starts_with(&sample_banner().marker()), "{text}");
        insta::assert_snapshot!(text);
        let replanning = StalePlanBanner {
            replanning: true,
            ..sample_banner()
        };
        insta::assert_snapshot!(r.render_stale_banner(&replanning).unwrap());
        let after_release = StalePlanBanner {
            replan_after_release_by: Some(12),
            ..sample_banner()
        };
        insta::assert_snapshot!(r.render_stale_banner(&after_release).unwrap());
    }
}
