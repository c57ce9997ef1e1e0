//! Approvals and apply requirements that mean what they say, against a fake GitHub over HTTP:
//! who pushed (as tfgate recorded from GitHub's deliveries) or wrote commits cannot approve, no
//! approval counts while tfgate cannot tell who pushed, every page of reviews and checks is read, required checks bind
//! to their app, up_to_date asks GitHub's comparison, unknown mergeability is waited for,
//! closed PRs and foreign bases are refused, and `tfgate.yaml` comes from the default branch.
//! Each runs on SQLite and on PostgreSQL.

mod support;

use support::fake_github::{FakeCommit, FakeReview};
use support::*;

const POLICY: &str = r#"
repos: ["Codertocat/Hello-World"]
defaults:
  plan_role: arn:aws:iam::111111111111:role/tfgate-plan
  apply_role: arn:aws:iam::111111111111:role/tfgate-apply
apply_requirements: [approved, mergeable, up_to_date, checks_passed]
required_checks: [ci/test]
projects:
  - name: eks
    dir: infra/eks
"#;

/// [`POLICY`] with its required check bound to the GitHub Actions app.
const APP_POLICY: &str = r#"
repos: ["Codertocat/Hello-World"]
defaults:
  plan_role: arn:aws:iam::111111111111:role/tfgate-plan
  apply_role: arn:aws:iam::111111111111:role/tfgate-apply
apply_requirements: [approved, mergeable, up_to_date, checks_passed]
required_checks:
  - {name: ci/test, app: github-actions}
projects:
  - name: eks
    dir: infra/eks
"#;

const HEAD: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

/// A PR by `author` touching infra/eks with one commit of theirs, `ci/test` green from
/// GitHub Actions, approved by `bob` on the head; `alice` comments.
fn setup(h: &Harness) {
    h.github.with(|g| {
        g.files = vec!["infra/eks/main.tf".into()];
        for user in ["alice", "author", "bob", "carol"] {
            g.permissions.insert(user.into(), "write".into());
        }
        g.commits = vec![commit(Some("author"), Some("author"))];
        g.check_runs = vec![("ci/test".into(), "success".into())];
        g.reviews = vec![review("bob", "APPROVED")];
    });
}

fn review(user: &str, state: &str) -> FakeReview {
    FakeReview {
        user: user.into(),
        state: state.into(),
        commit_id: HEAD.into(),
        is_bot: false,
    }
}

fn commit(author: Option<&str>, committer: Option<&str>) -> FakeCommit {
    FakeCommit {
        author: author.map(str::to_string),
        committer: committer.map(str::to_string),
    }
}

/// The denial reason of each reply: without the policy-denied heading, the rule line and the
/// footer, with the template's markdown escapes undone.
async fn replies_to(h: &Harness, body: &str) -> Vec<String> {
    let replies = h.comment_except(1, body, "alice", &["run"]).await;
    replies.iter().map(|r| reason(r)).collect()
}

fn reason(reply: &str) -> String {
    let text = reply
        .strip_prefix("## ⛔ Denied by policy\n\n")
        .unwrap_or(reply);
    let text = text.split("\n\nRule: ").next().unwrap();
    let text = text.split("\n\n---\n_tfgate run").next().unwrap();
    text.replace('\u{200b}', "").replace("\\_", "_")
}

async fn last_rule(h: &Harness) -> String {
    let a = tfgate::db::audit::recent(&h.state.db, 1).await.unwrap();
    format!("{}:{}", a[0].rule.clone().unwrap_or_default(), a[0].result)
}

scenario!(the_control_apply_is_allowed, policy = POLICY, |h| {
    setup(&h);
    assert_eq!(replies_to(&h, "/apply -p eks").await, Vec::<String>::new());
    assert_eq!(last_rule(&h).await, "apply.allowed:allow");
});

scenario!(
    the_control_app_bound_check_passes,
    policy = APP_POLICY,
    |h| {
        setup(&h);
        assert_eq!(replies_to(&h, "/apply -p eks").await, Vec::<String>::new());
        assert_eq!(last_rule(&h).await, "apply.allowed:allow");
    }
);

