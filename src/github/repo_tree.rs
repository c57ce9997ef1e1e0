//! The text files of a repository at an exact commit, read through the tarball API into a
//! temporary directory that is removed afterwards (effects only).

use std::path::Path;
use std::time::Duration;

use anyhow::{anyhow, Context, Result};

use super::GitHubApp;
use crate::checkout::{fetch_tarball, read_tree, with_retries, ExtractLimits, WalkLimits};
use crate::webhook::event::RepoRef;

/// `(path from the repository root, text)` of the files of `repo` at `sha` under `folder`
/// (the whole repository when `None`) whose names `wanted` accepts. The tarball is unpacked
/// under `work_dir` (or the system's temporary directory when it does not exist).
pub async fn files_at(
    app: &GitHubApp,
    api_url: &str,
    work_dir: &Path,
    repo: &RepoRef,
    sha: &str,
    folder: Option<&str>,
    wanted: impl Fn(&str) -> bool,
) -> Result<Vec<(String, String)>> {
    let token = app.installation_token(repo.installation_id).await?;
    let parent = if work_dir.is_dir() {
        work_dir.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    let dir = tempfile::Builder::new()
        .prefix("tree-")
        .tempdir_in(&parent)
        .context("creating a directory for a repository's files")?;
    let dest = dir.path().join("repo");
    let client = reqwest::Client::builder()
        .user_agent("tfgate")
        .timeout(Duration::from_secs(300))
        .build()?;
    let info = with_retries(&app.call_policy().retry.backoff, || {
        fetch_tarball(
            &client,
            api_url,
            &repo.owner,
            &repo.name,
            sha,
            &token,
            &dest,
            ExtractLimits::default(),
        )
    })
    .await
    .map_err(|e| anyhow!("reading {} failed: {}", repo.full_name(), e.public_reason()))?;
    let root = match folder {
        Some(f) => info.root.join(f),
        None => info.root.clone(),
    };
    let prefix = folder.map(|f| format!("{f}/")).unwrap_or_default();
    Ok(read_tree(&root, wanted, &[".git"], WalkLimits::default())
        .into_iter()
        .map(|(path, text)| (format!("{prefix}{path}"), text))
        .collect())
}
