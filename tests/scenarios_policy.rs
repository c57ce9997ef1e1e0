//! Scenario tests for server-side policy: each way around it is denied with an exact reply,
//! and every decision is in the audit log. Each runs on SQLite and on PostgreSQL.

mod support;

use support::fake_github::FakeReview;
use support::*;

const POLICY: &str = r#"
repos: ["Codertocat/Hello-World"]
defaults:
  plan_role: arn:aws:iam::111111111111:role/tfgate-plan
  apply_role: arn:aws:iam::111111111111:role/tfgate-apply
apply_requirements: [approved, mergeable]
projects:
  - name: network
    dir: infra/network
  - name: eks
    dir: infra/eks
  - name: argocd
    dir: bootstrap/argocd
    comment_apply: false
"#;

/// A PR by `author` touching infra/eks, commenter `alice` with write access.
fn setup(h: &Harness) {
    h.github.with(|g| {
        g.pr.author = "author".into();
        g.files = vec![
            "infra/eks/main.tf".into(),
            "bootstrap/argocd/main.tf".into(),
        ];
        g.permissions.insert("alice".into(), "write".into());
        g.permissions.insert("author".into(), "write".into());
        g.permissions.insert("reader".into(), "read".into());
        g.permissions.insert("bob".into(), "write".into());
    });
}

fn review(user: &str, state: &str, sha: &str) -> FakeReview {
    FakeReview {
        user: user.into(),
        state: state.into(),
        commit_id: sha.into(),
        is_bot: false,
    }
}

async fn reply_to(h: &Harness, body: &str, who: &str) -> Vec<String> {
    h.comment_except(1, body, who, &["run"]).await
}

/// The text of each reply, without the footer every tfgate comment ends with.
fn texts(replies: Vec<String>) -> Vec<String> {
    replies
        .into_iter()
        .map(|r| r.split("\n\n---\n_tfgate run").next().unwrap().to_string())
        .collect()
}

async fn last_audit_rule(h: &Harness) -> String {
    let a = tfgate::db::audit::recent(&h.state.db, 1).await.unwrap();
    format!("{}:{}", a[0].rule.clone().unwrap_or_default(), a[0].result)
}

scenario!(
    plan_by_a_writer_is_allowed_and_audited,
    policy = POLICY,
    |h| {
        setup(&h);
        assert!(reply_to(&h, "/plan", "alice").await.is_empty());
        assert_eq!(last_audit_rule(&h).await, "plan.allowed:allow");
    }
);

scenario!(
    apply_approved_only_by_the_author_is_denied,
    policy = POLICY,
    |h| {
        setup(&h);
        let head = "a".repeat(40);
        h.github
            .with(|g| g.reviews = vec![review("author", "APPROVED", &head)]);
        let replies = reply_to(&h, "/apply -p eks", "alice").await;
        assert_eq!(replies.len(), 1);
        assert!(replies[0].contains("approv"), "{}", replies[0]);
        assert!(last_audit_rule(&h).await.ends_with(":deny"));
    }
);

scenario!(
    approval_by_read_only_user_does_not_count,
    policy = POLICY,
    |h| {
        setup(&h);
        let head = "a".repeat(40);
        h.github
            .with(|g| g.reviews = vec![review("reader", "APPROVED", &head)]);
        let replies = reply_to(&h, "/apply -p eks", "alice").await;
        assert!(replies[0].contains("approv"), "{replies:?}");
    }
);

scenario!(
    approval_before_a_new_push_does_not_count,
    policy = POLICY,
    |h| {
        setup(&h);
        h.github
            .with(|g| g.reviews = vec![review("bob", "APPROVED", &"c".repeat(40))]);
        let replies = reply_to(&h, "/apply -p eks", "alice").await;
        assert!(replies[0].contains("approv"), "{replies:?}");
        // The same approval on the current head lets the apply through.
        h.github
            .with(|g| g.reviews = vec![review("bob", "APPROVED", &"a".repeat(40))]);
        assert!(reply_to(&h, "/apply -p eks", "alice").await.is_empty());
        assert_eq!(last_audit_rule(&h).await, "apply.allowed:allow");
    }
);

