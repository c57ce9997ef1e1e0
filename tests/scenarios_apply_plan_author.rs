//! Which plan an `/apply` applies, end to end with real Terraform 1.0.3 and the test provider
//! (state in moto's S3): a plan whose flags change the apply is applied only when its author
//! may apply the root; the apply comment names the plan (run, author, flags); a failed plan is
//! never applied, even with a plan file stored; one PR's plan is never applied to another PR.

mod support;

use std::path::Path;

use support::fake_github::FakeReview;
use support::*;

/// bob (write) may plan, not apply; maya and carl (maintain) may apply.
fn policy() -> String {
    with_test_network(
        r#"
repos: ["Codertocat/Hello-World"]
defaults:
  plan_role: arn:aws:iam::111111111111:role/tfgate-plan
  apply_role: arn:aws:iam::111111111111:role/tfgate-apply
permissions:
  apply:
    min_permission: maintain
projects:
  - name: db
    dir: infra/db
"#,
    )
}

fn write_repo(dir: &Path, run: &str) {
    let d = dir.join("infra/db");
    std::fs::create_dir_all(&d).unwrap();
    let resources = format!(
        "resource \"fake_thing\" \"main\" {{\n  name = \"db-{run}\"\n}}\nresource \"fake_thing\" \"replica\" {{\n  name = \"replica-{run}\"\n}}\n"
    );
    std::fs::write(
        d.join("main.tf"),
        moto_root_tf(&format!("{run}-db.tfstate"), &resources),
    )
    .unwrap();
}

async fn setup(h: &Harness) -> tempfile::TempDir {
    create_state_bucket().await;
    let repo = tempfile::tempdir().unwrap();
    let id = uuid::Uuid::new_v4().simple().to_string();
    write_repo(repo.path(), &format!("p{}", &id[..8]));
    h.github.serve_repo(repo.path());
    h.github.with(|g| {
        g.files = vec!["infra/db/main.tf".into()];
        g.permissions.insert("bob".into(), "write".into());
        g.permissions.insert("maya".into(), "maintain".into());
        g.permissions.insert("carl".into(), "maintain".into());
        g.permissions.insert("rita".into(), "write".into());
        g.reviews = vec![FakeReview {
            user: "rita".into(),
            state: "APPROVED".into(),
            commit_id: g.pr.head_sha.clone(),
            is_bot: false,
        }];
    });
    repo
}

/// `user` comments `body` on PR `pr`; tfgate's answers, joined.
async fn say(h: &Harness, pr: i64, user: &str, body: &str) -> String {
    h.comment(pr, body, user).await.join("\n----\n")
}

async fn count(h: &Harness, sql: &str) -> i64 {
    sqlx::query_scalar(sql)
        .fetch_one(&h.state.db.pool)
        .await
        .unwrap()
}

async fn last_plan_id(h: &Harness) -> i64 {
    count(h, "SELECT MAX(id) FROM runs WHERE command = 'plan'").await
}

scenario!(
    a_plan_only_user_s_replace_is_not_applied_by_a_maintainer_s_apply,
    policy = &policy(),
    |h| {
        if !terraform_tools_available() {
            return;
        }
        let _repo = setup(&h).await;
        let plan = say(&h, 1, "bob", "/plan -p db -- -replace=fake_thing.main").await;
        assert!(plan.contains("fake_thing.main"), "{plan}");
        let plan_id = last_plan_id(&h).await;

        let reply = say(&h, 1, "maya", "/apply -p db").await;
        assert!(reply.contains("⏸ Apply refused"), "{reply}");
        assert!(
            reply.contains(&format!(
                "`db` was not applied. Its plan (tfgate run `{plan_id}`) was made by `bob` with the flags `-replace=fake_thing.main`"
            )),
            "{reply}"
        );
        assert!(
            reply.contains("cannot apply `db`: it needs maintain permission"),
            "{reply}"
        );
        assert!(
            reply.contains("someone who may apply `db` (not `bob`) comments `/plan -p db`"),
            "{reply}"
        );
        assert_eq!(
            count(&h, "SELECT COUNT(*) FROM runs WHERE command = 'apply'").await,
            0,
            "nothing was applied"
        );
        assert_eq!(
            count(
                &h,
                "SELECT COUNT(*) FROM audit_events WHERE rule = 'apply.plan_author' AND result = 'deny'"
            )
            .await,
            1
        );

        // A plan by someone who may apply, with the same flag, is applied and named.
        let replan = say(&h, 1, "carl", "/plan -p db -- -replace=fake_thing.main").await;
        assert!(replan.contains("fake_thing.main"), "{replan}");
        let carl_plan = last_plan_id(&h).await;
        let applied = say(&h, 1, "maya", "/apply -p db").await;
        assert!(applied.contains("✅ succeeded"), "{applied}");
        assert!(
            applied.contains(&format!(
                "Plan: tfgate run `{carl_plan}` by `carl`, with `-replace=fake_thing.main`"
            )),
            "{applied}"
        );
    }
);

