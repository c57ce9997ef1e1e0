//! `tfgate policy check | explain | import-atlantis`.

use std::path::Path;

use anyhow::{bail, Context, Result};

use super::plan_policy::explain_sets_text;
use crate::policy::{explain, Actor, GitHubPermission, PolicyCommand, PrFacts, RepoPolicy, Target};
use crate::policy_repo::store::load_dir;

/// Validate a policy directory; prints `file:line:col: message` per problem. Exit code.
pub fn check(dir: &Path) -> Result<i32> {
    if !dir.is_dir() {
        bail!("{} is not a directory", dir.display());
    }
    match load_dir(dir)? {
        Ok(set) => {
            println!(
                "{}: {} policy file(s), no problems",
                dir.display(),
                set.policies().len()
            );
            for policy in set.policies() {
                for name in policy.checks_without_app() {
                    eprintln!("warning: {}: required check `{name}` names no app, so a check of that name from any GitHub App passes (a PR can add one); write {{name: {name}, app: <app slug>}}", policy.file);
                }
            }
            Ok(0)
        }
        Err(problems) => {
            for p in &problems {
                println!("{p}");
            }
            eprintln!("{} problem(s)", problems.len());
            Ok(1)
        }
    }
}

pub struct ExplainArgs<'a> {
    pub dir: &'a Path,
    pub repo: &'a str,
    pub user: &'a str,
    pub permission: &'a str,
    pub teams: Vec<String>,
    pub command: &'a str,
    pub project: Option<String>,
    pub target_dir: Option<String>,
    pub workspace: Option<String>,
    pub pr_facts: Option<&'a Path>,
    /// The repository's `tfgate.yaml`.
    pub layout: Option<&'a Path>,
}

/// Print the decision for one command and the rule behind it. Exit 0 allow, 3 deny.
pub fn explain_cmd(a: ExplainArgs) -> Result<i32> {
    let set = match load_dir(a.dir)? {
        Ok(set) => set,
        Err(problems) => {
            for p in &problems {
                println!("{p}");
            }
            bail!("the policy directory has problems; run `tfgate policy check`");
        }
    };
    let Some(policy) = set.for_repo(a.repo) else {
        println!("no policy covers {}: tfgate ignores its commands", a.repo);
        return Ok(3);
    };
    let layout = a
        .layout
        .map(|path| {
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
        })
        .transpose()?;
    if layout.is_some() && !policy.allow_repo_layout {
        println!("note: the policy does not set allow_repo_layout; the layout is ignored");
    }
    let (merged, problems) = crate::repo_layout::policy_with_base_layout(policy, layout.as_deref());
    if !problems.is_empty() {
        for p in &problems {
            println!("{p}");
        }
        bail!("the layout has problems: tfgate would use none of its projects");
    }
    let policy = &merged;
    let command = PolicyCommand::parse(a.command).with_context(|| {
        format!(
            "unknown command `{}` (plan, apply, unlock, cancel, inputs)",
            a.command
        )
    })?;
    let permission: GitHubPermission = serde_json::from_value(serde_json::json!(a.permission))
        .with_context(|| {
            format!(
                "unknown permission `{}` (none, read, triage, write, maintain, admin)",
                a.permission
            )
        })?;
    let facts = read_facts(a.pr_facts)?;
    let actor = Actor {
        login: a.user.to_string(),
        permission,
        teams: a.teams,
        is_bot: false,
    };
    let plan_project = plan_policy_project(
        policy,
        a.project.as_deref(),
        a.target_dir.as_deref(),
        a.workspace.as_deref(),
    );
    let target = Target {
        project: a.project,
        dir: a.target_dir,
        workspace: a.workspace,
    };
    let decision = crate::policy::decide(&actor, command, &target, &facts, policy);
    // The reply as the PR would read it, in the embedded default wording.
    let renderer = crate::render::Renderer::new().context("loading the templates")?;
    let reply = |d: &crate::model::PolicyDenial| {
        renderer
            .render_policy_denial(d)
            .unwrap_or_else(|e| format!("(the reply could not be rendered: {e})"))
    };
    println!(
        "{}",
        explain(&actor, command, &target, &facts, policy, reply)
    );
    print!("{}", explain_sets_text(policy, plan_project.as_deref()));
    Ok(if decision.is_allowed() { 0 } else { 3 })
}

fn read_facts(path: Option<&Path>) -> Result<PrFacts> {
    let Some(path) = path else {
        return Ok(PrFacts::hypothetical());
    };
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
}

/// The project whose plan policy sets `explain` lists: the one named, or the one at the dir
/// (and workspace) given; `None` lists every set of the policy.
fn plan_policy_project(
    policy: &RepoPolicy,
    project: Option<&str>,
    dir: Option<&str>,
    workspace: Option<&str>,
) -> Option<String> {
    if let Some(project) = project {
        return Some(project.to_string());
    }
    let at = policy.project_at(dir?, workspace.unwrap_or("default"))?;
    Some(at.spec.id.as_str().to_string())
}

/// Convert an Atlantis repo config; prints the layout, the policy skeleton and warnings.
pub fn import_atlantis(path: &Path) -> Result<i32> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let import =
        crate::policy::atlantis::import_atlantis(&text).map_err(|e| anyhow::anyhow!("{e}"))?;
    println!("# ---- tfgate.yaml (repository layout) ----");
    println!("{}", import.layout_yaml);
    println!("# ---- server-side policy skeleton (put it in the policy directory) ----");
    println!("{}", import.policy_yaml);
    for w in &import.warnings {
        eprintln!("warning: {w}");
    }
    Ok(0)
}
