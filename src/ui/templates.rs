//! The UI's HTML templates (`templates/ui/`), embedded, HTML-escaped by default.

use std::sync::OnceLock;

use minijinja::{AutoEscape, Environment, UndefinedBehavior};

pub const PAGES: [(&str, &str); 12] = [
    ("base.html", include_str!("../../templates/ui/base.html")),
    (
        "message.html",
        include_str!("../../templates/ui/message.html"),
    ),
    (
        "_runs_table.html",
        include_str!("../../templates/ui/_runs_table.html"),
    ),
    (
        "_locks_table.html",
        include_str!("../../templates/ui/_locks_table.html"),
    ),
    (
        "overview.html",
        include_str!("../../templates/ui/overview.html"),
    ),
    ("runs.html", include_str!("../../templates/ui/runs.html")),
    ("run.html", include_str!("../../templates/ui/run.html")),
    ("locks.html", include_str!("../../templates/ui/locks.html")),
    ("queue.html", include_str!("../../templates/ui/queue.html")),
    ("audit.html", include_str!("../../templates/ui/audit.html")),
    (
        "inputs.html",
        include_str!("../../templates/ui/inputs.html"),
    ),
    (
        "policies.html",
        include_str!("../../templates/ui/policies.html"),
    ),
];

pub const CSS: &str = include_str!("../../templates/ui/ui.css");

pub fn environment() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        env.set_auto_escape_callback(|_| AutoEscape::Html);
        env.set_undefined_behavior(UndefinedBehavior::Chainable);
        for (name, text) in PAGES {
            env.add_template(name, text)
                .unwrap_or_else(|e| panic!("templates/ui/{name}: {e}"));
        }
        env
    })
}

/// Renders page `name` with `ctx`.
pub fn render(name: &str, ctx: minijinja::Value) -> Result<String, minijinja::Error> {
    environment().get_template(name)?.render(ctx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_file_is_embedded_and_parses() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/templates/ui");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".html"))
            .collect();
        on_disk.sort();
        let mut embedded: Vec<String> = PAGES.iter().map(|(n, _)| n.to_string()).collect();
        embedded.sort();
        assert_eq!(embedded, on_disk);
        let _ = environment();
    }

    /// The run page says what the PR comment says: the fresh resource a possible propagation
    /// delay refers to, and the PR file that also edits a drifted resource.
    #[test]
    fn run_page_names_the_fresh_resource_and_the_file_the_pr_also_edits() {
        use crate::render::samples;
        let apply = samples::apply_partial_failure();
        let run = minijinja::context! { id => 7, command => "apply", project => "eks" };
        let html = render(
            "run.html",
            minijinja::context! { kind => "apply", run => run.clone(), root => apply.roots[0] },
        )
        .unwrap();
        assert!(
            html.contains("refers to <code>aws_iam_instance_profile.node</code>, created 4 s earlier in this apply"),
            "{html}"
        );
        let plan = samples::plan_with_drift();
        let html = render(
            "run.html",
            minijinja::context! {
                kind => "plan",
                run => run,
                root => plan.repo_root_summaries[0],
                drift_warnings => plan.drift_warnings,
            },
        )
        .unwrap();
        assert!(
            html.contains(
                "this PR also edits <code>infra&#x2f;eks&#x2f;security.tf</code>, which sets <code>ingress</code>"
            ),
            "{html}"
        );
    }

    #[test]
    fn values_are_html_escaped() {
        let ctx = minijinja::context! { title => "<script>x</script>", text => "a & b" };
        let html = render("message.html", ctx).unwrap();
        assert!(html.contains("&lt;script&gt;") && !html.contains("<script>"));
        assert!(html.contains("a &amp; b"));
    }

    /// The run page of a plan run of `eks` whose published result is `comment`.
    fn plan_run_page(comment: crate::model::view::PlanComment, status: &str) -> String {
        let root = serde_json::to_value(&comment.repo_root_summaries[0]).unwrap();
        let run = serde_json::json!({
            "id": 7, "command": "plan", "project": "eks", "repo": "acme/infra", "pr": 21,
            "workspace": "default", "head_sha": "9c1b2d4e", "status": status,
            "actor": "alice", "when": "now", "took": "3 s"
        });
        let ctx = minijinja::context! { run => run, kind => "plan", root => root };
        render("run.html", minijinja::Value::from_serialize(&ctx)).unwrap()
    }

    #[test]
    fn a_plan_run_page_shows_the_plan_roles_missing_permissions_and_advice() {
        let html = plan_run_page(
            crate::render::samples::plan_denied_at_plan_time(),
            "plan_failed",
        );
        assert!(
            html.contains("Missing permissions of the plan role"),
            "{html}"
        );
        assert!(html.contains("<code>ec2:DescribeVpcs</code>"), "{html}");
        assert!(
            html.contains("&quot;Action&quot;: &quot;ec2:DescribeVpcs&quot;"),
            "{html}"
        );
        assert!(html.contains("the plan role `tfgate-plan`"), "{html}");
    }

    #[test]
    fn a_plan_run_page_shows_its_policy_checks() {
        let html = plan_run_page(crate::render::samples::plan_with_policy_checks(), "planned");
        assert!(html.contains("<h2>Policy checks</h2>"), "{html}");
        assert!(
            html.contains(
                "<td><code>network-guard</code></td><td>deny</td>\n<td>blocks apply</td>"
            ),
            "{html}"
        );
        assert!(html.contains("<code>aws_security_group.admin</code>: security group is open to the world on port 22"), "{html}");
        assert!(html.contains("<td>failed (shown only)</td>"), "{html}");
        assert!(html.contains("<td>fails closed</td>"), "{html}");
        assert!(
            html.contains("<td><code>baseline</code></td><td>deny</td>\n<td>passed</td>"),
            "{html}"
        );
    }
}
