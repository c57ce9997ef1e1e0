//! The texts moved into templates read exactly as the `format!`s they replace did.

use super::*;

fn renderer() -> Renderer {
    Renderer::new().unwrap()
}

#[test]
fn the_outdated_fold_wraps_the_comment_as_before() {
    let r = renderer();
    let prefix = "<details><summary>🕘 Outdated plan: a newer plan was posted below</summary>";
    let body = "## tfgate plan\n\nbody\n<!-- tfgate:post:x -->";
    assert_eq!(
        r.render_plan_outdated(body).unwrap(),
        format!("{prefix}\n\n{body}\n\n</details>")
    );
    assert_eq!(r.plan_outdated_prefix().unwrap(), prefix);
}

#[test]
fn policy_check_texts_read_as_before() {
    let r = renderer();
    let [none, valid_main, valid_pr, bad_main, bad_pr]: [_; 5] =
        samples::policy_checks().try_into().unwrap();
    let text = |c| {
        let t = r.render_policy_check(&c).unwrap();
        (t.title, t.summary)
    };
    let table = [
        (
            none,
            "no policy file in policies/",
            "tfgate reads the YAML files directly in `policies/` of the default branch; this \
             commit has none, so it would enable nothing.",
        ),
        (
            valid_main,
            "2 policy file(s) valid",
            "`tfgate policy check` finds no problem. They are in force now on every tfgate \
             process.",
        ),
        (
            valid_pr,
            "2 policy file(s) valid",
            "`tfgate policy check` finds no problem. They take effect once merged into the \
             default branch.",
        ),
        (
            bad_main,
            "1 problem(s) in the policies",
            "```\npolicies/prod.yaml:4:3: unknown key `aply_role`\n```\n\nRefused. The policies \
             in force stay the previous valid ones.",
        ),
        (
            bad_pr,
            "2 problem(s) in the policies",
            "```\na\nb\n```\n\nRefused.",
        ),
    ];
    for (check, title, summary) in table {
        assert_eq!(text(check), (title.to_string(), summary.to_string()));
    }
}

/// The `tfgate/deploy` title and summary as `gitops/render.rs` and `worker/deploy_ack.rs`
/// built them with `format!` before the template (kept here as the reference).
fn deploy_check_as_before(check: &crate::model::DeployCheckText) -> (String, String) {
    use crate::model::{DeployChange, DeployCheckBody};
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    let (title, summary) = match &check.body {
        DeployCheckBody::Unparsed { problems } => (
            match problems.first() {
                Some(p) => format!("YAML does not parse: {p}"),
                None => "YAML does not parse".into(),
            },
            problems.iter().map(|p| format!("- `{p}`\n")).collect(),
        ),
        DeployCheckBody::Unchanged => (
            "no deploying object changes".to_string(),
            "This pull request changes no ArgoCD or Flux object that deploys.\n".to_string(),
        ),
        DeployCheckBody::Changes {
            rows,
            acknowledgements,
        } => {
            let mut out = String::from(
                "| change | kind | name | source | destination | automated | prune | declared at |\n\
                 |---|---|---|---|---|---|---|---|\n",
            );
            for r in rows {
                let what = match r.change {
                    DeployChange::Added => "added",
                    DeployChange::ChangedBefore => "changed: before",
                    DeployChange::ChangedAfter => "changed: after",
                    DeployChange::Removed => "**removed**",
                };
                out.push_str(&format!(
                    "| {what} | {} | `{}` | {} | {} | {} | {} | `{}:{}` |\n",
                    r.kind,
                    r.name,
                    r.source,
                    r.destination,
                    yes_no(r.automated),
                    yes_no(r.prune),
                    r.file,
                    r.line
                ));
            }
            if !acknowledgements.is_empty() {
                out.push_str(
                    "\n**Needs acknowledgement** (`/ack-deploy` by a user the policy allows):\n\n",
                );
                for line in acknowledgements {
                    out.push_str(&format!("- {line}\n"));
                }
            }
            let title = if !acknowledgements.is_empty() {
                format!(
                    "{} change(s) need acknowledgement before merge",
                    acknowledgements.len()
                )
            } else {
                "deploying objects change; nothing needs acknowledgement".into()
            };
            (title, out)
        }
    };
    match &check.acknowledged {
        None => (title, summary),
        Some(a) => (
            format!("acknowledged by @{}: {title}", a.user),
            format!(
                "{summary}\nAcknowledged by @{} for commit `{}`; a new push asks again.\n",
                a.user, a.commit_short
            ),
        ),
    }
}

