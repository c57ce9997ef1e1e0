//! Plan policies (issue 42), end to end with real Terraform 1.0.3 and the test provider (state
//! in moto's S3), on SQLite and PostgreSQL: a `deny` set's failure is shown in the plan comment
//! (redacted) and blocks `/apply` until an owner other than the PR author comments
//! `/approve-policies`; a new plan voids the approval; a `warn` set never blocks; a set that
//! errors fails closed; the `tfgate/plan-policy` check follows.

mod support;

use std::path::Path;

use support::*;

/// `net` is checked by `no-open` (deny, owners sam and team security) and `naming` (warn);
/// `legacy` also by `broken` (deny, errors at evaluation, no owners).
fn policy() -> String {
    with_test_network(
        r#"
repos: ["Codertocat/Hello-World"]
defaults:
  plan_role: arn:aws:iam::111111111111:role/tfgate-plan
  apply_role: arn:aws:iam::111111111111:role/tfgate-apply
apply_requirements: []
projects:
  - name: net
    dir: infra/net
  - name: legacy
    dir: infra/legacy
plan_policies:
  - name: no-open
    path: plan/no-open
    owners: {users: [sam], teams: [Codertocat/security]}
  - name: naming
    path: plan/naming
    enforcement: warn
  - name: broken
    path: plan/broken
    projects: [legacy]
"#,
    )
}

/// conftest-style rules on the plan JSON: a `fake_thing` named `open-*` is "open to the world",
/// and its message quotes the plan's `depends_value` (a CIDR and an ARN: must be redacted).
const NO_OPEN: &str = r#"package main
import rego.v1

deny contains {"msg": msg, "resource": rc.address} if {
  some rc in input.resource_changes
  rc.type == "fake_thing"
  startswith(rc.change.after.name, "open-")
  msg := sprintf("%s is open to the world (%s)", [rc.address, rc.change.after.depends_value])
}
"#;
const NAMING: &str = "package main\nimport rego.v1\n\nwarn contains msg if {\n  some rc in input.resource_changes\n  not startswith(rc.change.after.name, \"team-\")\n  msg := sprintf(\"%s: names should start with team-\", [rc.address])\n}\n";
const BROKEN: &str = "package main\nname := r.address if { some r in input.resource_changes }\nname := \"other\" if { true }\ndeny contains name if { true }\n";

async fn start(backend: Backend) -> Option<Harness> {
    Harness::start_with(backend, Some(&policy()), |args| {
        let dir = args.policy_dir.clone().unwrap();
        for (set, text) in [("no-open", NO_OPEN), ("naming", NAMING), ("broken", BROKEN)] {
            std::fs::create_dir_all(dir.join("plan").join(set)).unwrap();
            std::fs::write(dir.join("plan").join(set).join("policy.rego"), text).unwrap();
        }
    })
    .await
}

fn root(dir: &Path, name: &str, run: &str, thing: &str) {
    let d = dir.join("infra").join(name);
    std::fs::create_dir_all(&d).unwrap();
    let resources = format!(
        "resource \"fake_thing\" \"sg\" {{\n  name = \"{thing}\"\n  depends_value = \"10.20.0.0/16 arn:aws:iam::123456789012:role/admin\"\n}}\n"
    );
    let state = format!("{run}-{name}.tfstate");
    std::fs::write(d.join("main.tf"), moto_root_tf(&state, &resources)).unwrap();
}

async fn setup(h: &Harness) -> tempfile::TempDir {
    create_state_bucket().await;
    let repo = tempfile::tempdir().unwrap();
    let id = uuid::Uuid::new_v4().simple().to_string();
    root(repo.path(), "net", &id[..8], "open-ssh");
    root(repo.path(), "legacy", &id[..8], "team-legacy");
    h.github.serve_repo(repo.path());
    h.github.with(|g| {
        g.files = vec!["infra/net/main.tf".into(), "infra/legacy/main.tf".into()];
        for (user, permission) in [("author", "write"), ("maya", "admin"), ("sam", "write")] {
            g.permissions.insert(user.into(), permission.into());
        }
        for user in ["tess", "mallory"] {
            g.permissions.insert(user.into(), "write".into());
        }
        g.team_members.push(("security".into(), "tess".into()));
    });
    repo
}

async fn say(h: &Harness, user: &str, body: &str) -> String {
    h.comment(1, body, user).await.join("\n----\n")
}

async fn count(h: &Harness, sql: &str) -> i64 {
    sqlx::query_scalar(sql)
        .fetch_one(&h.state.db.pool)
        .await
        .unwrap()
}

fn policy_checks(h: &Harness) -> Vec<String> {
    h.github.with(|g| {
        g.check_runs_created
            .iter()
            .filter(|c| c.0 == "tfgate/plan-policy")
            .map(|c| c.1.clone())
            .collect()
    })
}

