use super::*;
use crate::model::{Enforcement, PolicyMessage, PolicyOwners};

fn outcome(set: &str, enforcement: Enforcement, failed: bool, error: bool) -> SetOutcome {
    SetOutcome {
        set: set.into(),
        enforcement,
        failures: failed
            .then(|| PolicyMessage {
                rule: "deny".into(),
                message: "no".into(),
                address: None,
            })
            .into_iter()
            .collect(),
        warnings: vec![],
        error: error.then(|| "timed out".to_string()),
    }
}

fn approval(set: &str, who: &str) -> PolicyApproval {
    PolicyApproval {
        set: set.into(),
        approver: who.into(),
    }
}

#[test]
fn the_gate_blocks_each_unapproved_failed_deny_set() {
    use Enforcement::*;
    let outcomes = vec![
        outcome("ssh", Deny, true, false),
        outcome("tags", Warn, true, false),
        outcome("s3", Deny, false, true),
        outcome("ok", Deny, false, false),
    ];
    let table: Vec<(&str, Vec<PolicyApproval>, PolicyGate)> = vec![
        (
            "nothing approved: both deny failures block (an error fails closed); warn never",
            vec![],
            PolicyGate::Blocked {
                sets: vec!["ssh".into(), "s3".into()],
            },
        ),
        (
            "one approved: the other still blocks",
            vec![approval("ssh", "bob")],
            PolicyGate::Blocked {
                sets: vec!["s3".into()],
            },
        ),
        (
            "both approved",
            vec![approval("s3", "carol"), approval("ssh", "bob")],
            PolicyGate::Pass {
                approved: vec![approval("ssh", "bob"), approval("s3", "carol")],
            },
        ),
        (
            "an approval of a passing or warn set changes nothing",
            vec![approval("tags", "bob"), approval("ok", "bob")],
            PolicyGate::Blocked {
                sets: vec!["ssh".into(), "s3".into()],
            },
        ),
    ];
    for (case, approvals, want) in table {
        assert_eq!(policy_gate(&outcomes, &approvals), want, "{case}");
    }
    assert_eq!(
        policy_gate(&[outcome("tags", Warn, true, true)], &[]),
        PolicyGate::Pass { approved: vec![] },
        "warn never blocks, even failed closed"
    );
    assert_eq!(policy_gate(&[], &[]), PolicyGate::Pass { approved: vec![] });
}

fn set(name: &str, users: &[&str], teams: &[&str]) -> PlanPolicySet {
    PlanPolicySet {
        name: name.into(),
        path: "plan".into(),
        projects: vec![],
        enforcement: Enforcement::Deny,
        owners: PolicyOwners {
            users: users.iter().map(|u| u.to_string()).collect(),
            teams: teams.iter().map(|t| t.to_string()).collect(),
        },
        namespaces: vec![],
    }
}

#[test]
fn only_an_owner_other_than_the_author_approves() {
    let sets = vec![set("ssh", &["Alice"], &["acme/security"])];
    let sec = vec!["acme/security".to_string()];
    let none: Vec<String> = vec![];
    let who = |login, teams, author| Approver {
        login,
        teams,
        pr_author: author,
    };
    let table = [
        ("owner user", "ssh", who("alice", &none, "dev"), Ok(())),
        ("owner team", "ssh", who("bob", &sec, "dev"), Ok(())),
        (
            "owner but the PR's author",
            "ssh",
            who("alice", &none, "ALICE"),
            Err(ApprovalRefusal::OwnPullRequest),
        ),
        (
            "team member and author",
            "ssh",
            who("bob", &sec, "bob"),
            Err(ApprovalRefusal::OwnPullRequest),
        ),
        (
            "not an owner",
            "ssh",
            who("mallory", &none, "dev"),
            Err(ApprovalRefusal::NotOwner),
        ),
        (
            "a set the policy no longer has",
            "gone",
            who("alice", &none, "dev"),
            Err(ApprovalRefusal::SetGone),
        ),
    ];
    for (case, name, approver, want) in table {
        assert_eq!(may_approve(&sets, name, approver), want, "{case}");
    }
    let nobody = vec![set("ssh", &[], &[])];
    assert_eq!(
        may_approve(&nobody, "ssh", who("alice", &none, "dev")),
        Err(ApprovalRefusal::NotOwner),
        "a set naming no owner cannot be approved"
    );
}

