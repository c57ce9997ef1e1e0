//! The admin and preview commands of the real binary.

use std::process::Command;

fn tfgate(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tfgate"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_clear()
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[test]
fn policy_check_accepts_shipped_examples_and_names_file_and_line_of_problems() {
    let (code, out, _) = tfgate(&["policy", "check", "policies"]);
    assert_eq!(code, 0, "{out}");
    let dir = tempfile::tempdir().unwrap();
    let original = std::fs::read_to_string("policies/example-seed000.yaml").unwrap();
    let corrupted = original.replacen("  - name: eks\n", "  - name: eks\n    bogus_key: 1\n", 1);
    assert_ne!(original, corrupted);
    std::fs::write(dir.path().join("seed.yaml"), corrupted).unwrap();
    let (code, out, _) = tfgate(&["policy", "check", dir.path().to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        out.contains("seed.yaml:") && out.contains("bogus_key"),
        "{out}"
    );
}

#[test]
fn render_apply_of_a_real_partial_failure_posts_no_provider_text() {
    let (code, md, err) = tfgate(&[
        "render",
        "apply",
        "tests/fixtures/tf-real/apply.jsonl",
        "--plan",
        "tests/fixtures/tf-real/plan.json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        md.contains("❌ failed") && md.contains("`iam:GetRole`"),
        "{md}"
    );
    for leak in ["arn:", "XPTO", "request id", "is not authorized"] {
        assert!(!md.contains(leak), "{leak} in {md}");
    }
}

#[test]
fn render_plan_of_real_fixture() {
    let (code, md, err) = tfgate(&["render", "plan", "tests/fixtures/tf-real/plan.json"]);
    assert_eq!(code, 0, "{err}");
    assert!(md.contains("fake_thing"));
}

#[test]
fn prune_reports_what_it_removed_and_refuses_a_retention_shorter_than_redelivery() {
    let dir = tempfile::tempdir().unwrap();
    let data = format!("--data-dir={}", dir.path().display());
    let (code, out, err) = tfgate(&["prune", &data]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "pruned what is older than 30 days: 0 jobs, 0 deliveries, plan files and logs of 0 runs, 0 handled-comment records, 0 publications\n"
    );
    let (code, out, _) = tfgate(&["prune", &data, "--retention-days", "0"]);
    assert_eq!(code, 0);
    assert!(out.contains("retention is off"), "{out}");
    let (code, _, err) = tfgate(&["prune", &data, "--retention-days", "3"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("TFGATE_RETENTION_DAYS") && err.contains("at least 8 days"),
        "{err}"
    );
}

#[test]
fn a_worker_refuses_a_sqlite_database_that_serve_never_created() {
    let dir = tempfile::tempdir().unwrap();
    let data = format!("--data-dir={}", dir.path().display());
    let (code, _, err) = tfgate(&["worker", &data]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("no database at") && err.contains("DATABASE_URL"),
        "{err}"
    );
    assert!(
        !dir.path().join("tfgate.db").exists(),
        "the refused worker created a database"
    );
}

#[test]
fn policy_explain_sees_the_projects_of_a_repo_layout() {
    let dir = tempfile::tempdir().unwrap();
    let policies = dir.path().join("policies");
    std::fs::create_dir(&policies).unwrap();
    std::fs::write(
        policies.join("r.yaml"),
        "repos: [\"o/r\"]\nallow_repo_layout: true\ndefaults:\n  plan_role: arn:aws:iam::111111111111:role/plan\n  apply_role: arn:aws:iam::111111111111:role/apply\n",
    )
    .unwrap();
    let good = dir.path().join("good.yaml");
    std::fs::write(&good, "projects:\n  - name: eks\n    dir: infra/eks\n").unwrap();
    let bad = dir.path().join("bad.yaml");
    std::fs::write(
        &bad,
        "projects:\n  - name: eks\n    dir: infra/eks\n    plan_role: x\n",
    )
    .unwrap();
    let explain = |layout: Option<&std::path::Path>| {
        let mut args = vec![
            format!("--policy-dir={}", policies.display()),
            "policy".into(),
            "explain".into(),
            "--repo=o/r".into(),
            "--user=alice".into(),
            "--command=plan".into(),
            "--project=eks".into(),
        ];
        args.extend(layout.map(|l| format!("--layout={}", l.display())));
        tfgate(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let (code, out, _) = explain(None);
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("target.unknown"), "{out}");
    let (code, out, err) = explain(Some(&good));
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("declared in the repo layout"), "{out}");
    let (code, out, err) = explain(Some(&bad));
    assert_eq!(code, 1);
    assert!(
        out.contains("tfgate.yaml:4:5:") && err.contains("layout has problems"),
        "{out}{err}"
    );
}

#[test]
fn policy_check_warns_about_a_required_check_without_app() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("p.yaml"),
        "repos: [acme/*]\napply_requirements: [checks_passed]\nrequired_checks:\n  - ci/test\n  - {name: lint, app: github-actions}\n",
    )
    .unwrap();
    let (code, out, err) = tfgate(&["policy", "check", dir.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("no problems"), "{out}");
    assert!(
        err.contains("required check `ci/test` names no app") && !err.contains("`lint`"),
        "{err}"
    );
}

/// `tfgate gitops diff` on the documented ArgoCD examples: removing the Application that
/// syncs with prune needs acknowledgement (exit 3); identical trees change nothing (exit 0).
#[test]
fn gitops_diff_previews_a_removed_application() {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gitops");
    let head = tempfile::tempdir().unwrap();
    std::fs::copy(
        fixtures.join("argocd/applicationset-list.yaml"),
        head.path().join("applicationset-list.yaml"),
    )
    .unwrap();
    let run = |base: &std::path::Path, head: &std::path::Path, kind: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_tfgate"))
            .args(["gitops", "diff"])
            .arg(base)
            .arg(head)
            .args(["--kind", kind])
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).to_string(),
        )
    };
    let (code, text) = run(&fixtures.join("argocd"), head.path(), "argocd");
    assert_eq!(code, Some(3), "{text}");
    assert!(
        text.starts_with("tfgate/deploy: action_required: 1 change(s) need acknowledgement"),
        "{text}"
    );
    assert!(
        text.contains("| **removed** | Application | `guestbook` |"),
        "{text}"
    );
    let flux = fixtures.join("flux");
    let (code, text) = run(&flux, &flux, "flux");
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("no deploying object changes"), "{text}");
}