async fn deny_blocks_until_an_owner_approves(h: Harness) {
    let _repo = setup(&h).await;
    let plan = say(&h, "author", "/plan -p net").await;
    assert!(plan.contains("#### Policy checks: `net`"), "{plan}");
    assert!(plan.contains("- ⛔ `no-open` (deny): 1 failure"), "{plan}");
    assert!(
        plan.contains("`fake_thing.sg`: fake\\_thing.sg is open to the world"),
        "{plan}"
    );
    let warned = "- ✅ `naming` (warn) passed with 1 warning\n  - ⚠ fake\\_thing.sg: names should";
    assert!(plan.contains(warned), "{plan}");
    let placeholders = "open to the world (&lt;cidr-1&gt; &lt;arn-1&gt;)";
    assert!(plan.contains(placeholders), "{plan}");
    for secret in ["10.20.0.0", "123456789012", "arn:aws:iam"] {
        assert!(!plan.contains(secret), "{secret} leaked: {plan}");
    }
    assert_eq!(policy_checks(&h), ["failure"]);

    let blocked = say(&h, "maya", "/apply -p net").await;
    assert!(
        blocked.contains("⛔ Apply blocked by plan policy"),
        "{blocked}"
    );
    assert!(
        blocked.contains("- `no-open`: 1 failure; may approve: @"),
        "{blocked}"
    );
    let rule_message = "  - `fake_thing.sg`: fake\\_thing.sg is open to the world (&lt;cidr-1&gt;";
    assert!(
        blocked.contains(rule_message),
        "the rule's message: {blocked}"
    );
    for secret in ["10.20.0.0", "123456789012", "arn:aws:iam"] {
        assert!(!blocked.contains(secret), "{secret} leaked: {blocked}");
    }
    assert_eq!(
        count(&h, "SELECT COUNT(*) FROM runs WHERE command = 'apply'").await,
        0
    );

    let own = say(&h, "author", "/approve-policies -p net").await;
    assert!(
        own.contains("ℹ️ Nothing approved") && own.contains("you opened this pull request"),
        "{own}"
    );
    let outsider = say(&h, "mallory", "/approve-policies").await;
    assert!(
        outsider.contains("you are not an owner of this set"),
        "{outsider}"
    );
    assert_eq!(count(&h, "SELECT COUNT(*) FROM policy_approvals").await, 0);

    let approved = say(&h, "tess", "/approve-policies -p net --set no-open").await;
    assert!(
        approved.contains("✅ Plan policy failures approved")
            && approved.contains("- `net`: `no-open`"),
        "{approved}"
    );
    assert_eq!(policy_checks(&h), ["failure", "success"]);
    let applied = say(&h, "maya", "/apply -p net").await;
    assert!(applied.contains("✅ succeeded"), "{applied}");
    assert!(
        applied.contains("plan policy failures approved before this apply: `no-open` by `tess`"),
        "{applied}"
    );
    let audited =
        "SELECT COUNT(*) FROM audit_events WHERE rule LIKE 'plan_policies.%' AND result = ";
    assert_eq!(
        count(&h, &format!("{audited}'allow'")).await,
        2,
        "the approval and the apply"
    );
    assert_eq!(
        count(&h, &format!("{audited}'deny'")).await,
        2,
        "the author and mallory"
    );
}

async fn a_new_plan_voids_the_approval(h: Harness) {
    let _repo = setup(&h).await;
    say(&h, "author", "/plan -p net").await;
    let approved = say(&h, "sam", "/approve-policies").await;
    assert!(approved.contains("- `net`: `no-open`"), "{approved}");
    say(&h, "author", "/plan -p net").await;
    let blocked = say(&h, "maya", "/apply -p net").await;
    assert!(
        blocked.contains("⛔ Apply blocked by plan policy"),
        "{blocked}"
    );
    // A push needs a new plan; the approval of the old head's plan does not carry over.
    h.push(1, &"b".repeat(40), &["infra/net/main.tf"]).await;
    h.run_jobs().await;
    say(&h, "author", "/plan -p net").await;
    let blocked = say(&h, "maya", "/apply -p net").await;
    assert!(
        blocked.contains("⛔ Apply blocked by plan policy"),
        "{blocked}"
    );
}

async fn warn_never_blocks_and_a_broken_set_fails_closed(h: Harness) {
    let _repo = setup(&h).await;
    let plan = say(&h, "author", "/plan -p legacy").await;
    assert!(plan.contains("- ✅ `no-open` (deny) passed"), "{plan}");
    assert!(
        plan.contains("`broken` (deny) could not be evaluated and fails closed"),
        "{plan}"
    );
    assert!(
        plan.contains("ask a tfgate admin to add `owners`"),
        "{plan}"
    );
    let blocked = say(&h, "maya", "/apply -p legacy").await;
    assert!(
        blocked.contains("- `broken`: could not be evaluated, so it fails closed"),
        "{blocked}"
    );
    assert!(blocked.contains("may approve: nobody yet"), "{blocked}");
    let reason = "  - rule `main.deny` failed with an error at plan/broken/policy.rego:";
    assert!(blocked.contains(reason), "{blocked}");
    let nobody = say(&h, "sam", "/approve-policies -p legacy").await;
    assert!(nobody.contains("the set names no owners"), "{nobody}");

    // `net` fails only `no-open`; with it approved, the `naming` warning never blocks.
    say(&h, "author", "/plan -p net").await;
    say(&h, "sam", "/approve-policies -p net").await;
    let applied = say(&h, "maya", "/apply -p net").await;
    assert!(applied.contains("✅ succeeded"), "{applied}");
}

macro_rules! both_backends {
    ($($name:ident),*) => {$(
        mod $name {
            use super::*;
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                if !terraform_tools_available() { return; }
                super::$name(start(Backend::Sqlite).await.unwrap()).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                if !terraform_tools_available() { return; }
                let Some(h) = start(Backend::Postgres).await else { return };
                super::$name(h).await;
            }
        }
    )*};
}

both_backends!(
    deny_blocks_until_an_owner_approves,
    a_new_plan_voids_the_approval,
    warn_never_blocks_and_a_broken_set_fails_closed
);
