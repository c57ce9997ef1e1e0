//! The policy a pull request's commands run under: the admin policy, plus the projects of the
//! repository's `tfgate.yaml` **as it is on the base branch** when the policy sets
//! `allow_repo_layout` (a PR cannot add roots, or change their order, for itself). A layout with
//! problems adds nothing: the admin policy's projects keep working, and the PR is told what is
//! wrong with the file.

use super::layout::{parse_layout, LAYOUT_FILE_NAME};
use super::merge::merge_layout;
use crate::model::view::NoticeBody;
use crate::policy::{PolicyProblem, RepoPolicy};

/// `layout`: the file's text on the base branch, `None` when the branch has none.
pub fn policy_with_base_layout(
    policy: &RepoPolicy,
    layout: Option<&str>,
) -> (RepoPolicy, Vec<PolicyProblem>) {
    let Some(text) = layout.filter(|_| policy.allow_repo_layout) else {
        return (policy.clone(), Vec::new());
    };
    let merged =
        parse_layout(LAYOUT_FILE_NAME, text).and_then(|layout| merge_layout(policy, Some(&layout)));
    match merged {
        Ok(m) => (m.policy, Vec::new()),
        Err(problems) => (policy.clone(), problems),
    }
}

/// The notice the PR gets when the base branch's layout has problems
/// (rendered by `layout_problems.md.j2`).
pub fn layout_problems_notice(base_ref: &str, problems: &[PolicyProblem]) -> NoticeBody {
    NoticeBody::LayoutProblems {
        base_ref: base_ref.to_string(),
        problems: problems.iter().map(ToString::to_string).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::load_policy;

    const ALLOWING: &str = "repos: [acme/*]\nallow_repo_layout: true\ndefaults:\n  plan_role: arn:aws:iam::111111111111:role/plan\n  apply_role: arn:aws:iam::111111111111:role/apply\nprojects:\n  - name: network\n    dir: infra/network\n";

    fn names(p: &RepoPolicy) -> Vec<&str> {
        p.projects.iter().map(|p| p.id().as_str()).collect()
    }

    #[test]
    fn base_layout_adds_its_projects() {
        let policy = load_policy("p.yaml", ALLOWING).unwrap();
        let (merged, problems) = policy_with_base_layout(
            &policy,
            Some("projects:\n  - name: eks\n    dir: infra/eks\n"),
        );
        assert!(problems.is_empty());
        assert_eq!(names(&merged), vec!["network", "eks"]);
    }

    #[test]
    fn no_file_or_not_allowed_is_the_admin_policy() {
        let policy = load_policy("p.yaml", ALLOWING).unwrap();
        assert_eq!(
            policy_with_base_layout(&policy, None),
            (policy.clone(), vec![])
        );
        let strict = load_policy("p.yaml", "repos: [acme/*]\n").unwrap();
        let (merged, problems) =
            policy_with_base_layout(&strict, Some("projects:\n  - dir: infra/eks\n"));
        assert!(merged.projects.is_empty() && problems.is_empty());
    }

    #[test]
    fn a_broken_layout_adds_nothing_and_says_where() {
        let policy = load_policy("p.yaml", ALLOWING).unwrap();
        for (layout, expected) in [
            (
                "projects:\n  - dir: infra/eks\n    apply_role: x\n",
                "tfgate.yaml:3:5:",
            ),
            (
                "projects:\n  - dir: infra/eks\n    depends_on: [nope]\n",
                "tfgate.yaml:3:18: depends_on names unknown project `nope`",
            ),
            ("projects: [", "tfgate.yaml:"),
        ] {
            let (merged, problems) = policy_with_base_layout(&policy, Some(layout));
            assert_eq!(names(&merged), vec!["network"], "{layout}");
            let notice = crate::model::view::Notice {
                meta: crate::render::samples_meta(3),
                body: layout_problems_notice("main", &problems),
            };
            let text = crate::render::Renderer::new()
                .unwrap()
                .render_notice(&notice)
                .unwrap();
            assert!(text.contains(expected), "{text}");
            assert!(
                text.starts_with("`tfgate.yaml` on `main` has problems"),
                "{text}"
            );
        }
    }
}