#[test]
fn deploy_check_texts_read_as_before() {
    let r = renderer();
    let checks = samples::deploy_checks();
    assert!(checks.iter().any(|c| c.acknowledged.is_some()));
    for check in checks {
        let text = r.render_deploy_check(&check).unwrap();
        assert_eq!(
            (text.title, text.summary),
            deploy_check_as_before(&check),
            "{check:?}"
        );
    }
}

/// The drift report issue reads as `DriftReport::issue_body` wrote it with `format!` (the
/// snapshot is that function's output, moved here from `drift_detection::report`).
#[test]
fn scheduled_drift_issue_body() {
    use crate::drift_detection::report::{
        findings_from_plan, DriftReport, RootReport, RootState, ISSUE_MARKER,
    };
    const DRIFT_PLAN: &str = include_str!(
        "../../tests/fixtures/tf-json/hashicorp-terraform__equivalence-drift_relevant_attributes__plan.json"
    );
    let (mut outside, next) = findings_from_plan(DRIFT_PLAN, &mut |s| s.to_string()).unwrap();
    outside[0].who = Some(crate::model::WhoChangedText::Found {
        principal: crate::model::PrincipalText::AssumedRole {
            session: "alice@example.com".into(),
        },
        event_name: "UpdateSimpleResource".into(),
        time: "2026-12-04T17:20:05Z".into(),
    });
    let root = |project: &str, state| RootReport {
        project: project.into(),
        dir: format!("infra/{project}"),
        state,
    };
    let checked = |outside, next, inputs: &[&str]| RootState::Checked {
        outside_terraform: outside,
        next_apply: next,
        inputs_moved: inputs.iter().map(|s| s.to_string()).collect(),
    };
    let report = |roots| DriftReport {
        commit_short: "9c1b2d4".into(),
        branch: "main".into(),
        checked_at: "2026-12-05T06:00:12Z".into(),
        roots,
    };
    let r = renderer();
    let body = r
        .render_drift_report(
            &report(vec![
                root("network", checked(outside, next, &["ADMIN_CIDRS"])),
                root("eks", checked(vec![], vec![], &[])),
                root("vpc", RootState::LockedBy { pr: 12 }),
                root("dns", RootState::Busy),
                root(
                    "iam",
                    RootState::Failed {
                        reason: "the plan could not start (checkout failed)".into(),
                    },
                ),
            ])
            .issue_text(),
        )
        .unwrap();
    assert!(body.starts_with(ISSUE_MARKER));
    insta::assert_snapshot!("scheduled_drift_issue_body", body);
    // All in sync: the closing line, as before.
    let closed = r
        .render_drift_report(&report(vec![root("eks", checked(vec![], vec![], &[]))]).issue_text())
        .unwrap();
    assert_eq!(
        closed,
        "<!-- tfgate:drift-report -->\n## tfgate drift report\n\nDefault branch `main` at \
         `9c1b2d4`, checked 2026-12-05T06:00:12Z.\n\n| project | dir | changed outside \
         Terraform | next apply changes | shared inputs moved | status |\n\
         |---|---|--:|--:|--:|---|\n| `eks` | `infra/eks` | 0 | 0 | 0 | ✅ in sync |\n\
         \nNo drift is left; this issue was closed by tfgate.\n"
    );
}

#[test]
fn drift_values_without_a_shown_value_read_as_before() {
    let body = renderer()
        .render_drift_report(&samples::drift_report())
        .unwrap();
    // As `report::finding` wrote them: `format!("{}: {} → {}", code_span(path), before, after)`.
    assert!(
        body.contains(
            "- `aws_security_group.web` (update)\n  - `ingress`: (sensitive) → (known after apply)\n  - who: not found in CloudTrail\n"
        ),
        "{body}"
    );
}

