//! `tfgate policy explain`: a decision and everything behind it, as text for an admin. The
//! reply a denial posts is worded by the caller (the shell renders `_policy_denial.md.j2`).

use super::approval::evaluate_approvals;
use super::decide::{decide, Outcome, RULES};
use super::facts::{Actor, PolicyCommand, PrFacts, Target};
use super::model::{ProjectOrigin, RepoPolicy, ResolvedProject};
use crate::model::{NotCountedWhy, PolicyDenial};
use std::fmt::Write;

/// The decision for these inputs, the rule that made it, and the facts it rested on; a
/// denial's reply as `reply` words it (what the PR would read).
pub fn explain(
    actor: &Actor,
    command: PolicyCommand,
    target: &Target,
    facts: &PrFacts,
    policy: &RepoPolicy,
    reply: impl Fn(&PolicyDenial) -> String,
) -> String {
    let decision = decide(actor, command, target, facts, policy);
    let mut out = String::new();
    let result = if decision.is_allowed() {
        "allow"
    } else {
        "deny"
    };
    let meaning = RULES
        .iter()
        .find(|(id, _)| *id == decision.rule)
        .map(|(_, m)| *m)
        .unwrap_or("");
    let _ = writeln!(out, "decision: {result}");
    let _ = writeln!(out, "rule: {} ({meaning})", decision.rule);
    let _ = writeln!(
        out,
        "policy: {} (repos: {})",
        policy.file,
        policy.repos.join(", ")
    );
    let _ = writeln!(out, "command: {}", command.name());
    let teams = if actor.teams.is_empty() {
        "none".to_string()
    } else {
        actor.teams.join(", ")
    };
    let _ = writeln!(
        out,
        "actor: @{} (permission {}, teams {teams}{})",
        actor.login,
        actor.permission,
        if actor.is_bot { ", bot" } else { "" }
    );
    let project = decision
        .project
        .as_ref()
        .and_then(|id| policy.project(id.as_str()));
    write_project(&mut out, project, command);
    if command == PolicyCommand::Apply {
        write_apply_requirements(&mut out, policy, facts);
    }
    if let Outcome::Deny { denial, .. } = &decision.outcome {
        let _ = writeln!(out, "reply:");
        for line in reply(denial).lines() {
            let _ = writeln!(out, "  {line}");
        }
    }
    out
}

/// The resolved project, where it was declared, and who may run `command` on it.
fn write_project(out: &mut String, project: Option<&ResolvedProject>, command: PolicyCommand) {
    let Some(p) = project else {
        let _ = writeln!(out, "project: none resolved");
        return;
    };
    let side = p.permission_for(command.needs_apply_permission());
    let _ = writeln!(
        out,
        "project: {} (dir {}, workspace {}, declared in {}, comment_apply {})",
        p.id(),
        p.spec.dir,
        p.spec.workspace,
        match p.origin {
            ProjectOrigin::Policy => "the policy",
            ProjectOrigin::RepoLayout => "the repo layout",
        },
        p.comment_apply
    );
    let _ = writeln!(
        out,
        "required: min_permission {}, users [{}], teams [{}]",
        side.min_permission,
        side.users.join(", "),
        side.teams.join(", ")
    );
}

/// The policy's apply requirements and which approvals count towards them.
fn write_apply_requirements(out: &mut String, policy: &RepoPolicy, facts: &PrFacts) {
    let reqs: Vec<&str> = policy.apply_requirements.iter().map(|r| r.name()).collect();
    let _ = writeln!(out, "apply_requirements: [{}]", reqs.join(", "));
    let report = evaluate_approvals(facts);
    let _ = writeln!(out, "approvals counted: [{}]", report.counted.join(", "));
    for n in &report.not_counted {
        let _ = writeln!(
            out,
            "approval not counted: @{} {}",
            n.login,
            why_words(&n.why)
        );
    }
}

/// Why an approval does not count, for the admin's terminal (short: `policy explain` shows
/// the PR's full reply below).
fn why_words(why: &NotCountedWhy) -> String {
    match why {
        NotCountedWhy::LaterRequestedChanges => "later requested changes".into(),
        NotCountedWhy::Dismissed => "approval was dismissed".into(),
        NotCountedWhy::Bot => "is a bot".into(),
        NotCountedWhy::Author => "is the author".into(),
        NotCountedWhy::Pushed => "pushed to this pull request".into(),
        NotCountedWhy::Committed => "authored or committed commits of this pull request".into(),
        NotCountedWhy::Permission { has } => format!("has {has} access only"),
        NotCountedWhy::OlderCommit { commit } => format!("approved an older commit ({commit})"),
    }
}
