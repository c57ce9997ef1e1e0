//! The `tfgate/deploy` check run (effects): on every push to a PR of a repository whose policy
//! names `gitops` folders, the base and head trees are read (tarball API, exact commits), the
//! deploy preview is computed (`crate::gitops`, pure) and posted on the head commit.

use std::collections::BTreeMap;
use std::sync::Arc;

use anyhow::anyhow;

use super::{github_error, installation_client};
use crate::github::api::{self, create_check_run, CheckRunRequest};
use crate::github::{GitHubApp, InstallationClient};
use crate::gitops::{check_conclusion, compare, deploy_check_text};
use crate::jobs::JobError;
use crate::model::view::{AnnotationLevel, AnnotationView};
use crate::model::{DeployCheckText, RepoRef};
use crate::policy::RepoPolicy;
use crate::redact::{Placeholders, RedactionConfig, Redactor};
use crate::render::{CheckTitleSummary, Renderer};
use crate::state::AppState;
use crate::webhook::event::PullRequestJob;

/// The check run's name.
pub const CHECK_NAME: &str = "tfgate/deploy";

/// `base_sha` when the delivery's job has read the PR already; else it is read here.
pub async fn preview(
    state: &Arc<AppState>,
    pr: &PullRequestJob,
    base_sha: Option<&str>,
) -> Result<(), JobError> {
    let Some(policy) = state
        .policies
        .current()
        .for_repo(&pr.repo.full_name())
        .cloned()
    else {
        return Ok(());
    };
    if policy.gitops.is_empty() {
        return Ok(());
    }
    let (app, gh) = installation_client(state, &pr.repo)?;
    let base_sha = match base_sha {
        Some(sha) => sha.to_string(),
        None => {
            api::get_pull_request(&gh, &pr.repo, pr.number)
                .await
                .map_err(github_error)?
                .base
                .sha
        }
    };
    let shown = compute(state, &app, &policy, &pr.repo, &base_sha, &pr.head_sha).await?;
    post(&gh, &state.renderer, &pr.repo, &pr.head_sha, &shown).await
}

/// The preview of a PR, ready to word (`deploy_check.md.j2`) and post as the check run.
pub struct Preview {
    pub conclusion: &'static str,
    pub text: DeployCheckText,
    pub annotations: Vec<AnnotationView>,
}

/// The deploy preview between `base_sha` and `head_sha`, redacted.
pub async fn compute(
    state: &AppState,
    app: &GitHubApp,
    policy: &RepoPolicy,
    repo: &RepoRef,
    base_sha: &str,
    head_sha: &str,
) -> Result<Preview, JobError> {
    let base = yaml_tree(state, app, repo, base_sha).await?;
    let head = yaml_tree(state, app, repo, head_sha).await?;
    let folders: Vec<_> = policy
        .gitops
        .iter()
        .map(|f| (f.path.clone(), f.tool))
        .collect();
    let result = compare(&folders, &base, &head);
    let redactor = Redactor::new(&RedactionConfig {
        extra_patterns: policy.redact_patterns.clone(),
        secret_values: crate::worker::input_drift::values::all_values(policy),
    })
    .map_err(|e| JobError::Permanent(anyhow!("redaction patterns: {e}")))?;
    let mut ph = Placeholders::new();
    let mut redact = |s: &str| redactor.redact(s, &mut ph);
    let conclusion = check_conclusion(&result);
    let text = deploy_check_text(&result, &mut redact);
    let annotations = match &result {
        Ok(_) => Vec::new(),
        Err(problems) => problems
            .iter()
            .map(|p| AnnotationView {
                path: p.file.clone(),
                start_line: p.line.max(1) as u32,
                end_line: p.line.max(1) as u32,
                level: AnnotationLevel::Failure,
                title: "YAML does not parse".into(),
                message: redact(&p.message),
            })
            .collect(),
    };
    Ok(Preview {
        conclusion,
        text,
        annotations,
    })
}

/// The preview's title and summary as the template words them.
pub fn word(renderer: &Renderer, preview: &Preview) -> Result<CheckTitleSummary, JobError> {
    renderer
        .render_deploy_check(&preview.text)
        .map_err(|e| JobError::Permanent(anyhow!("rendering the deploy check: {e}")))
}

/// Posts `preview` as the `tfgate/deploy` check run of `head_sha`.
pub async fn post(
    gh: &InstallationClient,
    renderer: &Renderer,
    repo: &RepoRef,
    head_sha: &str,
    preview: &Preview,
) -> Result<(), JobError> {
    let text = renderer
        .render_deploy_check(&preview.text)
        .map_err(|e| JobError::Permanent(anyhow!("rendering the deploy check: {e}")))?;
    let request = CheckRunRequest {
        name: CHECK_NAME,
        head_sha,
        external_id: None,
        conclusion: preview.conclusion,
        title: &text.title,
        summary: &text.summary,
        text: "",
        annotations: &preview.annotations,
    };
    create_check_run(gh, repo, &request)
        .await
        .map_err(github_error)
}

/// The YAML files of `repo` at `sha`.
async fn yaml_tree(
    state: &AppState,
    app: &GitHubApp,
    repo: &RepoRef,
    sha: &str,
) -> Result<BTreeMap<String, String>, JobError> {
    let wanted = crate::gitops::is_manifest_file;
    let config = &state.config;
    crate::checkout::repo_tree::files_at(
        app,
        &config.github_api_url,
        &config.work_dir,
        repo,
        sha,
        None,
        wanted,
    )
    .await
    .map(|files| files.into_iter().collect())
    .map_err(JobError::Transient)
}
