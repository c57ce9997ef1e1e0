use super::*;

const GOOD: &str = "repos: [acme/*]\ndefaults:\n  plan_role: arn:aws:iam::111111111111:role/plan\n  apply_role: arn:aws:iam::111111111111:role/apply\n";

fn problems(content: &str) -> Vec<String> {
    match load_policies(&[("policies/x.yaml", content)]) {
        Ok(_) => vec![],
        Err(found) => found.iter().map(ToString::to_string).collect(),
    }
}

/// Each problem kind, with the exact position it must be reported at.
#[test]
fn problem_positions() {
    let cases: &[(&str, &str, &str)] = &[
        ("unknown top-level key", "repos: [acme/*]\nrepo_locking: true\n", "policies/x.yaml:2:1: unknown field `repo_locking`"),
        (
            "unknown project key",
            "repos: [acme/*]\nprojects:\n  - dir: a\n    plan_rol: x\n",
            "policies/x.yaml:4:5: projects[0]: unknown field `plan_rol`",
        ),
        ("wrong type", "repos: [acme/*]\nallow_fork_prs: maybe\n", "policies/x.yaml:2:17: allow_fork_prs: invalid type"),
        ("bad permission level", "repos: [acme/*]\npermissions:\n  apply:\n    min_permission: owner\n", "policies/x.yaml:4:21: permissions.apply.min_permission: unknown variant `owner`"),
        ("bad repo glob", "repos:\n  - acme/[abc\n", "policies/x.yaml:2:5: bad glob `acme/[abc`"),
        ("repo pattern without owner", "repos:\n  - '*'\n", "policies/x.yaml:2:5: bad repo pattern `*`"),
        (
            "malformed plan role",
            &format!("{GOOD}projects:\n  - dir: infra\n    plan_role: arn:aws:iam::1234:role/x\n"),
            "policies/x.yaml:7:16: malformed role ARN",
        ),
        (
            "drift schedule with six fields",
            &format!("{GOOD}projects:\n  - dir: infra\ndrift_detection:\n  schedule: \"0 0 6 * * *\"\n"),
            "policies/x.yaml:8:13: schedule `0 0 6 * * *` must have 5 fields (minute hour day month weekday, UTC), like `0 6 * * *`",
        ),
        (
            "drift detection of an unknown project",
            &format!("{GOOD}projects:\n  - dir: infra\ndrift_detection:\n  schedule: \"0 6 * * *\"\n  projects: [eks]\n"),
            "policies/x.yaml:9:14: unknown project `eks`: drift detection checks projects this file declares",
        ),
        (
            "two Terraform choices in one project",
            &format!("{GOOD}projects:\n  - dir: infra\n    terraform: 1.9.8\n    opentofu_version: 1.8.1\n"),
            "policies/x.yaml:8:23: set only one of `terraform`, `terraform_version` and `opentofu_version` (here: `terraform`, `opentofu_version`)",
        ),
        (
            "bad OpenTofu version in defaults",
            &format!("{GOOD}  opentofu_version: latest\n"),
            "policies/x.yaml:5:21: bad opentofu version `latest`: expected a version like 1.9.8",
        ),
        (
            "malformed default apply role",
            "repos: [acme/*]\ndefaults:\n  apply_role: \"arn:aws:iam::111111111111:user/x\"\n",
            "policies/x.yaml:3:15: malformed role ARN",
        ),
        (
            "cycle",
            &format!("{GOOD}projects:\n  - name: a\n    dir: a\n    depends_on: [b]\n  - name: b\n    dir: b\n    depends_on:\n      - a\n"),
            "policies/x.yaml:8:18: depends_on forms a cycle: a -> b -> a",
        ),
        (
            "duplicate project name",
            &format!("{GOOD}projects:\n  - name: a\n    dir: a\n  - name: a\n    dir: b\n"),
            "policies/x.yaml:8:11: duplicate project `a` (also projects[0])",
        ),
        (
            "duplicate dir and workspace",
            &format!("{GOOD}projects:\n  - name: a\n    dir: infra\n  - name: b\n    dir: ./infra/\n"),
            "policies/x.yaml:9:10: duplicate project: dir `infra` workspace `default` is also projects[0]",
        ),
        (
            "unknown input source",
            "repos: [acme/*]\ninputs:\n  - name: CIDRS\n    variable: cidrs\n    source: vault:secret/cidrs\n",
            "policies/x.yaml:5:13: unknown input source `vault:secret/cidrs`",
        ),
        (
            "unknown input referenced",
            &format!("{GOOD}projects:\n  - dir: eks\n    inputs: [CIDRS]\n"),
            "policies/x.yaml:7:14: unknown input `CIDRS`",
        ),
        (
            "unknown depends_on target",
            &format!("{GOOD}projects:\n  - dir: eks\n    depends_on: [network]\n"),
            "policies/x.yaml:7:18: depends_on names unknown project `network`",
        ),
        ("bad when_modified glob", &format!("{GOOD}projects:\n  - dir: eks\n    when_modified: ['[x']\n"), "policies/x.yaml:7:21: bad glob `[x`"),
        ("session too long", &format!("{GOOD}projects:\n  - dir: eks\n    session_duration: 13h\n"), "policies/x.yaml:7:23: session_duration must be between 900 and 43200 seconds (got 46800)"),
        ("missing roles", "repos: [acme/*]\nprojects:\n  - dir: eks\n", "policies/x.yaml:3:5: no plan_role"),
        ("bad redact regex", "repos: [acme/*]\nredact_patterns:\n  - '(oops'\n", "policies/x.yaml:3:5: bad regular expression"),
        ("checks without names", "repos: [acme/*]\napply_requirements: [checks_passed]\n", "policies/x.yaml:2:1: checks_passed needs required_checks"),
        ("empty check app", "repos: [acme/*]\napply_requirements: [checks_passed]\nrequired_checks:\n  - {name: ci/test, app: ''}\n", "policies/x.yaml:4:5: empty app slug"),
        ("bad base branch", "repos: [acme/*]\nbase_branches: [refs/heads/main]\n", "policies/x.yaml:2:17: bad branch pattern `refs/heads/main`"),
        ("layout without default roles", "repos: [acme/*]\nallow_repo_layout: true\n", "policies/x.yaml:2:1: allow_repo_layout needs defaults.plan_role"),
        ("excluded project", &format!("{GOOD}exclude: [legacy/**]\nprojects:\n  - dir: legacy/vpc\n"), "policies/x.yaml:7:10: dir `legacy/vpc` is excluded"),
        ("dir outside repo", &format!("{GOOD}projects:\n  - dir: ../other\n"), "policies/x.yaml:6:10: bad dir `../other`"),
        ("cloudtrail account mismatch", "repos: [acme/*]\ncloudtrail:\n  read_roles:\n    '111111111111': arn:aws:iam::222222222222:role/ct\n", "policies/x.yaml:4:21: role is in account 222222222222, not 111111111111"),
        ("empty file", "# nothing\n", "policies/x.yaml:1:1: empty policy file"),
        ("yaml syntax", "repos: [acme/*\n", "policies/x.yaml:2:1: did not find expected ',' or ']'"),
    ];
    for (name, content, want) in cases {
        let found = problems(content);
        assert!(
            found.iter().any(|p| p.starts_with(want)),
            "case `{name}`: want {want:?}, got {found:?}"
        );
    }
}

