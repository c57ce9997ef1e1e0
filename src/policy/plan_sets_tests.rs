//! `plan_policies:` in the policy file: located problems, and the sets compiled at load.

use super::super::load_policies;

const GOOD: &str = "repos: [acme/*]\ndefaults:\n  plan_role: arn:aws:iam::111111111111:role/plan\n  apply_role: arn:aws:iam::111111111111:role/apply\nprojects:\n  - name: prod-web\n    dir: web\n";
const REGO: &str = "package main\n\ndeny contains \"no\" if { input.x }\n";

fn load(policy: &str, rego: &[(&str, &str)]) -> Result<crate::policy::PolicySet, Vec<String>> {
    let mut files = vec![("policies/x.yaml".to_string(), policy.to_string())];
    files.extend(rego.iter().map(|(n, c)| (n.to_string(), c.to_string())));
    load_policies(&files).map_err(|found| found.iter().map(ToString::to_string).collect())
}

#[test]
fn problem_positions() {
    let set =
        |extra: &str| format!("{GOOD}plan_policies:\n  - name: base\n    path: plan\n{extra}");
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "unknown key",
            set("    enforce: deny\n"),
            "policies/x.yaml:11:5: plan_policies[0]: unknown field `enforce`",
        ),
        (
            "bad enforcement",
            set("    enforcement: block\n"),
            "policies/x.yaml:11:18: plan_policies[0].enforcement: unknown variant `block`",
        ),
        (
            "duplicate name",
            format!("{}  - name: base\n    path: plan\n", set("")),
            "policies/x.yaml:11:11: plan policy set `base` is named twice",
        ),
        (
            "bad name",
            format!("{GOOD}plan_policies:\n  - name: 'a b'\n    path: plan\n"),
            "policies/x.yaml:9:11: bad plan policy set name `a b`",
        ),
        (
            "absolute path",
            format!("{GOOD}plan_policies:\n  - name: a\n    path: /etc\n"),
            "policies/x.yaml:10:11: path `/etc` must be a directory inside the policy directory",
        ),
        (
            "path escaping",
            format!("{GOOD}plan_policies:\n  - name: a\n    path: plan/../../x\n"),
            "policies/x.yaml:10:11: path `plan/../../x` must be a directory inside",
        ),
        (
            "path is the policy directory",
            format!("{GOOD}plan_policies:\n  - name: a\n    path: ./\n"),
            "policies/x.yaml:10:11: path `./` must name a sub-directory",
        ),
        (
            "project naming none",
            set("    projects: [dev-*]\n"),
            "policies/x.yaml:11:16: `dev-*` names no project of this file",
        ),
        (
            "bad owner",
            set("    owners:\n      users: ['no way']\n"),
            "policies/x.yaml:12:15: bad user `no way`",
        ),
        (
            "bad namespace",
            set("    namespaces: [terraform-aws]\n"),
            "policies/x.yaml:11:18: bad namespace `terraform-aws`",
        ),
        (
            "no rego file",
            set(""),
            "policies/x.yaml:10:11: plan policy set `base`: no .rego file in `plan`",
        ),
    ];
    let mut wrong = Vec::new();
    for (name, policy, want) in cases {
        let got = load(&policy, &[]).expect_err(name);
        if !got.iter().any(|p| p.starts_with(want)) {
            wrong.push(format!("{name}: want {want}\n  got {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_rego_parse_error_is_located_in_its_file() {
    let policy = format!("{GOOD}plan_policies:\n  - name: base\n    path: plan\n");
    let got = load(
        &policy,
        &[
            ("policies/plan/ok.rego", REGO),
            (
                "policies/plan/bad.rego",
                "package main\ndeny contains x if {\n",
            ),
        ],
    )
    .unwrap_err();
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(got[0].starts_with("policies/plan/bad.rego:"), "{got:?}");
    assert!(got[0].contains("plan policy set `base`"), "{got:?}");
}

#[test]
fn sets_are_filled_and_compiled_at_load() {
    let policy = format!(
        "{GOOD}plan_policies:\n  - name: base\n    path: ./plan/\n    projects: [prod-*]\n    enforcement: warn\n    owners: {{users: [alice], teams: [acme/sec]}}\n    namespaces: [terraform.aws]\n"
    );
    let loaded = load(
        &policy,
        &[
            ("policies/plan/a.rego", REGO),
            ("policies/other/b.rego", "nonsense"),
        ],
    )
    .unwrap();
    let repo = &loaded.policies()[0];
    let set = &repo.plan_policies[0];
    assert_eq!(set.path, "plan");
    assert_eq!(set.enforcement, crate::model::Enforcement::Warn);
    assert_eq!(set.owners.users, ["alice"]);
    assert_eq!(set.namespaces, ["terraform.aws"]);
    let compiled = repo.compiled_plan_policy("base").expect("compiled at load");
    assert_eq!(compiled.set(), set);
    assert_eq!(compiled.rule_names(), ["main.deny"]);
    assert_eq!(repo.plan_policies_for("prod-web").len(), 1);
    assert!(repo.plan_policies_for("dev").is_empty());
    assert!(repo.compiled_plan_policy("nope").is_none());
}

#[test]
fn the_layout_may_add_the_projects_a_set_names() {
    let policy = format!(
        "{GOOD}allow_repo_layout: true\nplan_policies:\n  - name: base\n    path: plan\n    projects: [dev-*]\n"
    );
    assert!(load(&policy, &[("policies/plan/a.rego", REGO)]).is_ok());
}