#[test]
fn approve_addresses_the_blocking_unapproved_sets_named() {
    use Enforcement::*;
    let outcomes = vec![
        outcome("ssh", Deny, true, false),
        outcome("s3", Deny, true, false),
        outcome("tags", Warn, true, false),
    ];
    assert_eq!(sets_to_approve(&outcomes, &[], None), ["ssh", "s3"]);
    assert_eq!(sets_to_approve(&outcomes, &[], Some("s3")), ["s3"]);
    assert!(sets_to_approve(&outcomes, &[], Some("tags")).is_empty());
    assert_eq!(
        sets_to_approve(&outcomes, &[approval("ssh", "a")], None),
        ["s3"]
    );
}

fn latest(run_id: i64, project: &str, head: &str, outcomes: Vec<SetOutcome>) -> LatestPlan {
    LatestPlan {
        run_id,
        project: project.into(),
        workspace: "default".into(),
        head_sha: head.into(),
        planned: true,
        outcomes,
        approvals: vec![],
    }
}

#[test]
fn latest_plans_keep_the_newest_run_per_root() {
    let got = latest_plans(vec![
        latest(1, "net", "h0", vec![]),
        latest(2, "eks", "h1", vec![]),
        latest(3, "net", "h1", vec![]),
    ]);
    let ids: Vec<i64> = got.iter().map(|p| p.run_id).collect();
    assert_eq!(ids, [3, 2]);
}

#[test]
fn an_approval_covers_blocking_sets_of_current_plans_only() {
    use Enforcement::*;
    let sets = vec![set("ssh", &["sam"], &[]), set("s3", &["ann"], &[])];
    let failing = || {
        vec![
            outcome("ssh", Deny, true, false),
            outcome("s3", Deny, true, false),
        ]
    };
    let mut failed_plan = latest(4, "dns", "h1", failing());
    failed_plan.planned = false;
    let plans = vec![
        latest(1, "net", "h1", failing()),
        latest(2, "old", "h0", failing()),
        failed_plan,
    ];
    let sam = Approver {
        login: "sam",
        teams: &[],
        pr_author: "dev",
    };
    let got = approval_decisions(&plans, "h1", None, None, &sets, sam);
    let seen: Vec<(&str, &str, bool)> = got
        .iter()
        .map(|d| (d.project.as_str(), d.set.as_str(), d.verdict.is_ok()))
        .collect();
    assert_eq!(seen, [("net", "ssh", true), ("net", "s3", false)]);
    assert!(approval_decisions(&plans, "h1", Some("old"), None, &sets, sam).is_empty());
    let only_s3 = approval_decisions(&plans, "h1", None, Some("s3"), &sets, sam);
    assert_eq!(only_s3.len(), 1);
    assert_eq!(only_s3[0].verdict, Err(ApprovalRefusal::NotOwner));
    let report = approval_report(&got, &sets, "sam", "abc1234", None);
    assert_eq!(report.approved.len(), 1);
    assert_eq!(report.refused[0].refusal.as_deref(), Some("not_owner"));
    assert_eq!(report.refused[0].owners, ["@ann"]);
}

#[test]
fn the_plan_policy_check_fails_while_a_current_plan_is_blocked() {
    use Enforcement::*;
    let sets = vec![set("ssh", &["sam"], &[])];
    let mut plans = vec![
        latest(1, "net", "h1", vec![outcome("ssh", Deny, true, false)]),
        latest(2, "eks", "h1", vec![outcome("ssh", Deny, false, false)]),
        latest(3, "dns", "h1", vec![]),
    ];
    let (conclusion, text) = plan_policy_check(&plans, "h1", "h1", &sets).unwrap();
    assert_eq!(
        (conclusion, text.blocked, text.roots.len()),
        ("failure", 1, 2)
    );
    plans[0].approvals = vec![approval("ssh", "sam")];
    let (conclusion, text) = plan_policy_check(&plans, "h1", "h1", &sets).unwrap();
    assert_eq!((conclusion, text.blocked), ("success", 0));
    assert_eq!(text.roots[0].checks[0].approved_by, ["@sam"]);
    assert!(
        plan_policy_check(&plans, "h2", "h2", &sets).is_none(),
        "no plan of that head"
    );
}
