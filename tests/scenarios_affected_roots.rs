//! Which roots a PR affects beyond its `.tf` files, with real Terraform: a change to a shared
//! local module (read from the base commit's tarball, once per base commit) plans the roots
//! that call it, in dependency order; a PR that only updates `tfgate.inputs.lock` plans and
//! applies the roots consuming the changed input; `/inputs` answers on any PR.

mod support;

use std::path::Path;

use support::*;

const BASE_SHA: &str = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

fn modules_policy() -> String {
    with_test_network(
        r#"
repos: ["Codertocat/Hello-World"]
defaults:
  plan_role: arn:aws:iam::111111111111:role/tfgate-plan
  apply_role: arn:aws:iam::111111111111:role/tfgate-apply
apply_requirements: []
projects:
  - name: app
    dir: infra/app
    depends_on: [network]
  - name: network
    dir: infra/network
  - name: other
    dir: infra/other
"#,
    )
}

const NET_MODULE: &str = "terraform {\n  required_providers {\n    fake = { source = \"tfgate/fake\", version = \"0.1.0\" }\n  }\n}\nvariable \"name\" {\n  type = string\n}\nresource \"fake_thing\" \"net\" {\n  name = var.name\n}\n";

async fn state_bucket() -> String {
    create_state_bucket().await;
    uuid::Uuid::new_v4().simple().to_string()[..8].to_string()
}

fn write(repo: &Path, path: &str, text: &str) {
    let file = repo.join(path);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, text).unwrap();
}

/// Two roots calling `modules/net` (one through `../../`), and one that does not.
fn write_module_repo(repo: &Path, tag: &str) {
    write(repo, "modules/net/main.tf", NET_MODULE);
    for root in ["network", "app"] {
        let call = format!(
            "module \"net\" {{\n  source = \"../../modules/net\"\n  name   = \"{root}\"\n}}\n"
        );
        let key = format!("{tag}-{root}.tfstate");
        write(
            repo,
            &format!("infra/{root}/main.tf"),
            &moto_root_tf(&key, &call),
        );
    }
    let other = "resource \"fake_thing\" \"o\" {\n  name = \"o\"\n}\n";
    write(
        repo,
        "infra/other/main.tf",
        &moto_root_tf(&format!("{tag}-other.tfstate"), other),
    );
}

/// The projects of every run job enqueued so far, in order.
async fn run_jobs_projects(h: &Harness) -> Vec<String> {
    let payloads: Vec<String> =
        sqlx::query_scalar("SELECT payload FROM jobs WHERE kind = 'run' ORDER BY id")
            .fetch_all(&h.state.db.pool)
            .await
            .unwrap();
    payloads
        .iter()
        .map(|p| serde_json::from_str::<serde_json::Value>(p).unwrap()["projects"].to_string())
        .collect()
}

fn base_tarball_downloads(h: &Harness) -> usize {
    h.github.with(|g| {
        g.requests
            .iter()
            .filter(|r| r.is("GET", &format!("/tarball/{BASE_SHA}")))
            .count()
    })
}

