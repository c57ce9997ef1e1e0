use super::*;
use crate::model::{PolicyDenial, UnmetRequirement};
use crate::policy::facts::{CheckRun, Review, ReviewState};
use crate::policy::load::load_policy;
use crate::policy::schema::GitHubPermission::{self, Admin, Maintain, Read, Triage, Write};

const POLICY: &str = r#"
repos: [kukie-org/kukie-infra]
defaults:
  plan_role: arn:aws:iam::111111111111:role/plan
  apply_role: arn:aws:iam::111111111111:role/apply
exclude: [sandbox/**]
projects:
  - name: network
    dir: infra/network
  - name: eks
    dir: infra/eks
    depends_on: [network]
  - name: argocd-bootstrap
    dir: bootstrap/argocd
    comment_apply: false
  - name: prod
    dir: infra/prod
    permissions:
      apply:
        min_permission: maintain
        users: [carol]
        teams: [acme/sre]
permissions:
  plan:
    min_permission: triage
apply_requirements: [approved, mergeable, up_to_date, checks_passed]
required_checks: [validate]
"#;

pub(crate) const HEAD: &str = "c0ffee0000000000000000000000000000000000";
pub(crate) const OLD: &str = "0ld0000000000000000000000000000000000000";

pub(crate) fn policy() -> RepoPolicy {
    load_policy("p.yaml", POLICY).expect("test policy loads")
}

pub(crate) fn actor(login: &str, permission: GitHubPermission) -> Actor {
    Actor {
        login: login.into(),
        permission,
        teams: vec![],
        is_bot: false,
    }
}

pub(crate) fn review(
    user: &str,
    state: ReviewState,
    commit: &str,
    perm: GitHubPermission,
) -> Review {
    Review {
        user: user.into(),
        state,
        commit_id: commit.into(),
        user_permission: perm,
        user_is_bot: false,
    }
}

/// A PR by alice touching infra/eks and bootstrap/argocd, approved by bob on the head,
/// mergeable, up to date, checks green.
pub(crate) fn facts() -> PrFacts {
    PrFacts {
        number: 7,
        author: "alice".into(),
        head_sha: HEAD.into(),
        base_ref: "main".into(),
        default_branch: "main".into(),
        mergeable: Some(true),
        up_to_date: Some(true),
        reviews: vec![review("bob", ReviewState::Approved, HEAD, Write)],
        pushers: vec!["alice".into()],
        head_pusher_known: true,
        pushes_complete: true,
        check_runs: vec![CheckRun {
            name: "validate".into(),
            conclusion: Some("success".into()),
            head_sha: None,
            app: Some("github-actions".into()),
        }],
        changed_files: vec![
            "infra/eks/main.tf".into(),
            "bootstrap/argocd/main.tf".into(),
            "infra/prod/main.tf".into(),
        ],
        ..PrFacts::default()
    }
}

pub(crate) struct Case {
    pub(crate) name: &'static str,
    pub(crate) actor: Actor,
    pub(crate) command: PolicyCommand,
    pub(crate) target: Target,
    pub(crate) facts: PrFacts,
    rule: &'static str,
    /// Text the reply contains (checked where it is worded, `render::policy_denial_tests`).
    pub(crate) reason: &'static str,
}

fn case(name: &'static str, rule: &'static str, reason: &'static str) -> Case {
    Case {
        name,
        actor: actor("alice", Write),
        command: PolicyCommand::Apply,
        target: Target::project("eks"),
        facts: facts(),
        rule,
        reason,
    }
}

fn with<F: FnOnce(&mut Case)>(mut c: Case, f: F) -> Case {
    f(&mut c);
    c
}

pub(crate) fn cases() -> Vec<Case> {
    use PolicyCommand::*;
    use ReviewState::*;
    vec![
        case("happy apply", "apply.allowed", ""),
        with(case("plan by triage", "plan.allowed", ""), |c| {
            c.command = Plan;
            c.actor = actor("dave", Triage);
        }),
        with(case("edited comment never executes", "comment.edited", "Edited comments are never executed"), |c| {
            c.facts.comment_edited = true;
        }),
        with(case("edited comment, even for plan", "comment.edited", "Edited comments"), |c| {
            c.facts.comment_edited = true;
            c.command = Plan;
        }),
        with(case("bot commenter", "actor.bot", "bot accounts"), |c| c.actor = actor("renovate[bot]", Admin)),
        with(case("bot flag", "actor.bot", "bot accounts"), |c| c.actor.is_bot = true),
        with(case("closed PR", "pr.closed", "This pull request is closed; tfgate does not run commands on it."), |c| {
            c.facts.state = crate::policy::PrState::Closed;
        }),
        with(case("PR into another base", "pr.base_branch", "This pull request targets `attacker`; tfgate runs commands only on pull requests into the default branch `main`."), |c| {
            c.facts.base_ref = "attacker".into();
        }),
        with(case("commit author approves", "apply.requires_approval", "@bob authored or committed commits of this pull request"), |c| {
            c.facts.commit_authors = vec!["alice".into(), "Bob".into()];
        }),
        with(case("pusher approves", "apply.requires_approval", "@bob pushed to this pull request"), |c| {
            c.facts.pushers = vec!["alice".into(), "Bob".into()];
        }),
        with(case("fork PR apply", "pr.fork", "comes from a fork"), |c| c.facts.is_fork = true),
        with(case("fork PR plan", "pr.fork", "comes from a fork"), |c| {
            c.facts.is_fork = true;
            c.command = Plan;
        }),
        with(case("no target", "target.unspecified", "Name the project or directory to apply"), |c| {
            c.target = Target::default();
        }),
        with(case("excluded dir", "target.excluded", "`sandbox/mine` is excluded"), |c| c.target = Target::dir("sandbox/mine")),
        with(case("excluded dir, plan too", "target.excluded", "excluded"), |c| {
            c.target = Target::dir("sandbox/x/y");
            c.command = Plan;
        }),
        with(case("unknown project", "target.unknown", "`nope` is not a project"), |c| c.target = Target::project("nope")),
        with(case("unknown workspace", "target.unknown", "infra/eks (workspace prod)"), |c| {
            c.target = Target { dir: Some("infra/eks".into()), workspace: Some("prod".into()), project: None };
        }),
        with(case("target by dir", "apply.allowed", ""), |c| c.target = Target::dir("./infra/eks/")),
        with(case("bootstrap root apply", "apply.comment_apply_disabled", "this root is applied by an admin, not by comment"), |c| {
            c.target = Target::project("argocd-bootstrap");
            c.actor = actor("root", Admin);
        }),
        with(case("bootstrap root plan", "plan.allowed", ""), |c| {
            c.target = Target::project("argocd-bootstrap");
            c.command = Plan;
        }),
        with(case("read-only commenter plans", "permission.below_minimum", "needs triage permission"), |c| {
            c.command = Plan;
            c.actor = actor("eve", Read);
        }),
        with(case("read-only commenter applies", "permission.below_minimum", "@eve cannot apply `eks`: it needs write permission on this repository (@eve has read)"), |c| {
            c.actor = actor("eve", Read);
        }),
        with(case("triage cannot apply", "permission.below_minimum", "needs write"), |c| c.actor = actor("dave", Triage)),
        with(case("prod: maintain but not listed", "permission.not_listed", "only users @carol and teams acme/sre may"), |c| {
            c.target = Target::project("prod");
            c.actor = actor("mia", Maintain);
        }),
        with(case("prod: listed user", "apply.allowed", ""), |c| {
            c.target = Target::project("prod");
            c.actor = actor("Carol", Maintain);
        }),
        with(case("prod: team member", "apply.allowed", ""), |c| {
            c.target = Target::project("prod");
            c.actor = Actor { teams: vec!["sre".into()], ..actor("mia", Maintain) };
        }),
        with(case("prod: team member below floor", "permission.below_minimum", "needs maintain"), |c| {
            c.target = Target::project("prod");
            c.actor = Actor { teams: vec!["sre".into()], ..actor("mia", Write) };
        }),
        with(case("prod: plan uses file rule", "plan.allowed", ""), |c| {
            c.target = Target::project("prod");
            c.command = Plan;
            c.actor = actor("mia", Triage);
        }),
        with(case("root the PR does not touch", "apply.target_not_in_pr", "`network` is not changed by this pull request"), |c| {
            c.target = Target::project("network");
        }),
        with(case("plan of untouched root allowed", "plan.allowed", ""), |c| {
            c.target = Target::project("network");
            c.command = Plan;
        }),
        with(case("module change affects caller", "apply.allowed", ""), |c| {
            c.target = Target::project("network");
            c.facts.changed_files = vec!["modules/vpc/main.tf".into()];
            c.facts.module_calls.add_calls("infra/network", &["../../modules/vpc".to_string()]);
        }),
        with(case("self-approval only", "apply.requires_approval", "@alice is the author"), |c| {
            c.facts.reviews = vec![review("alice", Approved, HEAD, Admin)];
        }),
        with(case("approval by read-only user", "apply.requires_approval", "@eve has read access only"), |c| {
            c.facts.reviews = vec![review("eve", Approved, HEAD, Read)];
        }),
        with(case("approval by triage user", "apply.requires_approval", "@tom has triage access only"), |c| {
            c.facts.reviews = vec![review("tom", Approved, HEAD, Triage)];
        }),
        with(case("approval by bot", "apply.requires_approval", "@helper is a bot"), |c| {
            c.facts.reviews = vec![Review { user_is_bot: true, ..review("helper", Approved, HEAD, Admin) }];
        }),
        with(case("approval before a new push", "apply.requires_approval", "@bob approved an older commit (0ld0000)"), |c| {
            c.facts.reviews = vec![review("bob", Approved, OLD, Write)];
        }),
        with(case("approval dismissed", "apply.requires_approval", "@bob approval was dismissed"), |c| {
            c.facts.reviews = vec![review("bob", Approved, HEAD, Write), review("bob", Dismissed, HEAD, Write)];
        }),
        with(case("approval then changes requested", "apply.requires_approval", "@bob later requested changes"), |c| {
            c.facts.reviews = vec![review("bob", Approved, HEAD, Write), review("bob", ChangesRequested, HEAD, Write)];
        }),
        with(case("comment after approval keeps it", "apply.allowed", ""), |c| {
            c.facts.reviews = vec![review("bob", Approved, HEAD, Write), review("bob", Commented, HEAD, Write)];
        }),
        with(case("re-approval on head counts", "apply.allowed", ""), |c| {
            c.facts.reviews = vec![review("bob", Approved, OLD, Write), review("bob", ChangesRequested, OLD, Write), review("bob", Approved, HEAD, Write)];
        }),
        with(case("changes requested only", "apply.requires_approval", "did not push to it; has 0"), |c| {
            c.facts.reviews = vec![review("bob", ChangesRequested, HEAD, Write)];
        }),
        with(case("no reviews", "apply.requires_approval", "needs 1 approving review on the current head (c0ffee0)"), |c| {
            c.facts.reviews = vec![];
        }),
        with(case("not mergeable", "apply.requires_mergeable", "cannot be merged into `main`"), |c| c.facts.mergeable = Some(false)),
        with(case("mergeable unknown", "apply.requires_mergeable", "not computed mergeability"), |c| c.facts.mergeable = None),
        with(case("behind base", "apply.requires_up_to_date", "behind `main`"), |c| c.facts.up_to_date = Some(false)),
        with(case("check failed", "apply.requires_checks_passed", "`validate` concluded failure"), |c| {
            c.facts.check_runs[0].conclusion = Some("failure".into());
        }),
        with(case("check running", "apply.requires_checks_passed", "`validate` is still running"), |c| {
            c.facts.check_runs[0].conclusion = None;
        }),
        with(case("check on old head ignored", "apply.requires_checks_passed", "`validate` has not run on the head"), |c| {
            c.facts.check_runs[0].head_sha = Some(OLD.into());
        }),
        with(case("check skipped passes", "apply.allowed", ""), |c| c.facts.check_runs[0].conclusion = Some("skipped".into())),
        with(case("every unmet requirement named", "apply.requires_approval", "Cannot apply `eks` yet:\n- approved: needs 1 approving review on the current head (c0ffee0) by someone with write access who is not the author and did not push to it; has 0 (not counted: @alice is the author)\n- mergeable: the pull request cannot be merged into `main` (conflicts)\n- up_to_date: the branch is behind `main`; update it first\n- checks_passed: `validate` has not run on the head"), |c| {
            c.facts.reviews = vec![review("alice", Approved, HEAD, Write)];
            c.facts.mergeable = Some(false);
            c.facts.up_to_date = Some(false);
            c.facts.check_runs.clear();
        }),
        with(case("unlock by triage, no target", "unlock.allowed", ""), |c| {
            c.command = Unlock;
            c.target = Target::default();
            c.actor = actor("dave", Triage);
        }),
        with(case("unlock by read", "permission.below_minimum", "@eve cannot unlock: it needs triage"), |c| {
            c.command = Unlock;
            c.target = Target::default();
            c.actor = actor("eve", Read);
        }),
        with(case("cancel by triage", "cancel.allowed", ""), |c| {
            c.command = Cancel;
            c.actor = actor("dave", Triage);
        }),
        with(case("inputs needs apply side", "permission.below_minimum", "needs write"), |c| {
            c.command = Inputs;
            c.target = Target::default();
            c.actor = actor("dave", Triage);
        }),
        with(case("inputs by writer", "inputs.allowed", ""), |c| {
            c.command = Inputs;
            c.target = Target::project("eks");
        }),
    ]
}

#[test]
fn decision_table() {
    let policy = policy();
    for c in cases() {
        let d = decide(&c.actor, c.command, &c.target, &c.facts, &policy);
        assert_eq!(d.rule, c.rule, "case `{}`: {:?}", c.name, d.outcome);
        match &d.outcome {
            Outcome::Allow => assert!(
                c.reason.is_empty(),
                "case `{}` allowed but expected a denial",
                c.name
            ),
            Outcome::Deny { denial, .. } => {
                assert!(!c.reason.is_empty(), "case `{}` denied: {denial:?}", c.name)
            }
        }
        assert!(
            RULES.iter().any(|(id, _)| *id == d.rule),
            "rule {} not listed in RULES",
            d.rule
        );
    }
}

#[test]
fn every_rule_is_exercised_by_the_table() {
    let policy = policy();
    let hit: Vec<&str> = cases()
        .iter()
        .map(|c| decide(&c.actor, c.command, &c.target, &c.facts, &policy).rule)
        .collect();
    for (id, _) in RULES {
        assert!(hit.contains(id), "no table case for rule {id}");
    }
}

#[test]
fn unmet_requirements_are_all_listed() {
    let mut f = facts();
    f.reviews.clear();
    f.mergeable = None;
    let d = decide(
        &actor("alice", Write),
        PolicyCommand::Apply,
        &Target::project("eks"),
        &f,
        &policy(),
    );
    match d.outcome {
        Outcome::Deny { unmet, .. } => assert_eq!(
            unmet,
            vec![ApplyRequirement::Approved, ApplyRequirement::Mergeable]
        ),
        other => panic!("expected a denial, got {other:?}"),
    }
    assert_eq!(d.project, Some(ProjectId::new("eks")));
}

#[test]
fn two_approvals_needed_when_configured() {
    let mut p = policy();
    p.min_approvals = 2;
    let mut f = facts();
    let d = decide(
        &actor("alice", Write),
        PolicyCommand::Apply,
        &Target::project("eks"),
        &f,
        &p,
    );
    assert_eq!(d.rule, "apply.requires_approval");
    match d.denial() {
        Some(PolicyDenial::RequirementsUnmet { unmet, .. }) => assert!(matches!(
            unmet.as_slice(),
            [UnmetRequirement::Approved {
                problem: crate::model::ApprovalProblem::TooFew {
                    need: 2,
                    counted: 1,
                    ..
                }
            }]
        )),
        other => panic!("expected unmet requirements, got {other:?}"),
    }
    f.reviews
        .push(review("Carol", ReviewState::Approved, HEAD, Maintain));
    assert!(decide(
        &actor("alice", Write),
        PolicyCommand::Apply,
        &Target::project("eks"),
        &f,
        &p
    )
    .is_allowed());
}

#[test]
fn fork_allowed_when_policy_says_so() {
    let mut p = policy();
    p.allow_fork_prs = true;
    let mut f = facts();
    f.is_fork = true;
    assert!(decide(
        &actor("alice", Write),
        PolicyCommand::Plan,
        &Target::project("eks"),
        &f,
        &p
    )
    .is_allowed());
}

#[test]
fn no_requirements_means_apply_allowed_without_review() {
    let mut p = policy();
    p.apply_requirements.clear();
    let mut f = facts();
    f.reviews.clear();
    f.mergeable = Some(false);
    assert!(decide(
        &actor("alice", Write),
        PolicyCommand::Apply,
        &Target::project("eks"),
        &f,
        &p
    )
    .is_allowed());
}

#[test]
fn pr_facts_parse_from_json() {
    let json = r#"{
        "number": 7, "author": "alice", "head_sha": "c0ffee", "base_ref": "main",
        "mergeable": true,
        "reviews": [{"user": "bob", "state": "CHANGES_REQUESTED", "commit_id": "c0ffee", "user_permission": "write"}],
        "check_runs": [{"name": "validate", "conclusion": "success"}],
        "changed_files": ["infra/eks/main.tf"],
        "module_calls": {"infra/eks": ["modules/cluster"]}
    }"#;
    let f: PrFacts = serde_json::from_str(json).unwrap();
    assert_eq!(f.reviews[0].state, ReviewState::ChangesRequested);
    assert_eq!(f.up_to_date, None);
    assert!(serde_json::from_str::<PrFacts>(
        r#"{"number":1,"author":"a","head_sha":"x","base_ref":"m","typo":1}"#
    )
    .is_err());
}

#[test]
fn decision_serializes_for_the_audit_log() {
    let d = decide(
        &actor("eve", Read),
        PolicyCommand::Apply,
        &Target::project("eks"),
        &facts(),
        &policy(),
    );
    let json = serde_json::to_value(&d).unwrap();
    assert_eq!(json["rule"], "permission.below_minimum");
    assert_eq!(json["outcome"]["result"], "deny");
    assert_eq!(json["project"], "eks");
}