/// Each principal kind and outcome reads as `WhoChanged::line` wrote it with `format!` and
/// `code_span` (the strings are that function's output).
#[test]
fn who_changed_lines_read_as_before() {
    use crate::drift_detection::who_changed::{ChangeEvent, Principal, WhoChanged};
    let mut redact = |s: &str| s.replace("10.0.0.1", "<ip>");
    let found = |principal| {
        WhoChanged::Found(ChangeEvent {
            event_name: "PutX".into(),
            time: "2024-08-01T00:00:00Z".into(),
            principal,
        })
    };
    let user = |name: Option<&str>| name.map(String::from);
    let cases = [
        (found(Principal::AssumedRole { session: "ci-10.0.0.1".into(), named: false }), "changed by an assumed role, session `ci-<ip>`: `PutX` at 2024-08-01T00:00:00Z"),
        (found(Principal::AssumedRole { session: "a`b@10.0.0.1".into(), named: true }), "changed by an assumed role, session ``a`b@10.0.0.1``: `PutX` at 2024-08-01T00:00:00Z"),
        (found(Principal::IamUser { name: user(Some("bob")) }), "changed by IAM user `bob`: `PutX` at 2024-08-01T00:00:00Z"),
        (found(Principal::IamUser { name: None }), "changed by IAM user (name not shown: `show_principals` is off): `PutX` at 2024-08-01T00:00:00Z"),
        (found(Principal::FederatedUser { name: user(Some("carol")) }), "changed by federated user `carol`: `PutX` at 2024-08-01T00:00:00Z"),
        (found(Principal::FederatedUser { name: None }), "changed by federated user (name not shown: `show_principals` is off): `PutX` at 2024-08-01T00:00:00Z"),
        (found(Principal::Root), "changed by the account's root user: `PutX` at 2024-08-01T00:00:00Z"),
        (found(Principal::AwsService { service: "autoscaling.amazonaws.com".into() }), "changed by the AWS service `autoscaling.amazonaws.com`: `PutX` at 2024-08-01T00:00:00Z"),
        (found(Principal::Other { kind: "WebIdentityUser".into() }), "changed by a principal of type `WebIdentityUser`: `PutX` at 2024-08-01T00:00:00Z"),
        (WhoChanged::NotFound, "who: not found in CloudTrail"),
        (WhoChanged::Unavailable, "who: CloudTrail could not be read (see the server log)"),
        (WhoChanged::NotLookedUp, "who: not looked up (CloudTrail is asked about the first 10 resources of a root)"),
    ];
    let r = renderer();
    for (who, want) in cases {
        let mut report = samples::drift_report();
        report.sections[0].outside_terraform[0].who = Some(who.text(&mut redact));
        let body = r.render_drift_report(&report).unwrap();
        let line = format!(
            "  - `ingress`: (sensitive) → (known after apply)\n  - {want}\n\n**The next apply"
        );
        assert!(body.contains(&line), "{want}\n{body}");
    }
}

#[test]
fn apply_check_texts_read_as_before() {
    let r = Renderer::new().unwrap();
    let row = "- `network`: ✅ applied or nothing to apply\n";
    let expected = [
        (
            "1 root(s) not applied yet",
            format!("{row}- `eks`: ⏳ planned, not applied\n"),
        ),
        (
            "every affected root is applied or unchanged",
            row.to_string(),
        ),
        (
            "the affected roots could not all be found",
            format!(
                "{row}\nThe roots this pull request affects could not all be found (a module \
                 graph or `tfgate.inputs.lock` could not be read); comment `/plan` to try again.\n"
            ),
        ),
        (
            "no Terraform root affected",
            "This pull request affects no Terraform root.\n".to_string(),
        ),
    ];
    for (check, (title, summary)) in samples::apply_checks().iter().zip(expected) {
        let text = r.render_apply_check(check).unwrap();
        assert_eq!(
            (text.title.as_str(), text.summary.as_str()),
            (title, summary.as_str())
        );
    }
}
