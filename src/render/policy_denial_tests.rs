//! The wording of every policy denial and shared-input refusal, as a PR reads it: each case
//! of the policy's decision tables, rendered, in one snapshot. The snapshot was taken from the
//! prose the deciders returned before they returned enums, so it proves the templates word
//! them byte for byte as before.

use crate::input_drift::{input_drift_gate, InputDriftGate, OnInputDrift};
use crate::model::PolicyDenial;
use crate::policy::{decide, Decision, RepoPolicy, ResolvedProject};
use crate::policy::{decide_cases as table, decide_pr_cases as pr_tests};
use crate::project::ProjectId;

use super::filters::text_with_code;
use super::{samples_meta, Notice, NoticeBody, Renderer};

/// A denial as the PR reads it; `None` for an allow.
fn shown(d: &Decision) -> Option<String> {
    let renderer = Renderer::new().expect("default templates");
    d.denial()
        .map(|denial| renderer.render_policy_denial(denial).expect("renders"))
}

/// The table's expected text, as markdown: the reply contains it.
fn contains(shown: &str, expected: &str, name: &str) {
    let expected = text_with_code(expected);
    assert!(
        shown.contains(&expected),
        "case `{name}`: {shown:?} lacks {expected:?}"
    );
}

#[test]
fn every_policy_denial_as_the_pr_reads_it() {
    let policy = table::policy();
    let mut out = String::new();
    for c in table::cases() {
        let d = decide(&c.actor, c.command, &c.target, &c.facts, &policy);
        if let Some(text) = shown(&d) {
            contains(&text, c.reason, c.name);
            out.push_str(&format!("{} [{}]\n{text}\n\n", c.name, d.rule));
        }
    }
    for (name, d) in more_denials() {
        if let Some(text) = shown(&d) {
            out.push_str(&format!("{name} [{}]\n{text}\n\n", d.rule));
        }
    }
    for (name, extra, change, _, reason) in pr_tests::pr_cases() {
        let d = pr_tests::decide_pr_case(extra, change);
        if let Some(text) = shown(&d) {
            contains(&text, reason, name);
            out.push_str(&format!("{name} [{}]\n{text}\n\n", d.rule));
        }
    }
    insta::assert_snapshot!(out);
}

/// Denials the tables do not reach: users or teams alone, no project at all, more than ten.
fn more_denials() -> Vec<(&'static str, Decision)> {
    let case = |name: &'static str, edit: fn(&mut RepoPolicy)| {
        let c = table::cases()
            .into_iter()
            .find(|c| c.name == name)
            .expect("table case");
        let mut policy = table::policy();
        edit(&mut policy);
        decide(&c.actor, c.command, &c.target, &c.facts, &policy)
    };
    fn prod(p: &mut RepoPolicy) -> &mut ResolvedProject {
        p.projects
            .iter_mut()
            .find(|p| p.id().as_str() == "prod")
            .expect("prod")
    }
    vec![
        (
            "teams only",
            case("prod: maintain but not listed", |p| {
                prod(p).permissions.apply.users.clear()
            }),
        ),
        (
            "users only",
            case("prod: maintain but not listed", |p| {
                prod(p).permissions.apply.teams.clear()
            }),
        ),
        (
            "no project at all",
            case("unknown project", |p| p.projects.clear()),
        ),
        (
            "more than ten projects",
            case("unknown project", |p| {
                let first = p.projects[0].clone();
                for i in 0..9 {
                    let mut more = first.clone();
                    more.spec.id = ProjectId::new(format!("more-{i}"));
                    p.projects.push(more);
                }
            }),
        ),
    ]
}

#[test]
fn every_input_drift_refusal_as_the_pr_reads_it() {
    let s = |l: &[&str]| l.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let renderer = Renderer::new().expect("default templates");
    let mut out = String::new();
    for mode in [OnInputDrift::Block, OnInputDrift::Confirm] {
        for (drifted, accepted) in [
            (s(&["ADMIN_CIDRS"]), s(&[])),
            (s(&["DB_HOST", "ADMIN_CIDRS"]), s(&["DB_HOST"])),
        ] {
            if let InputDriftGate::Refuse { refusal } = input_drift_gate(mode, &drifted, &accepted)
            {
                let notice = Notice {
                    meta: samples_meta(30),
                    body: NoticeBody::InputDriftRefused {
                        project: "eks".into(),
                        refusal,
                    },
                };
                let text = renderer.render_notice(&notice).expect("renders");
                let reply = text.lines().next().expect("a first line");
                let reply = reply.strip_prefix("`eks`: ").expect("the root first");
                out.push_str(&format!("{mode:?} {drifted:?}\n{reply}\n\n"));
            }
        }
    }
    insta::assert_snapshot!(out);
}

#[test]
fn explain_shows_rule_and_reasons() {
    use crate::policy::GitHubPermission::{Read, Write};
    use crate::policy::{PolicyCommand, ReviewState, Target};
    let mut f = table::facts();
    f.reviews = vec![
        table::review("eve", ReviewState::Approved, table::HEAD, Read),
        table::review("bob", ReviewState::Approved, table::OLD, Write),
    ];
    let renderer = Renderer::new().expect("default templates");
    let text = crate::policy::explain(
        &table::actor("alice", Write),
        PolicyCommand::Apply,
        &Target::dir("infra/eks"),
        &f,
        &table::policy(),
        |d| renderer.render_policy_denial(d).expect("renders"),
    );
    insta::assert_snapshot!(text);
}

#[test]
fn ack_deploy_refusals_keep_their_wording() {
    let renderer = Renderer::new().expect("default templates");
    let text = |d: PolicyDenial| renderer.render_policy_denial(&d).expect("renders");
    assert_eq!(
        text(PolicyDenial::AckDeployNoFolders),
        "`/ack-deploy` accepts what merging would deploy from GitOps folders, and the policy of this repository names no `gitops` folder."
    );
    assert_eq!(
        text(PolicyDenial::AckDeployPermission {
            needed: "maintain".into(),
            has: "write".into(),
        }),
        "`/ack-deploy` needs `maintain` permission on this repository; you have `write`."
    );
}