scenario!(
    a_reviewer_who_wrote_commits_cannot_approve,
    policy = POLICY,
    |h| {
        setup(&h);
        // The PR holds a commit bob wrote; bob approves.
        h.github
            .with(|g| g.commits.push(commit(Some("bob"), Some("bob"))));
        let replies = replies_to(&h, "/apply -p eks").await;
        assert_eq!(replies.len(), 1, "{replies:?}");
        assert!(
            replies[0].contains("@bob authored or committed commits of this pull request"),
            "{replies:?}"
        );
        assert_eq!(last_rule(&h).await, "apply.requires_approval:deny");
        // A commit whose author has no GitHub account counts by its committer.
        h.github.with(|g| {
            g.commits = vec![commit(None, Some("carol"))];
            g.reviews = vec![review("carol", "APPROVED")];
        });
        let replies = replies_to(&h, "/apply -p eks").await;
        assert!(
            replies[0].contains("@carol authored or committed commits"),
            "{replies:?}"
        );
        // Someone who pushed nothing approves: allowed.
        h.github.with(|g| g.reviews.push(review("bob", "APPROVED")));
        assert!(replies_to(&h, "/apply -p eks").await.is_empty());
    }
);

const PUSHED: &str = "cccccccccccccccccccccccccccccccccccccccc";

fn review_on(user: &str, sha: &str) -> FakeReview {
    FakeReview {
        commit_id: sha.into(),
        ..review(user, "APPROVED")
    }
}

/// `sender` pushes [`PUSHED`] to the PR (GitHub's `synchronize` delivery is handled; the
/// autoplan it queues is dropped).
async fn push_as(h: &Harness, sender: &str) {
    h.push_by(1, PUSHED, &["infra/eks/main.tf"], sender).await;
    h.run_jobs_except(&["run"]).await;
}

scenario!(
    a_reviewer_who_pushed_cannot_approve_whatever_the_commits_say,
    policy = POLICY,
    |h| {
        setup(&h);
        // bob pushes to the author's PR a commit whose e-mail GitHub matches to the author,
        // then approves the head he pushed.
        h.github
            .with(|g| g.commits.push(commit(Some("author"), Some("author"))));
        push_as(&h, "bob").await;
        h.github
            .with(|g| g.reviews = vec![review_on("bob", PUSHED)]);
        let replies = replies_to(&h, "/apply -p eks").await;
        assert_eq!(replies.len(), 1, "{replies:?}");
        assert!(
            replies[0].contains("(not counted: @bob pushed to this pull request)"),
            "{replies:?}"
        );
        assert_eq!(last_rule(&h).await, "apply.requires_approval:deny");
        // His commit names no GitHub user at all: no approval counts.
        h.github
            .with(|g| *g.commits.last_mut().unwrap() = commit(None, None));
        let replies = replies_to(&h, "/apply -p eks").await;
        assert_eq!(replies.len(), 1, "{replies:?}");
        assert!(
            replies[0].contains("approved: 1 commit of the pull request names no GitHub user as author or committer, so tfgate cannot tell who wrote them and no approval counts"),
            "{replies:?}"
        );
        // With the commit's author known, carol, who pushed nothing, approves: allowed.
        h.github.with(|g| {
            *g.commits.last_mut().unwrap() = commit(Some("author"), Some("author"));
            g.reviews.push(review_on("carol", PUSHED));
        });
        assert_eq!(replies_to(&h, "/apply -p eks").await, Vec::<String>::new());
        assert_eq!(last_rule(&h).await, "apply.allowed:allow");
    }
);

scenario!(
    a_pr_opened_before_the_app_was_installed_counts_no_approval,
    policy = POLICY,
    |h| {
        // tfgate never received this PR's `opened` delivery, nor any push before the head.
        h.pushes_unseen();
        setup(&h);
        let replies = replies_to(&h, "/apply -p eks").await;
        assert_eq!(replies.len(), 1, "{replies:?}");
        assert!(
            replies[0].contains("approved: tfgate did not see who pushed the head `aaaaaaa` (the pull request was opened before the tfgate App was installed, or the push's webhook has not been handled yet), so it cannot tell whether a reviewer pushed it and no approval counts."),
            "{replies:?}"
        );
        assert!(
            replies[0].contains("closes and reopens the pull request"),
            "{replies:?}"
        );
        assert_eq!(last_rule(&h).await, "apply.requires_approval:deny");
        // A push tfgate sees names the head's pusher, not who pushed before it.
        push_as(&h, "author").await;
        h.github
            .with(|g| g.reviews = vec![review_on("bob", PUSHED)]);
        let replies = replies_to(&h, "/apply -p eks").await;
        assert!(
            replies[0].contains("approved: tfgate did not see every push to this pull request"),
            "{replies:?}"
        );
        // Reopened, the PR's record starts at its head: bob's approval counts.
        let mut reopened = webhook_fixture("pull_request.reopened.json");
        reopened["number"] = 1.into();
        reopened["pull_request"]["number"] = 1.into();
        reopened["pull_request"]["head"]["sha"] = PUSHED.into();
        reopened["sender"]["login"] = "carol".into();
        h.deliver("pull_request", &reopened).await;
        h.run_jobs_except(&["run"]).await;
        assert_eq!(replies_to(&h, "/apply -p eks").await, Vec::<String>::new());
        // Whoever reopened it counts as having pushed it.
        h.github
            .with(|g| g.reviews = vec![review_on("carol", PUSHED)]);
        let replies = replies_to(&h, "/apply -p eks").await;
        assert!(
            replies[0].contains("@carol pushed to this pull request"),
            "{replies:?}"
        );
    }
);

