use super::*;

const DRIFT_PLAN: &str = include_str!(
    "../../tests/fixtures/tf-json/hashicorp-terraform__equivalence-drift_relevant_attributes__plan.json"
);

fn keep(text: &str) -> String {
    text.to_string()
}

fn checked(
    outside: Vec<ResourceFinding>,
    next: Vec<ResourceFinding>,
    inputs: &[&str],
) -> RootState {
    RootState::Checked {
        outside_terraform: outside,
        next_apply: next,
        inputs_moved: inputs.iter().map(|s| s.to_string()).collect(),
    }
}

fn root(project: &str, state: RootState) -> RootReport {
    RootReport {
        project: project.into(),
        dir: format!("infra/{project}"),
        state,
    }
}

fn report(roots: Vec<RootReport>) -> DriftReport {
    DriftReport {
        commit_short: "9c1b2d4".into(),
        branch: "main".into(),
        checked_at: "2026-12-05T06:00:12Z".into(),
        roots,
    }
}

#[test]
fn a_real_drift_plan_gives_both_lists_with_before_and_after() {
    let (outside, next) = findings_from_plan(DRIFT_PLAN, &mut keep).unwrap();
    assert_eq!(outside.len(), 1);
    assert_eq!(outside[0].address, "tfcoremock_simple_resource.base");
    assert_eq!(outside[0].action, "update");
    let value = |t: &str| DriftValue::Shown { text: t.into() };
    let change = |path: &str, before, after| DriftAttributeChange {
        path: path.into(),
        before: value(before),
        after: value(after),
    };
    assert_eq!(
        outside[0].attributes,
        [
            change("number", "0", "1"),
            change("string", "Hello, world!", "Hello, drift!")
        ]
    );
    let addresses: Vec<&str> = next.iter().map(|f| f.address.as_str()).collect();
    assert_eq!(
        addresses,
        [
            "tfcoremock_simple_resource.base",
            "tfcoremock_simple_resource.dependent"
        ]
    );
    assert!(findings_from_plan("not json", &mut keep).is_none());
}

#[test]
fn findings_carry_the_names_cloudtrail_knows_them_by() {
    let (outside, next) = findings_from_plan(DRIFT_PLAN, &mut keep).unwrap();
    assert_eq!(
        outside[0].lookup_names,
        ["f6f74ca6-e8ef-e51f-522c-433b9ed5038f"]
    );
    assert_eq!(outside[0].who, None);
    // What the next apply changes is never looked up.
    assert!(next.iter().all(|f| f.lookup_names.is_empty()));
}

#[test]
fn values_pass_through_the_redactor_and_are_cut() {
    let mut redact = |s: &str| s.replace("Hello", "[REDACTED]");
    let (outside, _) = findings_from_plan(DRIFT_PLAN, &mut redact).unwrap();
    assert_eq!(
        (
            &outside[0].attributes[1].before,
            &outside[0].attributes[1].after
        ),
        (
            &DriftValue::Shown {
                text: "[REDACTED], world!".into()
            },
            &DriftValue::Shown {
                text: "[REDACTED], drift!".into()
            }
        )
    );
    let long = Value::String("x".repeat(200));
    let DriftValue::Shown { text: cut } = shown(Some(&long), &mut keep) else {
        panic!()
    };
    assert_eq!(cut.chars().filter(|c| *c == 'x').count(), MAX_VALUE_CHARS);
    assert!(cut.contains('…'));
}

#[test]
fn issue_actions() {
    let clean = || root("eks", checked(vec![], vec![], &[]));
    let drifted = || {
        let (outside, next) = findings_from_plan(DRIFT_PLAN, &mut keep).unwrap();
        root("network", checked(outside, next, &[]))
    };
    assert_eq!(
        report(vec![clean(), drifted()]).issue_action(),
        IssueAction::Open
    );
    assert_eq!(report(vec![clean()]).issue_action(), IssueAction::Close);
    let inputs = root("eks", checked(vec![], vec![], &["ADMIN_CIDRS"]));
    assert_eq!(report(vec![inputs]).issue_action(), IssueAction::Open);
    let locked = root("vpc", RootState::LockedBy { pr: 12 });
    assert_eq!(
        report(vec![clean(), locked]).issue_action(),
        IssueAction::UpdateOnly
    );
    assert_eq!(report(vec![]).issue_action(), IssueAction::Close);
}

#[test]
fn moved_inputs_are_those_whose_applied_fingerprint_differs() {
    let map = |pairs: &[(&str, &str)]| {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    let live = map(&[("ADMIN_CIDRS", "aa"), ("VPN", "bb"), ("NEW", "cc")]);
    let applied = map(&[("ADMIN_CIDRS", "ab"), ("VPN", "bb")]);
    assert_eq!(inputs_moved(&live, &applied), ["ADMIN_CIDRS"]);
    assert!(inputs_moved(&live, &live).is_empty());
}