scenario!(
    a_change_to_a_shared_module_plans_the_roots_calling_it_in_order,
    policy = &modules_policy(),
    |h| {
        if !terraform_tools_available() {
            return;
        }
        let tag = state_bucket().await;
        let repo = tempfile::tempdir().unwrap();
        write_module_repo(repo.path(), &tag);
        h.github.serve_repo(repo.path());
        h.github.with(|g| {
            // Who pushes (the webhook fixture's sender).
            g.permissions.insert("Codertocat".into(), "write".into());
            g.permissions.insert("alice".into(), "write".into());
        });
        // A push touching only the module autoplans exactly the two roots calling it.
        h.push(1, &"c".repeat(40), &["modules/net/main.tf"]).await;
        h.run_jobs().await;
        assert_eq!(run_jobs_projects(&h).await, vec![r#"["network","app"]"#]);
        let plans = h
            .github
            .comments()
            .iter()
            .map(|c| c.body.clone())
            .collect::<Vec<_>>()
            .join("\n");
        assert!(
            plans.contains("module.net.fake_thing.net") && !plans.contains("❌"),
            "{plans}"
        );
        // `/apply` of one of them is allowed: the module makes it part of this PR.
        let apply = h.comment(1, "/apply -p network", "alice").await.join("\n");
        assert!(apply.contains("✅") && !apply.contains("❌"), "{apply}");
        assert!(
            !apply.contains("not changed by this pull request"),
            "{apply}"
        );
        // The base commit was downloaded once, for the push and the command.
        assert_eq!(base_tarball_downloads(&h), 1);
    }
);

scenario!(
    module_calls_are_read_from_the_base_commit_not_the_head,
    policy = &modules_policy(),
    |h| {
        let (base, head) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        write_module_repo(base.path(), "unused");
        write_module_repo(head.path(), "unused");
        // The head makes `other` call the module too: that does not count.
        let call = "module \"net\" {\n  source = \"../../modules/net\"\n  name   = \"o\"\n}\n";
        write(head.path(), "infra/other/main.tf", call);
        h.github.serve_repo_at(BASE_SHA, base.path());
        h.github.serve_repo(head.path());
        h.github.with(|g| {
            g.files = vec!["modules/net/variables.tf".into()];
            g.permissions.insert("alice".into(), "write".into());
        });
        let replies = h.comment_except(1, "/plan", "alice", &["run"]).await;
        assert!(replies.is_empty(), "{replies:?}");
        assert_eq!(run_jobs_projects(&h).await, vec![r#"["network","app"]"#]);
        let denied = h
            .comment_except(1, "/apply -p other", "alice", &["run"])
            .await;
        assert!(
            denied[0].contains("not changed by this pull request"),
            "{denied:?}"
        );
    }
);

scenario!(
    an_unreadable_base_commit_still_plans_roots_changed_directly,
    policy = &modules_policy(),
    |h| {
        // The tarball is not an archive: the module graph cannot be built.
        h.github.with(|g| {
            g.tarball = b"not a tarball".to_vec();
            g.files = vec!["infra/other/main.tf".into(), "modules/net/main.tf".into()];
            g.permissions.insert("alice".into(), "write".into());
        });
        let replies = h.comment_except(1, "/plan", "alice", &["run"]).await;
        assert_eq!(run_jobs_projects(&h).await, vec![r#"["other"]"#]);
        assert_eq!(replies.len(), 1, "{replies:?}");
        assert!(
            replies[0].starts_with("Shared local modules could not be read from the base branch"),
            "{}",
            replies[0]
        );
    }
);

fn inputs_policy(var: &str) -> String {
    with_test_network(&format!(
        r#"
repos: ["Codertocat/Hello-World"]
defaults:
  plan_role: arn:aws:iam::111111111111:role/tfgate-plan
  apply_role: arn:aws:iam::111111111111:role/tfgate-apply
apply_requirements: []
on_input_drift: block
inputs:
  - name: ZONE
    variable: zone
    source: env:{var}
projects:
  - name: dns
    dir: infra/dns
    inputs: [ZONE]
  - name: other
    dir: infra/other
"#
    ))
}

fn inputs_var() -> &'static str {
    static VAR: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VAR.get_or_init(|| {
        format!(
            "TFGATE_TEST_ZONE_{}",
            &uuid::Uuid::new_v4().simple().to_string()[..8]
        )
    })
}

scenario!(
    a_pr_that_only_updates_the_inputs_lock_plans_and_applies_the_consuming_roots,
    policy = &inputs_policy(inputs_var()),
    |h| {
        if !terraform_tools_available() {
            return;
        }
        std::env::set_var(inputs_var(), "example.internal");
        let tag = state_bucket().await;
        let repo = tempfile::tempdir().unwrap();
        let dns = "variable \"zone\" {\n  type = string\n}\nresource \"fake_thing\" \"zone\" {\n  name = var.zone\n}\n";
        write(
            repo.path(),
            "infra/dns/main.tf",
            &moto_root_tf(&format!("{tag}-dns.tfstate"), dns),
        );
        write(
            repo.path(),
            "infra/other/main.tf",
            &moto_root_tf(&format!("{tag}-o.tfstate"), ""),
        );
        h.github.serve_repo(repo.path());
        h.github.with(|g| {
            g.files = vec!["README.md".into()];
            g.permissions.insert("alice".into(), "write".into());
        });
        // `/inputs` answers on a PR that changes no root.
        let inputs = h.comment(1, "/inputs", "alice").await.join("\n");
        let lock = inputs
            .split("```")
            .nth(1)
            .expect("the lock file lines")
            .trim_start_matches('\n');
        assert!(lock.contains("ZONE = "), "{inputs}");
        // The PR commits only the lock file (absent on the base).
        write(repo.path(), "tfgate.inputs.lock", lock);
        h.github.serve_repo(repo.path());
        h.github.with(|g| {
            g.files = vec!["tfgate.inputs.lock".into()];
            let head = g.pr.head_sha.clone();
            g.contents
                .insert((head, "tfgate.inputs.lock".into()), lock.into());
        });
        let plan = h.comment(1, "/plan", "alice").await.join("\n");
        assert!(
            plan.contains("fake_thing.zone") && !plan.contains("❌"),
            "{plan}"
        );
        assert_eq!(run_jobs_projects(&h).await, vec![r#"["dns"]"#]);
        let apply = h.comment(1, "/apply", "alice").await.join("\n");
        assert!(apply.contains("✅") && !apply.contains("❌"), "{apply}");
    }
);
