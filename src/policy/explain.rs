//! `tfgate policy explain`: a decision and everything behind it, as text for an admin.

use super::approval::evaluate_approvals;
use super::decide::{decide, Outcome, RULES};
use super::facts::{Actor, PolicyCommand, PrFacts, Target};
use super::model::{ProjectOrigin, RepoPolicy, ResolvedProject};
use std::fmt::Write;

/// The decision for these inputs, the rule that made it, and the facts it rested on.
pub fn explain(
    actor: &Actor,
    command: PolicyCommand,
    target: &Target,
    facts: &PrFacts,
    policy: &RepoPolicy,
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
    if let Outcome::Deny { reason, .. } = &decision.outcome {
        let _ = writeln!(out, "reply:");
        for line in reason.lines() {
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
    for (user, why) in &report.not_counted {
        let _ = writeln!(out, "approval not counted: @{user} {why}");
    }
}
