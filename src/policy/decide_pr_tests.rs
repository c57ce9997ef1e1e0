//! Decisions about the PR itself: its state, its base branch, who pushed to it, and which
//! app produced a required check.

use super::*;
use crate::policy::facts::{CheckRun, PrState, Review, ReviewState};
use crate::policy::load::load_policy;
use crate::policy::schema::GitHubPermission::Write;

const HEAD: &str = "c0ffee0000000000000000000000000000000000";

const POLICY: &str = r#"
repos: [acme/infra]
defaults:
  plan_role: arn:aws:iam::111111111111:role/plan
  apply_role: arn:aws:iam::111111111111:role/apply
projects:
  - name: eks
    dir: infra/eks
apply_requirements: [approved, checks_passed]
required_checks:
  - {name: ci/test, app: github-actions}
  - lint
"#;

fn policy(extra: &str) -> RepoPolicy {
    load_policy("p.yaml", &format!("{POLICY}{extra}")).expect("test policy loads")
}

fn run(name: &str, app: &str, conclusion: &str) -> CheckRun {
    CheckRun {
        name: name.into(),
        conclusion: Some(conclusion.into()),
        head_sha: Some(HEAD.into()),
        app: Some(app.into()),
    }
}

/// A PR by alice into main, approved by bob on the head, both checks green.
fn facts() -> PrFacts {
    PrFacts {
        number: 7,
        author: "alice".into(),
        head_sha: HEAD.into(),
        base_ref: "main".into(),
        default_branch: "main".into(),
        reviews: vec![Review {
            user: "bob".into(),
            state: ReviewState::Approved,
            commit_id: HEAD.into(),
            user_permission: Write,
            user_is_bot: false,
        }],
        commit_authors: vec!["alice".into()],
        pushers: vec!["alice".into()],
        head_pusher_known: true,
        pushes_complete: true,
        check_runs: vec![
            run("ci/test", "github-actions", "success"),
            run("lint", "some-ci", "success"),
        ],
        changed_files: vec!["infra/eks/main.tf".into()],
        ..PrFacts::default()
    }
}

fn decide_for(command: PolicyCommand, facts: &PrFacts, policy: &RepoPolicy) -> Decision {
    let actor = Actor {
        login: "carol".into(),
        permission: Write,
        teams: vec![],
        is_bot: false,
    };
    let target = match command {
        PolicyCommand::Plan | PolicyCommand::Apply => Target::project("eks"),
        _ => Target::default(),
    };
    decide(&actor, command, &target, facts, policy)
}

type Change = fn(&mut PrFacts);
/// Name, policy lines added, change to the facts, rule, text the reply contains.
pub(crate) type PrCase = (
    &'static str,
    &'static str,
    Change,
    &'static str,
    &'static str,
);

