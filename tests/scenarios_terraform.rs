//! End to end, no network: a signed comment → queue → policy → checkout (tarball from the fake
//! GitHub) → STS (moto) → real Terraform 1.0.3 in bubblewrap with the Rust test provider →
//! the comment posted. State lives in an S3 backend served by moto, so applies persist.

mod support;

use std::path::Path;

use support::fake_github::FakeReview;
use support::*;

const DENIED: &str = "creating EKS Node Group (main): operation error EKS: CreateNodegroup, https response error StatusCode: 400, RequestID: 0b0a4b5c-1111-2222-3333-444455556666, InvalidParameterException: Failed to validate if SLR: AWSServiceRoleForAmazonEKSNodegroup already exists due to missing permissions for 'iam:GetRole'";

fn policy() -> String {
    with_test_network(
        r#"
repos: ["Codertocat/Hello-World"]
defaults:
  plan_role: arn:aws:iam::111111111111:role/tfgate-plan
  apply_role: arn:aws:iam::111111111111:role/tfgate-apply
apply_requirements: [approved]
projects:
  - name: network
    dir: infra/network
  - name: cluster
    dir: infra/cluster
    depends_on: [network]
  - name: platform
    dir: infra/platform
    depends_on: [cluster]
"#,
    )
}

fn root_tf(name: &str, resources: &str) -> String {
    moto_root_tf(&format!("{name}.tfstate"), resources)
}

/// A repository with three roots; `cluster_fails` makes the cluster's node group fail.
fn write_repo(dir: &Path, run: &str, cluster_fails: bool) {
    let fail = if cluster_fails {
        format!("fail_with = {DENIED:?}")
    } else {
        String::new()
    };
    let roots = [
        ("network", format!("resource \"fake_thing\" \"vpc\" {{\n  name = \"vpc-{run}\"\n}}\n")),
        (
            "cluster",
            format!("resource \"fake_thing\" \"cluster\" {{\n  name = \"cluster-{run}\"\n}}\nresource \"fake_thing\" \"nodes\" {{\n  name = \"nodes-{run}\"\n  depends_value = fake_thing.cluster.id\n  {fail}\n}}\n"),
        ),
        ("platform", format!("resource \"fake_thing\" \"argocd\" {{\n  name = \"argocd-{run}\"\n}}\n")),
    ];
    for (name, body) in roots {
        let d = dir.join("infra").join(name);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("main.tf"), root_tf(&format!("{run}-{name}"), &body)).unwrap();
    }
}

async fn setup(h: &Harness, run: &str, cluster_fails: bool) -> tempfile::TempDir {
    create_state_bucket().await;
    let repo = tempfile::tempdir().unwrap();
    write_repo(repo.path(), run, cluster_fails);
    h.github.serve_repo(repo.path());
    h.github.with(|g| {
        g.pr.author = "author".into();
        g.files = vec![
            "infra/network/main.tf".into(),
            "infra/cluster/main.tf".into(),
            "infra/platform/main.tf".into(),
        ];
        g.permissions.insert("alice".into(), "write".into());
        g.permissions.insert("bob".into(), "write".into());
        g.reviews = vec![FakeReview {
            user: "bob".into(),
            state: "APPROVED".into(),
            commit_id: g.pr.head_sha.clone(),
            is_bot: false,
        }];
    });
    repo
}

/// `alice` comments on the PR; tfgate's answers, joined.
async fn comment(h: &Harness, body: &str) -> String {
    h.comment(1, body, "alice").await.join(
        "
----
",
    )
}

fn unique(tag: &str) -> String {
    let id = uuid::Uuid::new_v4().simple().to_string();
    format!("{tag}{}", &id[..8])
}

scenario!(
    plan_then_partial_failure_then_resume_in_order,
    policy = &policy(),
    |h| {
        if !terraform_tools_available() {
            return;
        }
        let run = unique("a");
        let repo = setup(&h, &run, true).await;
        let plan = comment(&h, "/plan").await;
        for root in ["network", "cluster", "platform"] {
            assert!(plan.contains(root), "plan names {root}:\n{plan}");
        }
        assert!(plan.contains("fake_thing.nodes"), "{plan}");

        let apply = comment(&h, "/apply").await;
        assert!(
            apply.contains("`fake_thing.vpc`") && apply.contains("✅"),
            "{apply}"
        );
        assert!(apply.contains("❌"), "{apply}");
        assert!(
            apply.contains("permission missing") && apply.contains("`iam:GetRole`"),
            "{apply}"
        );
        assert!(
            apply.contains("the next `/apply` resumes here"),
            "platform was not run:\n{apply}"
        );
        for leak in [
            "AWSServiceRoleForAmazonEKSNodegroup",
            "0b0a4b5c",
            "Failed to validate",
            "111111111111",
        ] {
            assert!(!apply.contains(leak), "{leak} leaked:\n{apply}");
        }

        // The raw output stays on the server, sealed; an admin reads it with `tfgate logs`.
        let run_id: i64 = sqlx::query_scalar(
            "SELECT MAX(id) FROM runs WHERE command = 'apply' AND project = 'cluster'",
        )
        .fetch_one(&h.state.db.pool)
        .await
        .unwrap();
        let sealed: Vec<u8> = sqlx::query_scalar("SELECT raw_log FROM runs WHERE id = $1")
            .bind(run_id)
            .fetch_one(&h.state.db.pool)
            .await
            .unwrap();
        assert!(
            !String::from_utf8_lossy(&sealed).contains("AWSServiceRoleForAmazonEKSNodegroup"),
            "sealed at rest"
        );
        let raw = tfgate::cli::logs::logs(&h.state.config, run_id)
            .await
            .unwrap();
        assert!(
            raw.contains("AWSServiceRoleForAmazonEKSNodegroup"),
            "admins see the provider text"
        );

        // The admin fixes the permission (here: the failure goes away), the PR is re-planned.
        write_repo(repo.path(), &run, false);
        h.github.serve_repo(repo.path());
        let replan = comment(&h, "/plan").await;
        assert!(replan.contains("network"), "{replan}");
        let resumed = comment(&h, "/apply").await;
        assert!(
            resumed.contains("`fake_thing.nodes`") && resumed.contains("`fake_thing.argocd`"),
            "{resumed}"
        );
        assert!(!resumed.contains("❌"), "{resumed}");
        assert!(
            !resumed.contains("`fake_thing.vpc`"),
            "network has nothing left to apply:\n{resumed}"
        );
    }
);

