//! `tfgate policy test SET PLAN.json`: one plan policy set on one plan JSON, on the admin's own
//! machine; and the plan policy part of `tfgate policy explain` (which sets apply to a project,
//! their enforcement, owners and rules).

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Result;

use crate::model::{Enforcement, PlanPolicySet, PolicyMessage, SetOutcome};
use crate::plan_policy::{evaluate, Budget, CompiledSet};
use crate::policy::{PolicySet, RepoPolicy};
use crate::policy_repo::store::load_dir;

/// What `tfgate policy test` is asked.
pub struct TestArgs<'a> {
    pub dir: &'a Path,
    pub set: &'a str,
    pub plan: &'a Path,
    /// Only the policy file covering this `owner/name`.
    pub repo: Option<&'a str>,
    /// Print the time taken reading and evaluating (stderr).
    pub timing: bool,
}

/// Exit code when the set or the plan cannot be used (unknown set, not JSON, policy problems).
const EXIT_USAGE: i32 = 2;

/// Evaluate one set on one plan and print its findings. Exit 1 when a `deny` set fails (a
/// failure or an error), 2 when the set or plan cannot be used, 0 otherwise.
pub fn test_cmd(a: TestArgs) -> Result<i32> {
    let policies = match load_dir(a.dir)? {
        Ok(set) => set,
        Err(problems) => {
            for p in &problems {
                println!("{p}");
            }
            eprintln!(
                "tfgate: the policy directory {} has problems; run `tfgate policy check`",
                a.dir.display()
            );
            return Ok(EXIT_USAGE);
        }
    };
    let compiled = match find_set(&policies, a.set, a.repo) {
        Ok(c) => c,
        Err(message) => {
            eprintln!("tfgate: {message}");
            return Ok(EXIT_USAGE);
        }
    };
    let started = Instant::now();
    let text = match read_plan(a.plan) {
        Ok(t) => t,
        Err(message) => {
            eprintln!("tfgate: {message}");
            return Ok(EXIT_USAGE);
        }
    };
    let read = started.elapsed();
    let started = Instant::now();
    let outcome = evaluate(&compiled, &text, &Budget::default());
    let evaluated = started.elapsed();
    print!("{}", outcome_text(&outcome));
    if a.timing {
        // The share of parsing the plan into the interpreter's values, measured apart.
        let started = Instant::now();
        let parsed = regorus::Value::from_json_str(&text).is_ok();
        let parse = started.elapsed();
        eprintln!("{}", timing_line(text.len(), read, evaluated));
        if parsed {
            eprintln!(
                "timing: of which parsing the plan into the interpreter, measured apart: {:.1} ms",
                parse.as_secs_f64() * 1e3
            );
        }
    }
    Ok(i32::from(outcome.blocks_apply()))
}

fn timing_line(bytes: usize, read: Duration, evaluated: Duration) -> String {
    format!(
        "timing: plan {bytes} bytes, read and checked as JSON in {:.1} ms, evaluated (parse into \
         the interpreter + rules) in {:.1} ms",
        read.as_secs_f64() * 1e3,
        evaluated.as_secs_f64() * 1e3
    )
}

