//! The text files of a repository at an exact commit, read through the tarball API into a
//! temporary directory that is removed afterwards (effects only).

use std::path::Path;
use std::time::Duration;

use anyhow::{anyhow, Context, Result};

use super::{
    fetch_tarball, read_tree, with_retries, CheckoutError, CheckoutInfo, ExtractLimits, WalkLimits,
};
use crate::github::GitHubApp;
use crate::model::RepoRef;

/// Downloads `repo` at `sha` and unpacks it into `dest`: through the installation's rate-limit
/// gate like every other GitHub request (a rate-limited answer holds the installation's next
/// request), with the call policy's retries for transient failures.
pub async fn download(
    app: &GitHubApp,
    api_url: &str,
    repo: &RepoRef,
    sha: &str,
    dest: &Path,
) -> Result<CheckoutInfo> {
    let token = app.installation_token(repo.installation_id).await?;
    let client = reqwest::Client::builder()
        .user_agent("tfgate")
        .timeout(Duration::from_secs(300))
        .build()?;
    let installation = repo.installation_id;
    let fetch = || async {
        app.wait_turn(installation)
            .await
            .map_err(|until| CheckoutError::RateLimited { until })?;
        let fetched = fetch_tarball(
            &client,
            api_url,
            &repo.owner,
            &repo.name,
            sha,
            &token,
            dest,
            ExtractLimits::default(),
        )
        .await;
        if let Err(CheckoutError::RateLimited { until }) = &fetched {
            app.hold(installation, *until);
        }
        fetched
    };
    match with_retries(&app.call_policy().retry.backoff, fetch).await {
        Ok(info) => Ok(info),
        // Waits up to the worker's cap were made above; a longer one ends here.
        Err(CheckoutError::RateLimited { .. }) => Err(anyhow!(
            "GitHub rate-limited this installation; run the command again later"
        )),
        Err(e) => Err(anyhow!("{}", e.public_reason())),
    }
}

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
    let parent = if work_dir.is_dir() {
        work_dir.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    let dir = tempfile::Builder::new()
        .prefix("tree-")
        .tempdir_in(&parent)
        .context("creating a directory for a repository's files")?;
    let info = download(app, api_url, repo, sha, &dir.path().join("repo")).await?;
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
