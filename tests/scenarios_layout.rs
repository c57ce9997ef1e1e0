//! The repository's own `tfgate.yaml`: read from the default branch (never the PR's head) when the
//! admin policy sets `allow_repo_layout`, merged under the policy's defaults and permissions.
//! Each runs on SQLite and on PostgreSQL.

mod support;

use support::*;

const POLICY: &str = r#"
repos: ["Codertocat/Hello-World"]
allow_repo_layout: true
defaults:
  plan_role: arn:aws:iam::111111111111:role/tfgate-plan
  apply_role: arn:aws:iam::111111111111:role/tfgate-apply
projects:
  - name: network
    dir: infra/network
"#;

const LAYOUT: &str = "projects:\n  - name: eks\n    dir: infra/eks\n    depends_on: [network]\n";

/// `alice` (write) comments on a PR touching both roots; `tfgate.yaml` is `layout` on `at`.
fn setup(h: &Harness, at: &str, layout: &str) {
    h.github.with(|g| {
        g.files = vec!["infra/eks/main.tf".into(), "infra/network/main.tf".into()];
        g.permissions.insert("alice".into(), "write".into());
        g.contents
            .insert((at.into(), "tfgate.yaml".into()), layout.into());
    });
}

/// The replies to `body`, and the projects of the run jobs it enqueued.
async fn comment(h: &Harness, body: &str) -> (Vec<String>, Vec<String>) {
    let replies = h.comment_except(1, body, "alice", &["run"]).await;
    let payloads: Vec<String> =
        sqlx::query_scalar("SELECT payload FROM jobs WHERE kind = 'run' ORDER BY id")
            .fetch_all(&h.state.db.pool)
            .await
            .unwrap();
    let projects = payloads
        .iter()
        .map(|p| serde_json::from_str::<serde_json::Value>(p).unwrap()["projects"].to_string())
        .collect();
    (replies, projects)
}

scenario!(base_branch_layout_adds_a_project, policy = POLICY, |h| {
    setup(&h, "main", LAYOUT);
    let (replies, runs) = comment(&h, "/plan -p eks").await;
    assert!(replies.is_empty(), "{replies:?}");
    assert_eq!(runs, vec![r#"["eks"]"#]);
    // A plan of both runs them in the layout's order: network first.
    let (_, runs) = comment(&h, "/plan").await;
    assert_eq!(runs[1], r#"["network","eks"]"#);
    assert!(h
        .github
        .with(|g| g.contents_requests.iter().all(|(r, _)| r == "main")));
});

scenario!(
    a_layout_only_on_the_pr_branch_is_ignored,
    policy = POLICY,
    |h| {
        setup(&h, "feature", LAYOUT);
        let (replies, runs) = comment(&h, "/plan -p eks").await;
        assert_eq!(replies.len(), 1, "{replies:?}");
        assert!(replies[0].contains("eks"), "{}", replies[0]);
        assert!(runs.is_empty());
    }
);

scenario!(
    a_broken_base_layout_is_reported_and_admin_projects_still_run,
    policy = POLICY,
    |h| {
        setup(
            &h,
            "main",
            "projects:\n  - dir: infra/eks\n    apply_role: arn:aws:iam::1:role/x\n",
        );
        let (replies, runs) = comment(&h, "/plan -p network").await;
        assert_eq!(replies.len(), 1, "{replies:?}");
        assert!(
            replies[0].starts_with("`tfgate.yaml` on `main` has problems"),
            "{}",
            replies[0]
        );
        assert!(
            replies[0].contains("tfgate.yaml:3:5: projects[0]: `apply_role` cannot be set"),
            "{}",
            replies[0]
        );
        assert_eq!(runs, vec![r#"["network"]"#]);
    }
);

scenario!(
    a_project_gone_from_the_base_layout_before_its_run_is_reported,
    policy = POLICY,
    |h| {
        setup(&h, "main", LAYOUT);
        let (_, runs) = comment(&h, "/plan -p eks").await;
        assert_eq!(runs, vec![r#"["eks"]"#]);
        // `comment` set the run job aside; queue it again, as the worker would find it.
        sqlx::query("UPDATE jobs SET status = 'queued', attempts = 0 WHERE kind = 'run'")
            .execute(&h.state.db.pool)
            .await
            .unwrap();
        h.github.with(|g| g.contents.clear());
        let before = h.github.comments().len();
        // The run job, and the `publish` job of its notice (notices go through the outbox).
        assert_eq!(h.run_jobs().await, 2);
        let said: Vec<String> = h.github.comments()[before..]
            .iter()
            .map(|c| c.body.clone())
            .collect();
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(
            said[0].starts_with("Not run, no longer declared") && said[0].contains("`eks`"),
            "{}",
            said[0]
        );
    }
);

scenario!(
    without_allow_repo_layout_the_file_is_not_even_read,
    policy = &POLICY.replace("allow_repo_layout: true", "allow_repo_layout: false"),
    |h| {
        setup(&h, "main", LAYOUT);
        let (replies, runs) = comment(&h, "/plan -p eks").await;
        assert_eq!(replies.len(), 1, "{replies:?}");
        assert!(runs.is_empty());
        assert!(h.github.with(|g| g.contents_requests.is_empty()));
    }
);