scenario!(fork_prs_are_refused, policy = POLICY, |h| {
    setup(&h);
    h.github
        .with(|g| g.pr.head_repo = "mallory/Hello-World".into());
    let replies = reply_to(&h, "/plan -p eks", "alice").await;
    assert!(replies[0].to_lowercase().contains("fork"), "{replies:?}");
});

scenario!(
    bootstrap_root_is_not_applied_by_comment,
    policy = POLICY,
    |h| {
        setup(&h);
        h.github
            .with(|g| g.reviews = vec![review("bob", "APPROVED", &"a".repeat(40))]);
        let replies = reply_to(&h, "/apply -d bootstrap/argocd", "alice").await;
        assert!(
            replies[0].contains("applied by an admin, not by comment"),
            "{replies:?}"
        );
    }
);

scenario!(
    apply_on_a_root_the_pr_does_not_touch_is_denied,
    policy = POLICY,
    |h| {
        setup(&h);
        h.github
            .with(|g| g.reviews = vec![review("bob", "APPROVED", &"a".repeat(40))]);
        let replies = reply_to(&h, "/apply -p network", "alice").await;
        assert_eq!(replies.len(), 1, "{replies:?}");
        assert!(last_audit_rule(&h).await.ends_with(":deny"));
    }
);

scenario!(
    reader_gets_no_reply_on_a_public_repo,
    policy = POLICY,
    |h| {
        setup(&h);
        let replies = reply_to(&h, "/plan -p eks\n/paln\n/help", "reader").await;
        assert!(replies.is_empty(), "{replies:?}");
        assert!(h.github.reactions().is_empty());
        assert_eq!(h.jobs_of("run").await, 0);
    }
);

scenario!(
    reader_gets_one_short_reply_on_a_private_repo,
    policy = POLICY,
    |h| {
        setup(&h);
        let before = h.github.comments().len();
        let mut comment = pr_comment("/plan -p eks\n/paln\n/help\n/apply", "reader");
        comment["repository"]["private"] = true.into();
        h.deliver("issue_comment", &comment).await;
        h.run_jobs().await;
        let replies = &h.github.comments()[before..];
        assert_eq!(replies.len(), 1, "{replies:?}");
        assert!(replies[0].body.contains("at least `write`"), "{replies:?}");
        assert!(
            !replies[0].body.contains("/paln"),
            "no work for an outsider: {replies:?}"
        );
    }
);

scenario!(
    a_comment_of_many_bad_lines_gets_one_reply,
    policy = POLICY,
    |h| {
        setup(&h);
        let body = "/plan -- -chdir=/etc\n".to_string() + &"/paln\n".repeat(500) + "/help";
        let replies = reply_to(&h, &body, "alice").await;
        assert_eq!(replies.len(), 1, "one reply whatever the comment holds");
        assert!(replies[0].contains("-chdir"), "{}", replies[0]);
        assert!(replies[0].contains("496 more line(s)"), "{}", replies[0]);
        assert!(
            replies[0].len() < 10_000,
            "bounded: {} bytes",
            replies[0].len()
        );
    }
);

scenario!(
    a_replayed_comment_runs_nothing_twice,
    policy = POLICY,
    |h| {
        setup(&h);
        let comment = pr_comment("/plan -p eks", "alice");
        h.deliver("issue_comment", &comment).await;
        h.deliver("issue_comment", &comment).await; // same comment id, new delivery id
        h.run_jobs_except(&["run"]).await;
        assert_eq!(h.jobs_of("run").await, 1);
        assert_eq!(h.github.reactions().len(), 1);
    }
);

scenario!(
    commands_past_the_hourly_limit_are_refused,
    policy = &format!("{POLICY}commands_per_hour: 2\n"),
    |h| {
        setup(&h);
        reply_to(&h, "/plan -p eks", "alice").await;
        reply_to(&h, "/plan -p eks", "alice").await;
        let third = reply_to(&h, "/plan -p eks", "alice").await;
        assert_eq!(third.len(), 1);
        assert!(third[0].contains("ran 2 tfgate commands"), "{third:?}");
        assert_eq!(h.jobs_of("run").await, 2);
        assert!(
            reply_to(&h, "/plan -p eks", "bob").await.is_empty(),
            "the limit is per user"
        );
        assert_eq!(h.jobs_of("run").await, 3);
    }
);

