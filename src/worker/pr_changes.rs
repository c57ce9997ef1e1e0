//! What a PR changes beyond its file list, read once the policy is known: the local module
//! graph of the PR's **base** commit (so a PR cannot choose which roots count as affected by
//! editing its own HCL; a root whose calls the PR edits is changed directly anyway), and the
//! shared inputs whose `tfgate.inputs.lock` line it changes. Deciding is
//! `project::build_module_graph`, `input_drift::changed_lock_inputs` and `project::affected_projects`.
//!
//! The graph of a commit never changes, so it is cached in `DATA_DIR/module-graphs/` (one small
//! JSON file per repository and base commit, at most [`MAX_CACHED_GRAPHS`], oldest removed
//! first): one tarball download per base commit, not per command; a file survives restarts
//! and needs no schema; losing it costs one download.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{anyhow, Context, Result};

use crate::checkout::{read_tree, WalkLimits};
use crate::github::{api, InstallationClient};
use crate::input_drift::changed_lock_inputs;
use crate::input_drift::LOCKFILE_NAME;
use crate::model::view::NoticeBody;
use crate::model::RepoRef;
use crate::policy::{PrFacts, RepoPolicy};
use crate::project::{build_module_graph, is_module_source_file, ModuleGraph};
use crate::state::AppState;

/// Cached graphs kept in `DATA_DIR/module-graphs/`.
pub const MAX_CACHED_GRAPHS: usize = 256;

/// Fills `facts.module_calls` (the base commit's) and `facts.changed_inputs`. Never fails:
/// what cannot be read is logged and returned as the PR's one-line notice, and the roots the
/// PR changes directly are still found.
pub async fn complete_pr_changes(
    state: &AppState,
    gh: &InstallationClient,
    repo: &RepoRef,
    policy: &RepoPolicy,
    facts: &mut PrFacts,
) -> Option<NoticeBody> {
    let (mut modules_unread, mut inputs_lock_unread) = (false, false);
    match base_module_graph(state, repo, &facts.base_sha).await {
        Ok(graph) => facts.module_calls = graph,
        Err(e) => {
            tracing::warn!(repo = %repo.full_name(), pr = facts.number, error = %format!("{e:#}"),
                "the base commit's module graph could not be built");
            modules_unread = true;
        }
    }
    if facts.changed_files.iter().any(|f| f == LOCKFILE_NAME) {
        match lock_texts(gh, repo, facts).await {
            Ok((base, head)) => {
                let declared: Vec<String> = policy.inputs.iter().map(|i| i.name.clone()).collect();
                facts.changed_inputs =
                    changed_lock_inputs(base.as_deref(), head.as_deref(), &declared);
            }
            Err(e) => {
                tracing::warn!(repo = %repo.full_name(), pr = facts.number, error = %format!("{e:#}"),
                    "tfgate.inputs.lock could not be read");
                inputs_lock_unread = true;
            }
        }
    }
    (modules_unread || inputs_lock_unread).then_some(NoticeBody::AffectedRootsIncomplete {
        modules_unread,
        inputs_lock_unread,
    })
}

/// `tfgate.inputs.lock` at the PR's base and head commits (`None` where there is none).
async fn lock_texts(
    gh: &InstallationClient,
    repo: &RepoRef,
    facts: &PrFacts,
) -> Result<(Option<String>, Option<String>)> {
    let mut texts = Vec::new();
    for commit in [&facts.base_sha, &facts.head_sha] {
        let file = api::file_at(gh, repo, LOCKFILE_NAME, commit).await?;
        texts.push(file.map(|f| f.text()).transpose()?);
    }
    let head = texts.pop().flatten();
    Ok((texts.pop().flatten(), head))
}