scenario!(
    a_maintainer_s_targeted_plan_applies_and_the_comment_names_it,
    policy = &policy(),
    |h| {
        if !terraform_tools_available() {
            return;
        }
        let _repo = setup(&h).await;
        say(&h, 1, "maya", "/plan -p db -- -target=fake_thing.main").await;
        let plan_id = last_plan_id(&h).await;
        let applied = say(&h, 1, "carl", "/apply -p db").await;
        assert!(applied.contains("✅ succeeded"), "{applied}");
        assert!(
            applied.contains(&format!(
                "Plan: tfgate run `{plan_id}` by `maya`, with `-target=fake_thing.main`"
            )),
            "{applied}"
        );
        assert!(applied.contains("`fake_thing.main`"), "{applied}");
        assert!(
            !applied.contains("`fake_thing.replica`"),
            "only the target was applied:\n{applied}"
        );
        let stored: String = sqlx::query_scalar("SELECT terraform_args FROM runs WHERE id = $1")
            .bind(plan_id)
            .fetch_one(&h.state.db.pool)
            .await
            .unwrap();
        assert_eq!(stored, r#"["-target=fake_thing.main"]"#);
    }
);

scenario!(
    a_plan_only_user_s_plan_without_flags_is_applied,
    policy = &policy(),
    |h| {
        if !terraform_tools_available() {
            return;
        }
        let _repo = setup(&h).await;
        say(&h, 1, "bob", "/plan -p db").await;
        let plan_id = last_plan_id(&h).await;
        let applied = say(&h, 1, "maya", "/apply -p db").await;
        assert!(applied.contains("✅ succeeded"), "{applied}");
        assert!(
            applied.contains(&format!("Plan: tfgate run `{plan_id}` by `bob`, no flags")),
            "{applied}"
        );
    }
);

scenario!(
    a_failed_plan_is_never_applied_even_with_a_plan_file_stored,
    policy = &policy(),
    |h| {
        if !terraform_tools_available() {
            return;
        }
        let _repo = setup(&h).await;
        say(&h, 1, "maya", "/plan -p db").await;
        let plan_id = last_plan_id(&h).await;
        // The plan file and record stay; only the status says the plan failed.
        sqlx::query("UPDATE runs SET status = 'plan_failed' WHERE id = $1")
            .bind(plan_id)
            .execute(&h.state.db.pool)
            .await
            .unwrap();
        assert_eq!(
            count(
                &h,
                "SELECT COUNT(*) FROM runs WHERE plan_blob IS NOT NULL AND outcome IS NOT NULL"
            )
            .await,
            1
        );
        let reply = say(&h, 1, "maya", "/apply -p db").await;
        assert!(reply.contains("Nothing was applied"), "{reply}");
        assert_eq!(
            count(&h, "SELECT COUNT(*) FROM runs WHERE command = 'apply'").await,
            0
        );
    }
);

scenario!(
    one_pr_s_plan_is_never_applied_to_another_pr_at_the_same_head,
    policy = &policy(),
    |h| {
        if !terraform_tools_available() {
            return;
        }
        let _repo = setup(&h).await;
        // The fake serves every PR number with the same head, files and author: PR 2 is the
        // same branch opened twice.
        say(&h, 1, "maya", "/plan -p db").await;
        say(&h, 1, "maya", "/unlock").await; // PR 2 may take the root's lock
        let reply = say(&h, 2, "maya", "/apply -p db").await;
        assert!(reply.contains("Nothing was applied"), "{reply}");
        assert_eq!(
            count(&h, "SELECT COUNT(*) FROM runs WHERE command = 'apply'").await,
            0,
            "PR 1's plan was not applied for PR 2"
        );
        let posted: Vec<i64> = h.github.comments().iter().map(|c| c.number).collect();
        assert_eq!(posted.last(), Some(&2), "{posted:?}");
    }
);

scenario!(
    a_flagged_plan_made_after_the_apply_was_accepted_is_not_applied,
    policy = &policy(),
    |h| {
        if !terraform_tools_available() {
            return;
        }
        let _repo = setup(&h).await;
        // bob's `/plan` and maya's `/apply` are both accepted before bob's plan runs: the apply
        // job names no plan, and the run finds bob's.
        let before = h.github.comments().len();
        let plan = pr_comment("/plan -p db -- -replace=fake_thing.main", "bob");
        h.deliver("issue_comment", &plan).await;
        let apply = pr_comment("/apply -p db", "maya");
        h.deliver("issue_comment", &apply).await;
        h.run_jobs().await;
        let replies: Vec<String> = h.github.comments()[before..]
            .iter()
            .map(|c| c.body.clone())
            .collect();
        let reply = replies.join("\n----\n");
        assert!(
            reply.contains("was made by `bob` with the flags `-replace=fake_thing.main`")
                && reply.contains("That plan was made after this `/apply` was accepted"),
            "{reply}"
        );
        assert_eq!(
            count(&h, "SELECT COUNT(*) FROM runs WHERE command = 'apply'").await,
            0,
            "nothing was applied"
        );
    }
);