scenario!(repo_without_policy_is_told_once, |h| {
    let first = reply_to(&h, "/plan", "alice").await;
    assert_eq!(first.len(), 1);
    assert!(first[0].contains("not enabled"), "{first:?}");
    assert!(
        reply_to(&h, "/plan", "alice").await.is_empty(),
        "told only once"
    );
});

scenario!(
    a_push_autoplans_the_roots_it_touches,
    policy = POLICY,
    |h| {
        setup(&h);
        let push = webhook_fixture("pull_request.synchronize.json");
        let pushed = push["pull_request"]["head"]["sha"]
            .as_str()
            .unwrap()
            .to_string();
        h.github.with(|g| {
            g.permissions.insert("Codertocat".into(), "write".into());
            g.pr.head_sha = pushed.clone();
        });
        let (status, _) = h.deliver("pull_request", &push).await;
        assert_eq!(status, axum::http::StatusCode::ACCEPTED);
        h.run_jobs_except(&["run"]).await;
        let payload: String = sqlx::query_scalar("SELECT payload FROM jobs WHERE kind = 'run'")
            .fetch_one(&h.state.db.pool)
            .await
            .unwrap();
        let run: serde_json::Value = serde_json::from_str(&payload).unwrap();
        assert_eq!(run["command"], "plan");
        assert_eq!(
            run["head_sha"],
            pushed.as_str(),
            "bound to the pushed commit"
        );
        assert!(
            run["projects"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p == "eks"),
            "{run}"
        );
        assert!(
            !run["projects"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p == "network"),
            "untouched root not planned: {run}"
        );
    }
);

/// [`POLICY`] where only the author and alice may plan.
const PLANNERS_POLICY: &str = r#"
repos: ["Codertocat/Hello-World"]
defaults:
  plan_role: arn:aws:iam::111111111111:role/tfgate-plan
  apply_role: arn:aws:iam::111111111111:role/tfgate-apply
permissions:
  plan:
    users: [author, alice]
projects:
  - name: eks
    dir: infra/eks
"#;

scenario!(
    a_push_is_autoplanned_only_for_a_pusher_who_may_plan,
    policy = PLANNERS_POLICY,
    |h| {
        setup(&h);
        // bob may write but not plan; he pushes to the author's branch, whom policy allows.
        let by_bob = "c".repeat(40);
        h.push_by(1, &by_bob, &["infra/eks/main.tf"], "bob").await;
        h.run_jobs_except(&["run"]).await;
        assert_eq!(h.jobs_of("run").await, 0, "nothing of bob's runs");
        let audit = tfgate::db::audit::recent(&h.state.db, 20).await.unwrap();
        let autoplan = audit.iter().find(|a| a.action == "autoplan").unwrap();
        assert_eq!(
            (autoplan.actor.as_str(), autoplan.result.as_str()),
            ("bob", "deny")
        );
        // alice may plan: her push plans, and the run (its STS SourceIdentity) names her.
        let by_alice = "d".repeat(40);
        h.push_by(1, &by_alice, &["infra/eks/main.tf"], "alice")
            .await;
        h.run_jobs_except(&["run"]).await;
        let payload: String = sqlx::query_scalar("SELECT payload FROM jobs WHERE kind = 'run'")
            .fetch_one(&h.state.db.pool)
            .await
            .unwrap();
        let run: tfgate::jobs::RunJob = serde_json::from_str(&payload).unwrap();
        assert_eq!(
            (run.actor.as_str(), run.head_sha.as_str()),
            ("alice", by_alice.as_str())
        );
    }
);

scenario!(a_fork_push_is_not_autoplanned, policy = POLICY, |h| {
    setup(&h);
    let mut v = webhook_fixture("pull_request.synchronize.json");
    v["pull_request"]["head"]["repo"]["full_name"] = "mallory/Hello-World".into();
    h.deliver("pull_request", &v).await;
    h.run_jobs_except(&["run"]).await;
    assert_eq!(h.jobs_of("run").await, 0);
});

const TEAM_POLICY: &str = r#"
repos: ["Codertocat/Hello-World"]
defaults:
  plan_role: arn:aws:iam::111111111111:role/tfgate-plan
  apply_role: arn:aws:iam::111111111111:role/tfgate-apply
permissions:
  plan:
    min_permission: write
    teams: [platform]
projects:
  - name: eks
    dir: infra/eks
"#;