/// Every PR-side case: the facts of [`facts`] changed, decided for an `/apply` under
/// [`POLICY`] with the extra lines.
pub(crate) fn pr_cases() -> Vec<PrCase> {
    vec![
        ("happy", "", |_| {}, "apply.allowed", ""),
        ("closed", "", |f| f.state = PrState::Closed, "pr.closed", "This pull request is closed"),
        ("merged", "", |f| f.state = PrState::Merged, "pr.closed", "is closed"),
        ("other base, default rule", "", |f| f.base_ref = "release/1".into(), "pr.base_branch",
         "This pull request targets `release/1`; tfgate runs commands only on pull requests into the default branch `main`."),
        ("other base listed by glob", "base_branches: [main, release/*]\n", |f| f.base_ref = "release/1".into(), "apply.allowed", ""),
        ("glob does not cross /", "base_branches: [main, release/*]\n", |f| f.base_ref = "release/1/x".into(), "pr.base_branch",
         "into `main`, `release/*`."),
        ("default branch not listed", "base_branches: [release/*]\n", |_| {}, "pr.base_branch", "targets `main`"),
        ("default branch other than main", "", |f| { f.default_branch = "trunk".into(); }, "pr.base_branch", "the default branch `trunk`"),
        ("unknown default branch in hand-written facts", "", |f| f.default_branch.clear(), "apply.allowed", ""),
        ("reviewer committed to the PR", "", |f| f.commit_authors.push("BOB".into()), "apply.requires_approval",
         "(not counted: @bob authored or committed commits of this pull request)"),
        ("reviewer pushed to the PR (tfgate's record)", "", |f| f.pushers.push("Bob".into()), "apply.requires_approval",
         "(not counted: @bob pushed to this pull request)"),
        ("head pushed by someone tfgate did not see", "", |f| {
            f.head_pusher_known = false;
            f.pushes_complete = false;
        }, "apply.requires_approval", "- approved: tfgate did not see who pushed the head `c0ffee0`"),
        ("a push tfgate did not see before the head", "", |f| f.pushes_complete = false, "apply.requires_approval",
         "- approved: tfgate did not see every push to this pull request"),
        ("more commits than GitHub lists", "", |f| f.commits_unlisted = 1, "apply.requires_approval",
         "- approved: GitHub lists at most 250 commits of a pull request and this one has 1 more"),
        ("commits without a GitHub user block approvals", "", |f| f.commits_without_login = 2, "apply.requires_approval",
         "- approved: 2 commits of the pull request name no GitHub user as author or committer, so tfgate cannot tell who wrote them and no approval counts"),
        ("an unknown pusher is named before the approvals", "", |f| {
            f.commit_authors.push("bob".into());
            f.commits_without_login = 1;
        }, "apply.requires_approval", "- approved: 1 commit of the pull request names no GitHub user"),
        ("same-named check from another app", "", |f| f.check_runs[0].app = Some("evil-app".into()), "apply.requires_checks_passed",
         "`ci/test` from app `github-actions` has not run on the head"),
        ("same-named passing check beside a failing real one", "", |f| {
            f.check_runs[0].conclusion = Some("failure".into());
            f.check_runs.push(run("ci/test", "evil-app", "success"));
        }, "apply.requires_checks_passed", "`ci/test` concluded failure"),
        ("check without app info", "", |f| f.check_runs[0].app = None, "apply.requires_checks_passed", "from app `github-actions`"),
        ("bare name: any app", "", |f| f.check_runs[1].app = Some("other".into()), "apply.allowed", ""),
    ]
}

/// The decision of one PR case.
pub(crate) fn decide_pr_case(extra: &str, change: Change) -> Decision {
    let mut f = facts();
    change(&mut f);
    decide_for(PolicyCommand::Apply, &f, &policy(extra))
}

#[test]
fn pr_rules() {
    for (name, extra, change, rule, reason) in pr_cases() {
        let d = decide_pr_case(extra, change);
        assert_eq!(d.rule, rule, "case `{name}`: {:?}", d.outcome);
        // The reply's text is checked where it is worded (`render::policy_denial_tests`).
        match d.denial() {
            None => assert!(reason.is_empty(), "case `{name}` allowed"),
            Some(denial) => assert!(!reason.is_empty(), "case `{name}`: {denial:?}"),
        }
    }
}

#[test]
fn closed_and_foreign_base_refuse_every_command() {
    let p = policy("");
    for command in [
        PolicyCommand::Plan,
        PolicyCommand::Apply,
        PolicyCommand::Unlock,
        PolicyCommand::Cancel,
        PolicyCommand::Inputs,
    ] {
        let mut closed = facts();
        closed.state = PrState::Merged;
        assert_eq!(decide_for(command, &closed, &p).rule, "pr.closed");
        let mut foreign = facts();
        foreign.base_ref = "mine".into();
        assert_eq!(decide_for(command, &foreign, &p).rule, "pr.base_branch");
    }
}

#[test]
fn bare_required_checks_are_listed_for_a_warning() {
    assert_eq!(policy("").checks_without_app(), vec!["lint"]);
}

#[test]
fn new_pr_facts_parse_from_json() {
    let json = r#"{
        "number": 7, "author": "alice", "head_sha": "c0ffee", "base_ref": "main",
        "default_branch": "main", "state": "merged",
        "commit_authors": ["alice", "bob"], "commits_without_login": 1,
        "check_runs": [{"name": "ci/test", "conclusion": "success", "app": "github-actions"}]
    }"#;
    let f: PrFacts = serde_json::from_str(json).unwrap();
    assert_eq!(f.state, PrState::Merged);
    assert_eq!(f.commit_authors, vec!["alice", "bob"]);
    assert_eq!(f.check_runs[0].app.as_deref(), Some("github-actions"));
}
