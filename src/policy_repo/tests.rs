use super::*;

#[test]
fn yaml_directly_in_the_policy_folder_and_rego_under_it() {
    let tree = |paths: &[&str]| -> Vec<(String, String)> {
        paths
            .iter()
            .map(|p| (p.to_string(), format!("# {p}")))
            .collect()
    };
    let got = policy_files(tree(&[
        "policies/z.yaml",
        "policies/a.yml",
        "policies/.hidden.yaml",
        "policies/README.md",
        "policies/old/b.yaml",
        "other/policies/c.yaml",
        "policies.yaml",
        "policiesx/d.yaml",
        "policies/plan/b.rego",
        "policies/a.rego",
        "policies/.git/x.rego",
        "other/e.rego",
    ]));
    let names: Vec<&str> = got.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        names,
        vec![
            "policies/a.yml",
            "policies/z.yaml",
            "policies/a.rego",
            "policies/plan/b.rego"
        ]
    );
    assert_eq!(got[0].1, "# policies/a.yml");
}

#[test]
fn only_default_branch_pushes_apply() {
    let table = [
        ("refs/heads/main", "main", true),
        ("refs/heads/main", "master", false),
        ("refs/heads/feature/main", "main", false),
        ("refs/tags/main", "main", false),
        ("main", "main", false),
    ];
    for (git_ref, default, expected) in table {
        assert_eq!(
            is_default_branch_push(git_ref, default),
            expected,
            "{git_ref}"
        );
    }
}

#[test]
fn stored_policies_round_trip_and_load() {
    let stored = StoredPolicies {
        sha: "a".repeat(40),
        files: vec![("policies/x.yaml".into(), "repos: [\"o/r\"]\n".into())],
    };
    let json = serde_json::to_string(&stored).unwrap();
    let back: StoredPolicies = serde_json::from_str(&json).unwrap();
    assert_eq!(back, stored);
    assert!(back.load(&Default::default()).is_ok());
}

#[test]
fn check_run_table() {
    let problem = PolicyProblem {
        file: "policies/prod.yaml".into(),
        line: 4,
        col: 3,
        message: "unknown key `aply_role`".into(),
    };
    let none = policy_check(0, &[], true);
    assert_eq!(none.conclusion, "failure");
    assert_eq!(
        none.text,
        PolicyCheckText::NoFiles {
            folder: "policies".into()
        }
    );
    let valid_main = policy_check(2, &[], true);
    assert_eq!(valid_main.conclusion, "success");
    let valid = |applies| PolicyCheckText::Valid { files: 2, applies };
    assert_eq!(valid_main.text, valid(true));
    assert_eq!(policy_check(2, &[], false).text, valid(false));

    let bad_main = policy_check(2, std::slice::from_ref(&problem), true);
    assert_eq!(bad_main.conclusion, "failure");
    assert_eq!(
        bad_main.text,
        PolicyCheckText::Problems {
            lines: vec!["policies/prod.yaml:4:3: unknown key `aply_role`".into()],
            applies: true
        }
    );
    assert_eq!(bad_main.annotations.len(), 1);
    assert_eq!(bad_main.annotations[0].path, "policies/prod.yaml");
    assert_eq!(bad_main.annotations[0].start_line, 4);
    let bad_pr = policy_check(2, &[problem], false);
    assert!(matches!(
        bad_pr.text,
        PolicyCheckText::Problems { applies: false, .. }
    ));
}

#[test]
fn only_the_branch_head_is_put_in_force() {
    let (a, b) = ("a".repeat(40), "b".repeat(40));
    assert!(push_is_current(&a, &a));
    assert!(push_is_current(&a, &a.to_uppercase()));
    assert!(!push_is_current(&a, &b));
    assert!(!push_is_current(&a, ""));
}