#[test]
fn good_file_has_no_problems() {
    assert_eq!(problems(GOOD), Vec::<String>::new());
}

#[test]
fn several_problems_are_all_reported_in_order() {
    let content = "repos: [acme/*]\ndefaults:\n  plan_role: nope\n  apply_role: nope\n";
    let found = problems(content);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found[0].starts_with("policies/x.yaml:3:14:")
            && found[1].starts_with("policies/x.yaml:4:15:"),
        "{found:?}"
    );
}

#[test]
fn same_pattern_in_two_files_is_a_problem() {
    let a = "repos: [acme/*]\n";
    let b = "# other\nrepos:\n  - ACME/*\n";
    let err = load_policies(&[("a.yaml", a), ("b.yaml", b)]).unwrap_err();
    assert_eq!(
        err.iter().map(ToString::to_string).collect::<Vec<_>>(),
        vec!["b.yaml:3:5: repo pattern `ACME/*` is also claimed by a.yaml:1:9"]
    );
}

fn set() -> PolicySet {
    load_policies(&[
        ("org.yaml", "repos: [acme/*]\n"),
        ("infra.yaml", "repos: [acme/infra-*]\n"),
        ("exact.yaml", "repos: [acme/infra-core, other/x]\n"),
        ("any.yaml", "repos: ['*/*']\n"),
    ])
    .unwrap()
}

#[test]
fn most_specific_pattern_wins() {
    let s = set();
    let cases = [
        ("acme/web", Some("org.yaml")),
        ("acme/infra-eks", Some("infra.yaml")),
        ("acme/infra-core", Some("exact.yaml")),
        ("ACME/Infra-Core", Some("exact.yaml")),
        ("other/x", Some("exact.yaml")),
        ("other/y", Some("any.yaml")),
        ("acme", None),
    ];
    for (repo, want) in cases {
        assert_eq!(s.for_repo(repo).map(|p| p.file.as_str()), want, "{repo}");
    }
}

