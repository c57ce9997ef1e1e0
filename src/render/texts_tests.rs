//! The texts moved into templates read exactly as the `format!`s they replace did.

use super::*;

fn renderer() -> Renderer {
    Renderer::new().unwrap()
}

#[test]
fn the_outdated_fold_wraps_the_comment_as_before() {
    let r = renderer();
    let prefix = "<details><summary>🕘 Outdated plan: a newer plan was posted below</summary>";
    let body = "## tfgate plan\n\nbody\n<!-- tfgate:post:x -->";
    assert_eq!(
        r.render_plan_outdated(body).unwrap(),
        format!("{prefix}\n\n{body}\n\n</details>")
    );
    assert_eq!(r.plan_outdated_prefix().unwrap(), prefix);
}

#[test]
fn policy_check_texts_read_as_before() {
    let r = renderer();
    let [none, valid_main, valid_pr, bad_main, bad_pr]: [_; 5] =
        samples::policy_checks().try_into().unwrap();
    let text = |c| {
        let t = r.render_policy_check(&c).unwrap();
        (t.title, t.summary)
    };
    let table = [
        (
            none,
            "no policy file in policies/",
            "tfgate reads the YAML files directly in `policies/` of the default branch; this \
             commit has none, so it would enable nothing.",
        ),
        (
            valid_main,
            "2 policy file(s) valid",
            "`tfgate policy check` finds no problem. They are in force now on every tfgate \
             process.",
        ),
        (
            valid_pr,
            "2 policy file(s) valid",
            "`tfgate policy check` finds no problem. They take effect once merged into the \
             default branch.",
        ),
        (
            bad_main,
            "1 problem(s) in the policies",
            "```\npolicies/prod.yaml:4:3: unknown key `aply_role`\n```\n\nRefused. The policies \
             in force stay the previous valid ones.",
        ),
        (
            bad_pr,
            "2 problem(s) in the policies",
            "```\na\nb\n```\n\nRefused.",
        ),
    ];
    for (check, title, summary) in table {
        assert_eq!(text(check), (title.to_string(), summary.to_string()));
    }
}