scenario!(
    team_membership_is_read_from_github,
    policy = TEAM_POLICY,
    |h| {
        setup(&h);
        h.github
            .with(|g| g.team_members.push(("platform".into(), "alice".into())));
        assert!(
            reply_to(&h, "/plan -p eks", "alice").await.is_empty(),
            "a platform member may plan"
        );
        let replies = reply_to(&h, "/plan -p eks", "bob").await;
        assert_eq!(
            replies.len(),
            1,
            "bob has write but is in no listed team: {replies:?}"
        );
        assert!(last_audit_rule(&h).await.ends_with(":deny"));
    }
);

/// Queue a run job of the fixture PR that is not due for an hour (so no test worker takes it).
async fn queue_run(h: &Harness, command: &str, projects: &[&str]) -> i64 {
    let comment = pr_comment("/plan", "alice");
    let run = tfgate::jobs::RunJob {
        repo: tfgate::model::RepoRef {
            installation_id: comment["installation"]["id"].as_i64().unwrap(),
            owner: "Codertocat".into(),
            name: "Hello-World".into(),
        },
        number: 1,
        command: tfgate::jobs::RunCommand::parse(command).unwrap(),
        projects: projects.iter().map(|p| p.to_string()).collect(),
        actor: "alice".into(),
        head_sha: String::new(),
        plan_runs: Default::default(),
        plan_authors_checked: false,
        terraform_args: vec![],
        accept_inputs: vec![],
        comment_id: None,
        batch: None,
    };
    let job = tfgate::db::jobs::NewJob {
        kind: tfgate::jobs::JobKind::Run,
        payload: serde_json::to_string(&run).unwrap(),
        repo: Some("Codertocat/Hello-World".into()),
        pr: Some(1),
        max_attempts: 1,
    };
    tfgate::db::jobs::enqueue_after(&h.state.db, &job, 3_600_000)
        .await
        .unwrap()
}

async fn job_state(h: &Harness, id: i64) -> (String, Vec<String>) {
    let (status, payload): (String, String) =
        sqlx::query_as("SELECT status, payload FROM jobs WHERE id = $1")
            .bind(id)
            .fetch_one(&h.state.db.pool)
            .await
            .unwrap();
    let run: tfgate::jobs::RunJob = serde_json::from_str(&payload).unwrap();
    (status, run.projects)
}

scenario!(
    cancel_takes_only_the_named_project_out_of_queued_runs_with_one_reply,
    policy = POLICY,
    |h| {
        setup(&h);
        let both = queue_run(&h, "plan", &["network", "eks"]).await;
        let eks_apply = queue_run(&h, "apply", &["eks"]).await;
        assert_eq!(
            texts(reply_to(&h, "/cancel -p eks", "alice").await),
            vec![
                "Cancelled the queued plan of `eks`; apply of `eks`. A run that has started is \
                  never stopped by a comment."
            ]
        );
        assert_eq!(
            job_state(&h, both).await,
            ("queued".into(), vec!["network".into()])
        );
        assert_eq!(job_state(&h, eks_apply).await.0, "cancelled");
        assert_eq!(
            texts(reply_to(&h, "/cancel -p eks", "alice").await),
            vec![
                "Nothing to cancel: no queued plan or apply of `eks`. A run that has started \
                  is never stopped by a comment."
            ]
        );
        // Without -p: the projects the PR changes (eks, argocd); the network plan stays.
        assert_eq!(reply_to(&h, "/cancel", "alice").await.len(), 1);
        assert_eq!(job_state(&h, both).await.0, "queued");
        reply_to(&h, "/cancel -p network", "alice").await;
        assert_eq!(job_state(&h, both).await.0, "cancelled");
    }
);

scenario!(
    unlock_of_several_projects_answers_once,
    policy = POLICY,
    |h| {
        setup(&h);
        // The PR changes two declared projects (eks, argocd): one release each, one reply.
        assert_eq!(
            texts(reply_to(&h, "/unlock", "alice").await),
            vec!["Released 0 lock(s) held by this pull request."]
        );
        let audit = tfgate::db::audit::recent(&h.state.db, 2).await.unwrap();
        let decisions: Vec<_> = audit
            .iter()
            .map(|a| (a.action.as_str(), a.result.as_str()))
            .collect();
        assert_eq!(decisions, vec![("unlock", "allow"), ("unlock", "allow")]);
    }
);
