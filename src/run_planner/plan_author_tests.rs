use super::*;
use crate::model::PolicyDenial;
use crate::policy::{
    decide, load_policy, Actor, GitHubPermission, PolicyCommand, PrFacts, Review, ReviewState,
    Target,
};

/// Anyone with write may plan; applying `db` needs maintain, or being listed for `pay`.
const POLICY: &str = r#"
repos: ["o/r"]
defaults:
  plan_role: arn:aws:iam::111111111111:role/plan
  apply_role: arn:aws:iam::111111111111:role/apply
permissions:
  apply:
    min_permission: maintain
apply_requirements: [approved]
projects:
  - name: db
    dir: infra/db
  - name: pay
    dir: infra/pay
    permissions:
      apply:
        min_permission: write
        users: [maya]
"#;

const HEAD: &str = "h1";

/// A PR changing both roots; `approved`: reviewed by rita at the head.
fn facts(approved: bool) -> PrFacts {
    PrFacts {
        number: 7,
        author: "alice".into(),
        head_sha: HEAD.into(),
        base_ref: "main".into(),
        default_branch: "main".into(),
        mergeable: Some(true),
        up_to_date: Some(true),
        reviews: approved
            .then(|| Review {
                user: "rita".into(),
                state: ReviewState::Approved,
                commit_id: HEAD.into(),
                user_permission: GitHubPermission::Write,
                user_is_bot: false,
            })
            .into_iter()
            .collect(),
        changed_files: vec!["infra/db/main.tf".into(), "infra/pay/main.tf".into()],
        ..Default::default()
    }
}

fn actor(login: &str, permission: GitHubPermission, is_bot: bool) -> Actor {
    Actor {
        login: login.into(),
        permission,
        teams: vec![],
        is_bot,
    }
}

fn plan(login: &str, flags: Option<&[&str]>) -> PlanAuthor {
    PlanAuthor {
        run_id: 12,
        login: login.into(),
        flags: flags.map(|f| f.iter().map(|s| s.to_string()).collect()),
    }
}

#[test]
fn flags_that_change_the_apply_follow_the_allowlist() {
    let table: &[(Option<&[&str]>, bool)] = &[
        (Some(&[]), false),
        (Some(&["-lock-timeout=5m"]), false),
        (Some(&["-target=aws_s3_bucket.b"]), true),
        (Some(&["-replace=aws_db_instance.main"]), true),
        (Some(&["-refresh=false"]), true),
        (Some(&["-lock-timeout=5m", "-refresh=false"]), true),
        // Never accepted from a comment, so never recorded; unreadable counts as changing.
        (Some(&["-destroy"]), true),
        (Some(&["-var=x=1"]), true),
        (Some(&["garbage"]), true),
        (None, true),
    ];
    for (flags, want) in table {
        let flags: Option<Vec<String>> = flags.map(|f| f.iter().map(|s| s.to_string()).collect());
        assert_eq!(flags_change_the_apply(flags.as_deref()), *want, "{flags:?}");
    }
}