#[test]
fn equal_specificity_is_ambiguous_and_ignored() {
    let s = load_policies(&[
        ("a.yaml", "repos: ['acme/a*']\n"),
        ("b.yaml", "repos: ['acme/*b']\n"),
    ])
    .unwrap();
    let err = s.select("acme/ab").unwrap_err();
    assert_eq!(
        (err.first_file.as_str(), err.second_file.as_str()),
        ("a.yaml", "b.yaml")
    );
    assert!(s.for_repo("acme/ab").is_none());
    assert_eq!(
        s.for_repo("acme/ax").map(|p| p.file.as_str()),
        Some("a.yaml")
    );
}

#[test]
fn policy_file_names() {
    for (name, want) in [
        ("org.yaml", true),
        ("a/b.yml", true),
        ("README.md", false),
        (".hidden.yaml", false),
        ("x.yaml.bak", false),
    ] {
        assert_eq!(is_policy_file_name(name), want, "{name}");
    }
}

#[test]
fn not_enabled_notice_says_how_to_enable_the_repo() {
    let notice = crate::model::view::Notice {
        meta: crate::render::samples_meta(4),
        body: not_enabled_notice("acme/web"),
    };
    let text = crate::render::Renderer::new()
        .unwrap()
        .render_notice(&notice)
        .unwrap();
    assert!(
        text.starts_with(
            "## tfgate is not enabled on this repository\n\nNothing was run. An admin enables \
             it by adding a policy file whose `repos` matches `acme/web` to the tfgate server's \
             `policies/` directory (see policies/README.md).\n"
        ),
        "{text}"
    );
}

#[test]
fn not_enabled_notice_names_the_repo() {
    let crate::model::view::NoticeBody::NotEnabled { how_to_enable } =
        not_enabled_notice("acme/web")
    else {
        panic!("not the not-enabled notice");
    };
    assert!(how_to_enable.contains("`acme/web`") && how_to_enable.contains("policies/"));
}

/// The `.rego` files under `dir`, named `prefix/relative/path.rego`.
fn shipped_rego(dir: &std::path::Path, prefix: &str, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = format!("{prefix}/{}", path.file_name().unwrap().to_string_lossy());
        if path.is_dir() {
            shipped_rego(&path, &name, out);
        } else if is_rego_file_name(&name) {
            out.push((name, std::fs::read_to_string(&path).unwrap()));
        }
    }
}

/// Every shipped example in `policies/` loads with zero problems, together.
#[test]
fn shipped_examples_load() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/policies");
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| is_policy_file_name(&p.to_string_lossy()))
        .map(|p| {
            (
                format!("policies/{}", p.file_name().unwrap().to_string_lossy()),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    assert!(files.len() >= 3, "expected the shipped examples");
    // The Rego of their plan policy sets (`policies/plan/…`), as the server reads it.
    shipped_rego(std::path::Path::new(dir), "policies", &mut files);
    let set = load_policies(&files).unwrap_or_else(|p| {
        panic!(
            "{}",
            p.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        )
    });
    let example = set
        .for_repo("kukie-org/kukie-infra")
        .expect("example policy for kukie-org/kukie-infra");
    assert!(!example.project("argocd-bootstrap").unwrap().comment_apply);
    assert_eq!(example.project("eks").unwrap().inputs, vec!["ADMIN_CIDRS"]);
    assert_eq!(
        set.for_repo("acme/billing-infra").unwrap().file,
        "policies/example-monorepo-workspaces.yaml"
    );
    assert_eq!(
        set.for_repo("acme/web").unwrap().file,
        "policies/example-org-default.yaml"
    );
}

/// Corrupting a shipped example is reported with its file and line.
#[test]
fn corrupted_example_names_file_and_line() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/policies/example-seed000.yaml");
    let good = std::fs::read_to_string(path).unwrap();
    let corruptions = [
        (
            "dir: infra/eks",
            "dir: infra/eks\n    depends_on_typo: [network]",
        ),
        ("role/tfgate/kukie-apply-eks", "role/"),
        ("depends_on: [network]", "depends_on: [platform]"),
        (
            "source: env:KUKIE_ADMIN_CIDRS",
            "source: secret:KUKIE_ADMIN_CIDRS",
        ),
    ];
    for (from, to) in corruptions {
        assert!(good.contains(from), "{from}");
        let bad = good.replacen(from, to, 1);
        let line = good
            .lines()
            .position(|l| l.contains(from.lines().next().unwrap()))
            .unwrap()
            + 1;
        let err = load_policies(&[("policies/example-seed000.yaml", bad.as_str())]).unwrap_err();
        assert!(
            err.iter().any(|p| p.file == "policies/example-seed000.yaml"
                && (p.line == line || p.line == line + 1)),
            "{from}: line {line}: {err:?}"
        );
    }
}