scenario!(
    apply_after_a_push_is_refused_as_stale,
    policy = &policy(),
    |h| {
        if !terraform_tools_available() {
            return;
        }
        let _repo = setup(&h, &unique("s"), false).await;
        comment(&h, "/plan -p network").await;
        h.github.with(|g| {
            g.pr.head_sha = "d".repeat(40);
            g.reviews = vec![FakeReview {
                user: "bob".into(),
                state: "APPROVED".into(),
                commit_id: "d".repeat(40),
                is_bot: false,
            }];
        });
        let reply = comment(&h, "/apply -p network").await;
        assert!(reply.contains("/plan"), "{reply}");
        assert!(reply.to_lowercase().contains("stale"), "{reply}");
    }
);

scenario!(
    apply_of_a_plan_past_retention_asks_for_a_new_plan,
    policy = &policy(),
    |h| {
        if !terraform_tools_available() {
            return;
        }
        let _repo = setup(&h, &unique("r"), false).await;
        comment(&h, "/plan -p network").await;
        // What the retention pass does to runs finished more than TFGATE_RETENTION_DAYS ago.
        sqlx::query("UPDATE runs SET plan_blob = NULL, raw_log = NULL")
            .execute(&h.state.db.pool)
            .await
            .unwrap();
        let reply = comment(&h, "/apply -p network").await;
        assert!(
            reply.contains("`network`: its plan is no longer stored (plans are kept 30 days); run `/plan` again."),
            "{reply}"
        );
    }
);

scenario!(
    second_pr_on_the_same_root_gets_the_lock_message,
    policy = &policy(),
    |h| {
        if !terraform_tools_available() {
            return;
        }
        let _repo = setup(&h, &unique("l"), false).await;
        comment(&h, "/plan -p network").await;
        let mut other = pr_comment("/plan -p network", "alice");
        other["issue"]["number"] = 2.into();
        let before = h.github.comments().len();
        h.deliver("issue_comment", &other).await;
        h.run_jobs().await;
        let reply = &h.github.comments()[before..];
        assert_eq!(reply.len(), 1, "{reply:?}");
        assert_eq!(reply[0].number, 2);
        assert!(
            reply[0].body.contains("#1") || reply[0].body.contains("/pull/1"),
            "{}",
            reply[0].body
        );
    }
);

scenario!(
    a_project_naming_a_missing_terraform_is_told_so,
    policy = &policy().replace(
        "  - name: network\n    dir: infra/network\n",
        "  - name: network\n    dir: infra/network\n    terraform: /opt/nonexistent/tofu\n"
    ),
    |h| {
        if !terraform_tools_available() {
            return;
        }
        let _repo = setup(&h, &unique("t"), false).await;
        let reply = comment(&h, "/plan -p network").await;
        assert!(
            reply.contains("Terraform for `network` is not installed on the server"),
            "{reply}"
        );
    }
);

scenario!(
    a_second_apply_after_a_partial_failure_asks_for_a_new_plan,
    policy = &policy(),
    |h| {
        if !terraform_tools_available() {
            return;
        }
        let run = unique("s");
        let _repo = setup(&h, &run, true).await;
        comment(&h, "/plan").await;
        let apply = comment(&h, "/apply").await;
        assert!(
            apply.contains("**Next**: this plan of `cluster` is spent")
                && apply.contains("run `/plan -p cluster`"),
            "{apply}"
        );

        // No new plan: the cluster's saved plan is not handed to Terraform again.
        let again = comment(&h, "/apply").await;
        assert!(again.contains("⏸ Apply refused"), "{again}");
        assert!(
            again.contains("`cluster`: the last apply of this plan failed part-way")
                && again.contains("Run `/plan -p cluster`"),
            "{again}"
        );
        let cluster_applies: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM runs WHERE command = 'apply' AND project = 'cluster'",
        )
        .fetch_one(&h.state.db.pool)
        .await
        .unwrap();
        assert_eq!(
            cluster_applies, 1,
            "Terraform was not run for cluster again"
        );
        assert!(
            again.contains(
                "failed part-way; after `/plan -p cluster`, the next `/apply` resumes here"
            ),
            "platform waits for the new plan:\n{again}"
        );
    }
);
