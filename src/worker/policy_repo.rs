//! Reading the admin repository's policies (effects only; the pure part is
//! [`crate::policy_repo`]): the files of a commit through the
//! App (tarball), the `tfgate/policy` check run, the last valid set stored in the database for
//! every process, and the watch that keeps each process's policies current.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, Context, Result};
use tokio::sync::watch;

use crate::db::server_settings;
use crate::github::api::{create_check_run, CheckRunRequest};
use crate::github::GitHubApp;
use crate::model::RepoRef;
use crate::policy_repo::{
    policy_check, policy_files, StoredPolicies, CHECK_NAME, POLICY_FOLDER, STORED_POLICIES_SETTING,
};
use crate::state::AppState;

/// How often every process looks for a newer set another process stored.
const STORED_POLL: Duration = Duration::from_secs(10);
/// How often every process reads the default branch itself (a missed push is caught).
const GITHUB_POLL: Duration = Duration::from_secs(5 * 60);

/// Checks the policies of `repo` at `sha` and posts the `tfgate/policy` check run on it. When
/// the commit is the default branch's (`applies`) and the set is valid, it is stored for every
/// process and put in force here. Returns whether the set was valid.
pub async fn check_commit(
    state: &AppState,
    repo: &RepoRef,
    sha: &str,
    applies: bool,
) -> Result<bool> {
    let app = state.github().context("no GitHub App configured")?;
    let files = files_at(state, &app, repo, sha).await?;
    let protected = crate::policy_repo::store::protected_paths(&state.config);
    let loaded = crate::policy_repo::store::load_guarded(&files, &protected);
    let problems = loaded.as_ref().err().cloned().unwrap_or_default();
    let problems = redacted(problems);
    let policy_file_count = files
        .iter()
        .filter(|(name, _)| !crate::policy::is_rego_file_name(name))
        .count();
    let check = policy_check(policy_file_count, &problems, applies);
    let text = state
        .renderer
        .render_policy_check(&check.text)
        .context("rendering the policy check")?;
    let gh = app.installation(repo.installation_id)?;
    create_check_run(
        &gh,
        repo,
        &CheckRunRequest {
            name: CHECK_NAME,
            head_sha: sha,
            external_id: None,
            conclusion: check.conclusion,
            title: &text.title,
            summary: &text.summary,
            text: "",
            annotations: &check.annotations,
        },
    )
    .await?;
    let valid = policy_file_count > 0 && loaded.is_ok();
    match loaded {
        Ok(set) if applies && valid => {
            store(
                state,
                &StoredPolicies {
                    sha: sha.to_string(),
                    files,
                },
            )
            .await?;
            state.policies.replace(set, sha);
            tracing::info!(repo = %repo.full_name(), sha, "policies from the admin repository in force");
        }
        _ if applies => {
            tracing::error!(repo = %repo.full_name(), sha, problems = problems.len(),
                "the admin repository's policies have problems; the previous ones stay in force");
        }
        _ => {}
    }
    Ok(valid)
}

/// Reads the admin repository's default branch and puts its policies in force when they are
/// valid and newer than the ones in force (no check run: the push already got one).
pub async fn sync_default_branch(state: &AppState) -> Result<()> {
    let (owner, name) = state
        .config
        .policy_repo
        .clone()
        .context("no TFGATE_POLICY_REPO configured")?;
    let app = state.github().context("no GitHub App configured yet")?;
    let installation_id = app.repository_installation(&owner, &name).await?;
    let repo = RepoRef {
        installation_id,
        owner,
        name,
    };
    let gh = app.installation(installation_id)?;
    let route = format!("/repos/{}/{}", repo.owner, repo.name);
    let info: serde_json::Value = gh.get(&route).await?;
    let branch = info["default_branch"]
        .as_str()
        .context("no default branch")?;
    let sha = branch_head(state, &repo, branch).await?;
    if state.policies.commit().as_deref() == Some(sha.as_str()) {
        return Ok(());
    }
    let files = files_at(state, &app, &repo, &sha).await?;
    let protected = crate::policy_repo::store::protected_paths(&state.config);
    match crate::policy_repo::store::load_guarded(&files, &protected) {
        Ok(set) if !files.is_empty() => {
            store(
                state,
                &StoredPolicies {
                    sha: sha.clone(),
                    files,
                },
            )
            .await?;
            state.policies.replace(set, &sha);
            tracing::info!(repo = %repo.full_name(), sha, "policies read from the admin repository");
            Ok(())
        }
        Ok(_) => Err(anyhow!(
            "the admin repository has no policy file in {POLICY_FOLDER}/"
        )),
        Err(problems) => Err(anyhow!(
            "the admin repository's policies have {} problem(s); the previous ones stay",
            problems.len()
        )),
    }
}