scenario!(
    a_pr_with_more_commits_than_github_lists_counts_no_approval,
    policy = POLICY,
    |h| {
        setup(&h);
        // 250 commits by the author, then bob's: GitHub's list of the PR's commits stops
        // before it.
        h.github.with(|g| {
            g.commits = vec![commit(Some("author"), Some("author")); 250];
            g.commits.push(commit(Some("bob"), Some("bob")));
        });
        let replies = replies_to(&h, "/apply -p eks").await;
        assert_eq!(replies.len(), 1, "{replies:?}");
        assert!(
            replies[0].contains("approved: GitHub lists at most 250 commits of a pull request and this one has 1 more, so tfgate cannot check who wrote them and no approval counts"),
            "{replies:?}"
        );
        assert_eq!(last_rule(&h).await, "apply.requires_approval:deny");
        // 250 commits are all listed.
        h.github.with(|g| {
            g.commits.pop();
        });
        assert_eq!(replies_to(&h, "/apply -p eks").await, Vec::<String>::new());
    }
);

scenario!(
    a_change_request_on_the_second_page_of_reviews_is_seen,
    policy = POLICY,
    |h| {
        setup(&h);
        // bob approves, carol comments 100 times, then bob requests changes: review 102.
        h.github.with(|g| {
            g.reviews
                .extend((0..100).map(|_| review("carol", "COMMENTED")));
            g.reviews.push(review("bob", "CHANGES_REQUESTED"));
        });
        let replies = replies_to(&h, "/apply -p eks").await;
        assert_eq!(replies.len(), 1, "{replies:?}");
        assert!(
            replies[0].contains("@bob later requested changes"),
            "{replies:?}"
        );
    }
);

scenario!(
    a_required_check_on_the_second_page_is_seen,
    policy = POLICY,
    |h| {
        setup(&h);
        h.github.with(|g| {
            let others = (0..150).map(|i| (format!("lint-{i}"), "success".to_string()));
            g.check_runs = others
                .chain([("ci/test".to_string(), "success".to_string())])
                .collect();
        });
        assert_eq!(replies_to(&h, "/apply -p eks").await, Vec::<String>::new());
        assert_eq!(last_rule(&h).await, "apply.allowed:allow");
    }
);

scenario!(
    a_same_named_check_from_another_app_does_not_pass,
    policy = APP_POLICY,
    |h| {
        setup(&h);
        // The PR adds its own `ci/test` job, reported by another app; the real one never ran.
        h.github.with(|g| {
            g.check_runs.clear();
            g.app_check_runs = vec![("ci/test".into(), "success".into(), "sneaky-ci".into())];
        });
        let replies = replies_to(&h, "/apply -p eks").await;
        assert_eq!(replies.len(), 1, "{replies:?}");
        assert!(
            replies[0].contains(
                "checks_passed: `ci/test` from app `github-actions` has not run on the head"
            ),
            "{replies:?}"
        );
        assert_eq!(last_rule(&h).await, "apply.requires_checks_passed:deny");
    }
);

scenario!(
    a_branch_behind_its_base_is_not_up_to_date,
    policy = POLICY,
    |h| {
        setup(&h);
        // GitHub says `clean`, yet the base has 3 commits the head lacks.
        h.github.with(|g| {
            g.pr.mergeable_state = "clean".into();
            g.pr.behind_by = 3;
        });
        let replies = replies_to(&h, "/apply -p eks").await;
        assert_eq!(replies.len(), 1, "{replies:?}");
        assert!(
            replies[0].contains("up_to_date: the branch is behind `main`; update it first"),
            "{replies:?}"
        );
        let compared = h.github.with(|g| g.compare_requests.clone());
        assert!(compared.contains(&format!("main...{HEAD}")), "{compared:?}");
    }
);