/// The check, with the author's standing from the real `decide` on the PR's facts.
#[test]
fn the_author_must_be_allowed_to_apply_what_their_flags_change() {
    let policy = load_policy("p.yaml", POLICY).unwrap();
    let refused =
        |denial: PolicyDenial| PlanAuthorCheck::Refuse(PlanRefusal::AuthorMayNotApply { denial });
    let below = |login: &str, project: &str| PolicyDenial::BelowMinimum {
        login: login.into(),
        verb: "apply".into(),
        project: Some(project.into()),
        needed: "maintain".into(),
        has: "write".into(),
    };
    use GitHubPermission::{Admin, Maintain, Write};
    let replace: Option<&[&str]> = Some(&["-replace=aws_db_instance.main"]);
    // (case, plan, author, project, PR approved, expected)
    let cases: Vec<(&str, PlanAuthor, Actor, &str, bool, PlanAuthorCheck)> = vec![
        (
            "plan-only author with -replace",
            plan("bob", replace),
            actor("bob", Write, false),
            "db",
            true,
            refused(below("bob", "db")),
        ),
        (
            "author who may apply",
            plan("maya", replace),
            actor("maya", Maintain, false),
            "db",
            true,
            PlanAuthorCheck::Proceed,
        ),
        (
            "author who may apply; the PR's missing approval is the apply's business",
            plan("maya", replace),
            actor("maya", Admin, false),
            "db",
            false,
            PlanAuthorCheck::Proceed,
        ),
        (
            "plan-only author, PR unapproved: still the author's permission",
            plan("bob", replace),
            actor("bob", Write, false),
            "db",
            false,
            refused(below("bob", "db")),
        ),
        (
            "author not listed for the root",
            plan("bob", Some(&["-target=aws_s3_bucket.b"])),
            actor("bob", Admin, false),
            "pay",
            true,
            refused(PolicyDenial::NotListed {
                login: "bob".into(),
                verb: "apply".into(),
                project: Some("pay".into()),
                users: vec!["maya".into()],
                teams: vec![],
            }),
        ),
        (
            "author listed for the root",
            plan("maya", Some(&["-refresh=false"])),
            actor("maya", Write, false),
            "pay",
            true,
            PlanAuthorCheck::Proceed,
        ),
        (
            "a bot's plan with flags",
            plan("ci[bot]", replace),
            actor("ci[bot]", Admin, true),
            "db",
            true,
            refused(PolicyDenial::Bot),
        ),
        (
            "plan-only author without flags",
            plan("bob", Some(&[])),
            actor("bob", Write, false),
            "db",
            true,
            PlanAuthorCheck::Proceed,
        ),
        (
            "plan-only author waiting for the lock only",
            plan("bob", Some(&["-lock-timeout=30s"])),
            actor("bob", Write, false),
            "db",
            true,
            PlanAuthorCheck::Proceed,
        ),
        (
            "plan-only author, flags not recorded",
            plan("bob", None),
            actor("bob", Write, false),
            "db",
            true,
            refused(below("bob", "db")),
        ),
    ];
    for (name, plan, author, project, approved, want) in cases {
        let decision = decide(
            &author,
            PolicyCommand::Apply,
            &Target::project(project),
            &facts(approved),
            &policy,
        );
        let got = plan_author_check(&plan, "carl", AuthorStanding::Decided(&decision));
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn the_applier_s_own_plan_needs_no_second_decision() {
    let p = plan("Maya", Some(&["-replace=aws_db_instance.main"]));
    assert!(!needs_author_decision(&p, "maya"));
    assert_eq!(
        plan_author_check(&p, "maya", AuthorStanding::Unchecked),
        PlanAuthorCheck::Proceed
    );
}

#[test]
fn an_unchecked_flagged_plan_of_someone_else_is_refused() {
    let p = plan("bob", Some(&["-target=aws_s3_bucket.b"]));
    assert!(needs_author_decision(&p, "maya"));
    assert_eq!(
        plan_author_check(&p, "maya", AuthorStanding::Unchecked),
        PlanAuthorCheck::Refuse(PlanRefusal::Unchecked)
    );
    let plain = plan("bob", Some(&[]));
    assert_eq!(
        plan_author_check(&plain, "maya", AuthorStanding::Unchecked),
        PlanAuthorCheck::Proceed
    );
}

#[test]
fn a_decision_about_the_pr_alone_fails_closed() {
    let policy = load_policy("p.yaml", POLICY).unwrap();
    let mut closed = facts(true);
    closed.state = crate::policy::PrState::Closed;
    let d = decide(
        &actor("maya", GitHubPermission::Admin, false),
        PolicyCommand::Apply,
        &Target::project("db"),
        &closed,
        &policy,
    );
    assert_eq!(d.rule, "pr.closed");
    let got = plan_author_check(
        &plan("maya", Some(&["-refresh=false"])),
        "carl",
        AuthorStanding::Decided(&d),
    );
    assert!(matches!(got, PlanAuthorCheck::Refuse(_)), "{got:?}");
}

#[test]
fn shown_flags_have_their_addresses_redacted() {
    let p = plan(
        "maya",
        Some(&[
            "-target=module.net.aws_subnet.a[\"10.0.0.0/24\"]",
            "-replace=aws_db_instance.main",
            "-refresh=false",
            "-lock-timeout=5m",
            "-what",
        ]),
    );
    let shown = applied_plan(&p, |a| {
        if a.contains("10.0.0.0") {
            "module.net.aws_subnet.a[\"<ip-1>\"]".to_string()
        } else {
            a.to_string()
        }
    });
    assert_eq!(shown.run_id, 12);
    assert_eq!(shown.author, "maya");
    assert_eq!(
        shown.flags.unwrap(),
        vec![
            "-target=module.net.aws_subnet.a[\"<ip-1>\"]",
            "-replace=aws_db_instance.main",
            "-refresh=false",
            "-lock-timeout=5m",
            "(an unreadable flag)",
        ]
    );
    assert_eq!(applied_plan(&plan("bob", None), |a| a.into()).flags, None);
}

#[test]
fn only_a_planned_or_running_plan_may_be_applied() {
    use crate::run_planner::record::RunStatus::*;
    let table = [
        (Some(Planned), true),
        (Some(Running), true),
        (Some(PlanFailed), false),
        (Some(Interrupted), false),
        (Some(Applied), false),
        (Some(ApplyFailed), false),
        (None, false),
    ];
    for (status, may) in table {
        assert_eq!(plan_may_apply(status), may, "{status:?}");
    }
}