/// The local module graph of `repo` at `base_sha`: from the cache, or from its tarball.
async fn base_module_graph(
    state: &AppState,
    repo: &RepoRef,
    base_sha: &str,
) -> Result<ModuleGraph> {
    let cache = state.config.data_dir.join("module-graphs");
    let entry = cache.join(format!("{}+{}+{base_sha}.json", repo.owner, repo.name));
    if let Some(graph) = read_cached(&entry) {
        return Ok(graph);
    }
    std::fs::create_dir_all(&state.config.work_dir)
        .with_context(|| format!("creating {}", state.config.work_dir.display()))?;
    let scratch = tempfile::Builder::new()
        .prefix("module-graph-")
        .tempdir_in(&state.config.work_dir)
        .context("creating a scratch directory for the base commit")?;
    let dest = scratch.path().join("repo");
    download(state, repo, base_sha, &dest).await?;
    let files = tokio::task::spawn_blocking(move || {
        read_tree(
            &dest,
            is_module_source_file,
            &[".git", ".terraform"],
            WalkLimits::default(),
        )
    })
    .await
    .context("reading the base commit's .tf files")?;
    let graph = build_module_graph(files.iter().map(|(p, t)| (p.as_str(), t.as_str())));
    if let Err(e) = write_cached(&cache, &entry, &graph) {
        tracing::warn!(error = %format!("{e:#}"), "the module graph could not be cached");
    }
    Ok(graph)
}

async fn download(state: &AppState, repo: &RepoRef, sha: &str, dest: &Path) -> Result<()> {
    let app = state.github().context("no GitHub App configured")?;
    crate::github::repo_tree::download(&app, &state.config.github_api_url, repo, sha, dest)
        .await
        .map(|_| ())
        .map_err(|e| anyhow!("downloading the base commit failed: {e:#}"))
}

fn read_cached(entry: &Path) -> Option<ModuleGraph> {
    let text = std::fs::read_to_string(entry).ok()?;
    serde_json::from_str(&text).ok()
}

/// Writes `entry` whole (temporary file, then rename), then removes the oldest entries past
/// [`MAX_CACHED_GRAPHS`].
fn write_cached(cache: &Path, entry: &Path, graph: &ModuleGraph) -> Result<()> {
    std::fs::create_dir_all(cache).with_context(|| format!("creating {}", cache.display()))?;
    let partial = tempfile::NamedTempFile::new_in(cache)?;
    std::fs::write(partial.path(), serde_json::to_vec(graph)?)?;
    partial.persist(entry)?;
    let entries: Vec<(PathBuf, SystemTime)> = std::fs::read_dir(cache)?
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .filter_map(|e| Some((e.path(), e.metadata().ok()?.modified().ok()?)))
        .collect();
    for stale in oldest_past(entries, MAX_CACHED_GRAPHS) {
        let _ = std::fs::remove_file(stale);
    }
    Ok(())
}

/// The entries to remove so that at most `keep` remain: the oldest first.
fn oldest_past<T>(mut entries: Vec<(T, SystemTime)>, keep: usize) -> Vec<T> {
    entries.sort_by_key(|e| std::cmp::Reverse(e.1));
    entries.into_iter().skip(keep).map(|(e, _)| e).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_oldest_entries_past_the_bound_go() {
        let at = |s: u64| SystemTime::UNIX_EPOCH + Duration::from_secs(s);
        let entries = vec![("b", at(2)), ("d", at(4)), ("a", at(1)), ("c", at(3))];
        assert_eq!(oldest_past(entries.clone(), 2), vec!["b", "a"]);
        assert_eq!(oldest_past(entries.clone(), 4), Vec::<&str>::new());
        assert_eq!(oldest_past(entries, 0), vec!["d", "c", "b", "a"]);
    }

    #[test]
    fn a_cached_graph_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let entry = dir.path().join("o+r+sha.json");
        let mut graph = ModuleGraph::new();
        graph.add_calls("infra/app", &["../../modules/net".to_string()]);
        write_cached(dir.path(), &entry, &graph).unwrap();
        assert_eq!(read_cached(&entry), Some(graph));
        assert_eq!(read_cached(&dir.path().join("absent.json")), None);
    }
}