#[test]
fn import_atlantis_maps_workflow_arguments_and_warns_about_run_steps() {
    let (code, out, err) = tfgate(&[
        "policy",
        "import-atlantis",
        "tests/fixtures/atlantis/atlantis.yaml",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("    var_files: [env/ops.tfvars]\n"), "{out}");
    assert!(
        out.contains("    backend_config: env/ops.backend.hcl\n"),
        "{out}"
    );
    assert!(out.contains("  var_files: [common.tfvars]\n"), "{out}");
    assert!(
        err.contains(
            "warning: workflow `ops`: apply step `run: ./notify-slack.sh` has no equivalent"
        ),
        "{err}"
    );
}

fn policy_test(args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["policy", "test"];
    all.extend_from_slice(args);
    tfgate(&all)
}

#[test]
fn policy_test_prints_each_failure_and_exits_1_on_a_failed_deny_set() {
    let (code, out, err) = policy_test(&[
        "no-public-exposure",
        "tests/fixtures/plan-policy/checkov-for-each-sg.tfplan.json",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    let ssh = "ingress open to the world on port 22 (SSH): allow a known address range, or use SSM Session Manager";
    assert_eq!(
        out,
        format!(
            "FAIL deny: module.sg[\"awful_example\"].aws_security_group.bad: {ssh}\n\
             FAIL deny: module.sg[\"bad_example\"].aws_security_group.bad: {ssh}\n\
             FAIL deny: module.sg[\"terrible_example\"].aws_security_group.bad: {ssh}\n\
             set `no-public-exposure` (deny): 3 failures, 0 warnings\n"
        )
    );
    // A passing plan, with the set looked up in the policy covering a repository.
    let (code, out, err) = policy_test(&[
        "no-public-exposure",
        "tests/fixtures/plan-policy/checkov-change-keys.tfplan.json",
        "--repo=acme/web",
        "--timing",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        out,
        "set `no-public-exposure` (deny): 0 failures, 0 warnings\n"
    );
    assert!(err.starts_with("timing: plan 8126 bytes"), "{err}");
}

#[test]
fn policy_test_of_a_warn_set_exits_0_and_says_why() {
    let (code, out, err) = policy_test(&[
        "required-tags",
        "tests/fixtures/plan-policy/checkov-for-each-sg.tfplan.json",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("WARN warn: aws_route53_zone.example[\"example.com\"]: missing required tags: owner, cost-center\n"),
        "{out}"
    );
    assert!(
        out.ends_with("set `required-tags` (warn): 0 failures, 5 warnings\n"),
        "{out}"
    );
}

#[test]
fn policy_test_fails_closed_on_an_erroring_set_and_exits_2_on_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let plan_dir = dir.path().join("plan");
    std::fs::create_dir(&plan_dir).unwrap();
    std::fs::write(
        plan_dir.join("p.rego"),
        "package main\nimport rego.v1\ndeny contains msg if {\n  msg := sprintf(\"%d\", [input.x / 0])\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("r.yaml"),
        "repos: [\"o/r\"]\nplan_policies:\n  - name: broken\n    path: plan\n  - name: soft\n    path: plan\n    enforcement: warn\n",
    )
    .unwrap();
    let plan = dir.path().join("plan.json");
    std::fs::write(&plan, r#"{"x": 1}"#).unwrap();
    let policies = format!("--policy-dir={}", dir.path().display());
    let run = |set: &str, file: &str| tfgate(&[&policies, "policy", "test", set, file]);
    let (code, out, _) = run("broken", plan.to_str().unwrap());
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("ERROR rule `main.deny` failed with an error at plan/p.rego:4:33")
            && out.ends_with(
                "set `broken` (deny): 0 failures, 0 warnings, error: the set fails closed\n"
            ),
        "{out}"
    );
    let (code, out, _) = run("soft", plan.to_str().unwrap());
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("a warn set"), "{out}");
    let (code, _, err) = run("nope", plan.to_str().unwrap());
    assert_eq!(code, 2);
    assert!(
        err.contains("no plan policy set `nope`; known sets: `broken`, `soft`"),
        "{err}"
    );
    let yaml = dir.path().join("r.yaml");
    let (code, _, err) = run("broken", yaml.to_str().unwrap());
    assert_eq!(code, 2);
    assert!(err.contains("is not JSON"), "{err}");
}

#[test]
fn policy_explain_lists_the_plan_policy_sets_of_the_project() {
    let args = [
        "policy",
        "explain",
        "--repo=acme/web",
        "--user=alice",
        "--command=plan",
    ];
    let (_, out, _) = tfgate(&args);
    assert!(
        out.contains("plan policy sets of this policy:\n  `no-public-exposure` (plan/security, policies/example-org-default.yaml): deny; owners: team acme/security\n    applies to: every project\n    rules: main.deny_s3_bucket_without_public_access_block, main.deny_s3_public_access_block, main.deny_world_ssh\n"),
        "{out}"
    );
    assert!(out.contains("  `required-tags` (plan/tags, policies/example-org-default.yaml): warn; owners: nobody\n    applies to: every project\n    rules: main.warn_required_tags\n"), "{out}");
    let mut with_project = args.to_vec();
    with_project.extend(["-p", "web"]);
    let (_, out, _) = tfgate(&with_project);
    assert!(
        out.contains("plan policy sets for project `web`:\n  `no-public-exposure`"),
        "{out}"
    );
}
