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