/// The compiled set named `name`: in the policy covering `repo`, or in any policy file (the
/// same set in several files is fine; different sets of one name need `--repo`).
fn find_set(policies: &PolicySet, name: &str, repo: Option<&str>) -> Result<CompiledSet, String> {
    let candidates: Vec<&RepoPolicy> = match repo {
        Some(repo) => match policies.for_repo(repo) {
            Some(p) => vec![p],
            None => return Err(format!("no policy file covers {repo}")),
        },
        None => policies.policies().iter().collect(),
    };
    let mut found: Vec<(&str, &CompiledSet)> = Vec::new();
    for policy in &candidates {
        if let Some(c) = policy.compiled_plan_policy(name) {
            if !found.iter().any(|(_, f)| *f == c) {
                found.push((policy.file.as_str(), c));
            }
        }
    }
    match found.as_slice() {
        [(_, one)] => Ok((*one).clone()),
        [] => {
            let mut known: Vec<String> = candidates
                .iter()
                .flat_map(|p| p.plan_policies.iter().map(|s| format!("`{}`", s.name)))
                .collect();
            known.sort();
            known.dedup();
            let known = if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            };
            let scope = repo.map_or(String::new(), |r| format!(" for {r}"));
            Err(format!(
                "no plan policy set `{name}`{scope}; known sets: {known}"
            ))
        }
        several => Err(format!(
            "plan policy set `{name}` is defined differently in {}; choose one with --repo OWNER/NAME",
            several
                .iter()
                .map(|(file, _)| *file)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// The plan file's text, refused unless it is JSON.
fn read_plan(path: &Path) -> Result<String, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    serde_json::from_str::<serde::de::IgnoredAny>(&text).map_err(|e| {
        format!(
            "{} is not JSON ({e}); give the output of `terraform show -json PLANFILE`",
            path.display()
        )
    })?;
    Ok(text)
}

/// The findings, one line each, then the summary line.
pub fn outcome_text(outcome: &SetOutcome) -> String {
    let mut out = String::new();
    for m in &outcome.failures {
        out.push_str(&format!("FAIL {}\n", message_line(m)));
    }
    for m in &outcome.warnings {
        out.push_str(&format!("WARN {}\n", message_line(m)));
    }
    if let Some(error) = &outcome.error {
        out.push_str(&format!("ERROR {error}\n"));
    }
    out.push_str(&summary_line(outcome));
    out.push('\n');
    out
}

fn message_line(m: &PolicyMessage) -> String {
    match &m.address {
        Some(address) => format!("{}: {address}: {}", m.rule, m.message),
        None => format!("{}: {}", m.rule, m.message),
    }
}

fn summary_line(outcome: &SetOutcome) -> String {
    let plural = |n: usize, one: &str| {
        if n == 1 {
            format!("1 {one}")
        } else {
            format!("{n} {one}s")
        }
    };
    let mut line = format!(
        "set `{}` ({}): {}, {}",
        outcome.set,
        enforcement_name(outcome.enforcement),
        plural(outcome.failures.len(), "failure"),
        plural(outcome.warnings.len(), "warning")
    );
    if outcome.error.is_some() {
        line.push_str(", error: the set fails closed");
    }
    if outcome.failed() && outcome.enforcement == Enforcement::Warn {
        line.push_str(" (a warn set: its failures are shown, never block; exit 0)");
    }
    line
}

fn enforcement_name(e: Enforcement) -> &'static str {
    match e {
        Enforcement::Deny => "deny",
        Enforcement::Warn => "warn",
    }
}

/// The plan policy part of `tfgate policy explain`: the sets that apply to `project` (or, with
/// none, each set and the projects of the policy it applies to), their enforcement, owners and
/// the rules each compiled set found. Empty when the policy has no plan policy set.
pub fn explain_sets_text(policy: &RepoPolicy, project: Option<&str>) -> String {
    if policy.plan_policies.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    match project {
        Some(project) => {
            let sets = policy.plan_policies_for(project);
            if sets.is_empty() {
                out.push_str(&format!(
                    "\nplan policy sets for project `{project}`: none\n"
                ));
            } else {
                out.push_str(&format!("\nplan policy sets for project `{project}`:\n"));
            }
            for set in sets {
                out.push_str(&set_lines(policy, set, None));
            }
        }
        None => {
            out.push_str("\nplan policy sets of this policy:\n");
            for set in &policy.plan_policies {
                out.push_str(&set_lines(policy, set, Some(&applies_to(policy, set))));
            }
        }
    }
    out
}

/// The projects of the policy a set applies to, as a phrase.
fn applies_to(policy: &RepoPolicy, set: &PlanPolicySet) -> String {
    let names: Vec<String> = policy
        .projects
        .iter()
        .map(|p| p.spec.id.as_str().to_string())
        .filter(|name| applies(set, name))
        .map(|name| format!("`{name}`"))
        .collect();
    let every = set.projects.is_empty();
    match (names.is_empty(), every) {
        (_, true) if policy.projects.is_empty() => "every project".to_string(),
        (_, true) => format!("every project ({})", names.join(", ")),
        (true, false) => format!(
            "projects matching {} (none declared here)",
            set.projects.join(", ")
        ),
        (false, false) => names.join(", "),
    }
}

fn applies(set: &PlanPolicySet, project: &str) -> bool {
    !crate::plan_policy::sets_for_project(std::slice::from_ref(set), project).is_empty()
}

fn set_lines(policy: &RepoPolicy, set: &PlanPolicySet, applies: Option<&str>) -> String {
    let owners: Vec<String> = set
        .owners
        .users
        .iter()
        .map(|u| format!("@{u}"))
        .chain(set.owners.teams.iter().map(|t| format!("team {t}")))
        .collect();
    let owners = if owners.is_empty() && set.enforcement == Enforcement::Deny {
        "nobody (only a passing plan unblocks the apply)".to_string()
    } else if owners.is_empty() {
        "nobody".to_string()
    } else {
        owners.join(", ")
    };
    let mut out = format!(
        "  `{}` ({}, {}): {}; owners: {owners}\n",
        set.name,
        set.path,
        policy.file,
        enforcement_name(set.enforcement)
    );
    if let Some(applies) = applies {
        out.push_str(&format!("    applies to: {applies}\n"));
    }
    let rules = match policy.compiled_plan_policy(&set.name) {
        Some(c) if c.rule_names().is_empty() => "none found (the set never fails)".to_string(),
        Some(c) => c.rule_names().join(", "),
        None => "not compiled (fails closed)".to_string(),
    };
    out.push_str(&format!("    rules: {rules}\n"));
    out
}