/// The commit `branch` of `repo` points at now, as GitHub says.
pub async fn branch_head(state: &AppState, repo: &RepoRef, branch: &str) -> Result<String> {
    let app = state.github().context("no GitHub App configured yet")?;
    let gh = app.installation(repo.installation_id)?;
    let route = format!("/repos/{}/{}/commits/{branch}", repo.owner, repo.name);
    let head: serde_json::Value = gh.get(&route).await.context("reading the branch head")?;
    Ok(head["sha"].as_str().context("no head commit")?.to_string())
}

/// Keeps this process's policies current: the stored set at once and every 10 s, the default
/// branch at start and every 5 minutes.
pub fn spawn_policy_repo_watch(
    state: &Arc<AppState>,
    mut shutdown: watch::Receiver<bool>,
) -> Option<tokio::task::JoinHandle<()>> {
    state.config.policy_repo.as_ref()?;
    let state = state.clone();
    Some(tokio::spawn(async move {
        let mut next_github = tokio::time::Instant::now();
        loop {
            if let Err(e) = load_stored(&state).await {
                tracing::warn!(error = %format!("{e:#}"), "could not read the stored policies");
            }
            if tokio::time::Instant::now() >= next_github {
                next_github += GITHUB_POLL;
                if let Err(e) = sync_default_branch(&state).await {
                    tracing::warn!(error = %format!("{e:#}"), "could not read the admin repository's policies");
                }
            }
            tokio::select! {
                _ = tokio::time::sleep(STORED_POLL) => {}
                _ = shutdown.changed() => return,
            }
        }
    }))
}

/// Puts the set another process stored in force, when it is not the one in force already.
async fn load_stored(state: &AppState) -> Result<()> {
    let Some(text) = server_settings::get(&state.db, STORED_POLICIES_SETTING).await? else {
        return Ok(());
    };
    let stored: StoredPolicies =
        serde_json::from_str(&text).context("parsing the stored policies")?;
    if state.policies.commit().as_deref() == Some(stored.sha.as_str()) {
        return Ok(());
    }
    let set = stored
        .load(&crate::policy_repo::store::protected_paths(&state.config))
        .map_err(|p| anyhow!("the stored policies have {} problem(s)", p.len()))?;
    state.policies.replace(set, &stored.sha);
    tracing::info!(sha = %stored.sha, "policies from the admin repository loaded");
    Ok(())
}

async fn store(state: &AppState, stored: &StoredPolicies) -> Result<()> {
    let json = serde_json::to_string(stored).context("encoding the policies")?;
    server_settings::put(&state.db, STORED_POLICIES_SETTING, &json).await
}

/// The policy files of `repo` at `sha`, from its tarball.
async fn files_at(
    state: &AppState,
    app: &GitHubApp,
    repo: &RepoRef,
    sha: &str,
) -> Result<Vec<(String, String)>> {
    let config = &state.config;
    let tree = crate::checkout::repo_tree::files_at(
        app,
        &config.github_api_url,
        &config.work_dir,
        repo,
        sha,
        Some(POLICY_FOLDER),
        |_| true,
    )
    .await?;
    Ok(policy_files(tree))
}

/// Problem messages as posted: the redactor's rules apply to check runs too.
fn redacted(problems: Vec<crate::policy::PolicyProblem>) -> Vec<crate::policy::PolicyProblem> {
    let Ok(redactor) = crate::redact::Redactor::new(&Default::default()) else {
        return problems;
    };
    let mut placeholders = crate::redact::Placeholders::new();
    problems
        .into_iter()
        .map(|mut p| {
            p.message = redactor.redact(&p.message, &mut placeholders);
            p
        })
        .collect()
}