scenario!(
    mergeability_still_being_computed_is_waited_for,
    policy = POLICY,
    |h| {
        setup(&h);
        // Right after a push GitHub answers `mergeable: null` twice, then computes it.
        h.github.with(|g| {
            g.pr.mergeable = Some(true);
            g.mergeable_reads = [None, None].into_iter().collect();
        });
        assert_eq!(replies_to(&h, "/apply -p eks").await, Vec::<String>::new());
        assert_eq!(last_rule(&h).await, "apply.allowed:allow");
        assert!(h.github.with(|g| g.pr_reads) >= 3);
    }
);

scenario!(commands_on_a_closed_pr_are_refused, policy = POLICY, |h| {
    setup(&h);
    for merged in [false, true] {
        h.github.with(|g| {
            g.pr.state = "closed".into();
            g.pr.merged = merged;
        });
        let replies = replies_to(&h, "/plan -p eks").await;
        assert_eq!(
            replies,
            vec!["This pull request is closed; tfgate does not run commands on it."]
        );
        assert_eq!(last_rule(&h).await, "pr.closed:deny");
    }
    // Nothing was queued to run, so no lock was taken.
    assert_eq!(h.jobs_of("run").await, 0);
});

scenario!(
    a_pr_into_a_branch_other_than_the_default_is_refused,
    policy = POLICY,
    |h| {
        setup(&h);
        h.github.with(|g| g.pr.base_ref = "release/9".into());
        let replies = replies_to(&h, "/plan -p eks").await;
        assert_eq!(replies, vec!["This pull request targets `release/9`; tfgate runs commands only on pull requests into the default branch `main`."]);
        assert_eq!(last_rule(&h).await, "pr.base_branch:deny");
        assert_eq!(h.jobs_of("run").await, 0);
    }
);

const LAYOUT_POLICY: &str = r#"
repos: ["Codertocat/Hello-World"]
allow_repo_layout: true
base_branches: [main, "release/*"]
defaults:
  plan_role: arn:aws:iam::111111111111:role/tfgate-plan
  apply_role: arn:aws:iam::111111111111:role/tfgate-apply
projects:
  - name: eks
    dir: infra/eks
"#;

scenario!(
    the_layout_comes_from_the_default_branch_not_the_base,
    policy = LAYOUT_POLICY,
    |h| {
        setup(&h);
        // A writer opens a PR into a release branch that holds their own tfgate.yaml.
        h.github.with(|g| {
            g.pr.base_ref = "release/9".into();
            g.files.push("evil/main.tf".into());
            let layout = "projects:\n  - name: evil\n    dir: evil\n";
            g.contents
                .insert(("release/9".into(), "tfgate.yaml".into()), layout.into());
        });
        let replies = replies_to(&h, "/plan -p evil").await;
        assert_eq!(replies.len(), 1, "{replies:?}");
        assert!(
            replies[0].contains("`evil` is not a project tfgate knows"),
            "{replies:?}"
        );
        let refs: Vec<String> = h
            .github
            .with(|g| g.contents_requests.iter().map(|(r, _)| r.clone()).collect());
        assert_eq!(refs, vec!["main"]);
        // base_branches lets the release branch run the admin's projects.
        assert!(replies_to(&h, "/plan -p eks").await.is_empty());
        assert_eq!(last_rule(&h).await, "plan.allowed:allow");
    }
);

scenario!(
    a_pr_into_another_base_never_has_its_base_layout_read,
    policy = &LAYOUT_POLICY.replace("base_branches: [main, \"release/*\"]\n", ""),
    |h| {
        setup(&h);
        h.github.with(|g| {
            g.pr.base_ref = "attacker".into();
            g.files.push("evil/main.tf".into());
            let layout = "projects:\n  - name: evil\n    dir: evil\n";
            g.contents
                .insert(("attacker".into(), "tfgate.yaml".into()), layout.into());
        });
        let replies = replies_to(&h, "/plan -p evil").await;
        assert!(
            replies.iter().all(|r| r.contains("targets `attacker`")),
            "{replies:?}"
        );
        let refs: Vec<String> = h
            .github
            .with(|g| g.contents_requests.iter().map(|(r, _)| r.clone()).collect());
        assert_eq!(refs, vec!["main"]);
    }
);
