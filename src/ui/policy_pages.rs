//! The policies page: the files a person administers, their projects (roles by name, never
//! an ARN) and the `policy explain` form.

use std::collections::BTreeSet;
use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::{HeaderMap, Uri};
use axum::response::Response;
use serde::Deserialize;
use serde_json::json;

use anyhow::Context;

use super::{forbidden, render, signed_in};
use crate::model::RepoRef;
use crate::policy::RepoPolicy;
use crate::state::AppState;

#[derive(Deserialize, Default)]
pub struct ExplainQuery {
    #[serde(default)]
    user: String,
    #[serde(default)]
    command: String,
    #[serde(default)]
    repo: String,
    #[serde(default)]
    project: String,
    #[serde(default)]
    permission: String,
    /// "Effective projects of" this repository.
    #[serde(default)]
    of: String,
}

/// A policy's projects for the page: names, roots, roles by name, apply requirements.
fn projects_json(p: &RepoPolicy) -> Vec<serde_json::Value> {
    let apply = if p.apply_requirements.is_empty() {
        "no requirements".to_string()
    } else {
        let names: Vec<String> = p
            .apply_requirements
            .iter()
            .map(|a| format!("{a:?}").to_lowercase())
            .collect();
        names.join(", ")
    };
    p.projects
        .iter()
        .map(|r| {
            json!({
                "name": r.spec.id.0, "dir": r.spec.dir, "workspace": r.spec.workspace,
                "plan_role": role_name(&r.plan_role),
                "apply_role": r.apply_role.as_deref().map(role_name).unwrap_or_default(),
                "apply": apply,
            })
        })
        .collect()
}

/// The projects a PR of `repo` gets: the policy's, plus those of the default branch's
/// `tfgate.yaml` when the policy allows repository layouts; and the layout's problems.
async fn effective(
    state: &AppState,
    policy: &RepoPolicy,
    repo: &str,
) -> anyhow::Result<(Vec<serde_json::Value>, Vec<String>)> {
    if !policy.allow_repo_layout {
        return Ok((projects_json(policy), vec![]));
    }
    let app = state.github().context("no GitHub App is configured yet")?;
    let (owner, name) = repo.split_once('/').context("a repository is owner/name")?;
    let installation_id = app.repository_installation(owner, name).await?;
    let gh = app.installation(installation_id)?;
    let r = RepoRef {
        installation_id,
        owner: owner.into(),
        name: name.into(),
    };
    let (merged, problems) = crate::worker::layout::policy_for_pr(&gh, &r, policy)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok((
        projects_json(&merged),
        problems.iter().map(|p| p.to_string()).collect(),
    ))
}

/// The role's name without its ARN (no account id on a page).
fn role_name(arn: &str) -> String {
    arn.rsplit('/').next().unwrap_or("").to_string()
}

pub async fn policies(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    uri: Uri,
    Query(q): Query<ExplainQuery>,
) -> Response {
    let frame = or_answer!(signed_in(&state, &headers, &uri, true, &BTreeSet::new()).await);
    if !frame.viewer.is_admin() {
        return forbidden("Policies are shown to policy admins only.");
    }
    let files: Vec<_> = frame
        .policies
        .policies()
        .iter()
        .filter(|p| frame.viewer.admin_files.contains(&p.file))
        .map(|p| {
            let projects = projects_json(p);
            let admins: Vec<String> = p
                .admins
                .users
                .iter()
                .chain(p.admins.teams.iter())
                .cloned()
                .collect();
            json!({"file": p.file, "repos": p.repos, "admins": admins, "projects": projects})
        })
        .collect();
    let answer = (!q.user.trim().is_empty() && !q.repo.trim().is_empty())
        .then(|| explain(&frame, &q, &state.renderer));
    let source = match &state.config.policy_repo {
        Some((owner, name)) => format!("the admin repository {owner}/{name}"),
        None => format!("the directory {}", state.config.policy_dir.display()),
    };
    // Files on disk that would not load now: the loaded set stays until they are fixed.
    let problems: Vec<String> = match &state.config.policy_repo {
        Some(_) => vec![],
        None => match crate::policy_repo::store::load_dir_guarded(
            &state.config.policy_dir,
            &crate::policy_repo::store::protected_paths(&state.config),
        ) {
            Ok(Ok(_)) => vec![],
            Ok(Err(found)) => found.iter().map(|p| p.to_string()).collect(),
            Err(e) => vec![format!("{e:#}")],
        },
    };
    let of = q.of.trim();
    let effective_of = match frame
        .policies
        .for_repo(of)
        .filter(|p| !of.is_empty() && frame.viewer.admin_files.contains(&p.file))
    {
        None if of.is_empty() => json!(null),
        None => json!({"repo": of, "error": "no policy you administer covers it"}),
        Some(policy) => match effective(&state, policy, of).await {
            Ok((projects, problems)) => {
                json!({"repo": of, "file": policy.file, "projects": projects, "problems": problems})
            }
            Err(e) => {
                tracing::warn!(repo = %of, error = %format!("{e:#}"), "ui: effective projects");
                json!({"repo": of, "error": "its tfgate.yaml could not be read from GitHub (see the server log)"})
            }
        },
    };
    let ask = json!({"user": q.user, "command": q.command, "repo": q.repo, "project": q.project, "permission": q.permission});
    render(
        "policies.html",
        &frame,
        json!({"files": files, "answer": answer, "ask": ask, "source": source, "commit": state.policies.commit(), "problems": problems, "effective": effective_of, "of": of}),
    )
}

/// "May USER COMMAND in REPO (PROJECT) with PERMISSION?" on a fresh PR by someone else.
fn explain(frame: &super::Frame, q: &ExplainQuery, renderer: &crate::render::Renderer) -> String {
    use crate::policy::{Actor, GitHubPermission, PolicyCommand, PrFacts, Target};
    let Some(policy) = frame.policies.for_repo(q.repo.trim()) else {
        return format!(
            "No policy covers {}: tfgate ignores its commands.",
            q.repo.trim()
        );
    };
    if !frame.viewer.admin_files.contains(&policy.file) {
        return "That repository's policy is not one you administer.".into();
    }
    let Some(command) = PolicyCommand::parse(q.command.trim()) else {
        return format!("Unknown command `{}`.", q.command);
    };
    let permission: GitHubPermission =
        serde_json::from_value(json!(q.permission.trim())).unwrap_or(GitHubPermission::Read);
    let actor = Actor {
        login: q.user.trim().to_string(),
        permission,
        teams: vec![],
        is_bot: false,
    };
    let target = Target {
        project: Some(q.project.trim().to_string()).filter(|p| !p.is_empty()),
        dir: None,
        workspace: None,
    };
    let facts = PrFacts::hypothetical();
    let reply = |d: &crate::model::PolicyDenial| {
        renderer
            .render_policy_denial(d)
            .unwrap_or_else(|e| format!("(the reply could not be rendered: {e})"))
    };
    crate::policy::explain(&actor, command, &target, &facts, policy, reply)
}
