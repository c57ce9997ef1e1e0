//! Reads the server's policy directory (never a PR branch) and keeps the loaded set, reloaded
//! on SIGHUP. A reload that finds problems keeps the previous policies and logs each problem.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use anyhow::{Context, Result};

use crate::policy::sources::{self, ProtectedPaths};
use crate::policy::{
    is_policy_file_name, is_rego_file_name, load_policies, PolicyProblem, PolicySet,
};

/// Most `.rego` files read under a policy directory, and the deepest folder searched.
const MAX_REGO_FILES: usize = 2000;
const MAX_REGO_DEPTH: usize = 8;

/// Read every policy file of `dir` (sorted by name), then every `.rego` file under it (the
/// plan policy sets, in sub-folders, sorted by path), as (display name, content) pairs.
pub fn read_policy_dir(dir: &Path) -> Result<Vec<(String, String)>> {
    let mut files = read_policy_files(dir)?;
    if dir.exists() {
        let mut rego = Vec::new();
        read_rego_files(dir, 0, &mut rego)?;
        rego.sort();
        for path in rego {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            files.push((path.display().to_string(), text));
        }
    }
    Ok(files)
}

/// The `.rego` files under `dir`, not following hidden entries.
fn read_rego_files(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> Result<()> {
    if depth > MAX_REGO_DEPTH {
        return Ok(());
    }
    let entries = std::fs::read_dir(dir)
        .with_context(|| format!("reading policy directory {}", dir.display()))?;
    for entry in entries.filter_map(|e| e.ok()) {
        let path = entry.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            read_rego_files(&path, depth + 1, out)?;
        } else if path.is_file() && is_rego_file_name(name) {
            if out.len() >= MAX_REGO_FILES {
                anyhow::bail!(
                    "more than {MAX_REGO_FILES} .rego files under {}",
                    dir.display()
                );
            }
            out.push(path);
        }
    }
    Ok(())
}

fn read_policy_files(dir: &Path) -> Result<Vec<(String, String)>> {
    let mut files = Vec::new();
    if !dir.exists() {
        return Ok(files);
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading policy directory {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(is_policy_file_name)
        })
        .collect();
    entries.sort();
    for path in entries {
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        files.push((path.display().to_string(), text));
    }
    Ok(files)
}

/// Load and validate a policy directory.
pub fn load_dir(dir: &Path) -> Result<Result<PolicySet, Vec<PolicyProblem>>> {
    let files = read_policy_dir(dir)?;
    Ok(load_policies(&files))
}

/// Load and validate a policy directory for the server whose own files are `protected`.
pub fn load_dir_guarded(
    dir: &Path,
    protected: &ProtectedPaths,
) -> Result<Result<PolicySet, Vec<PolicyProblem>>> {
    let files = read_policy_dir(dir)?;
    Ok(load_guarded(&files, protected))
}

/// [`load_policies`], then no `file:` source may name one of the server's own files.
pub fn load_guarded<N: AsRef<str>, C: AsRef<str>>(
    files: &[(N, C)],
    protected: &ProtectedPaths,
) -> Result<PolicySet, Vec<PolicyProblem>> {
    sources::guard(load_policies(files), files, protected, &resolve_links)
}

fn resolve_links(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok()
}

/// The server's own files no policy source may name: its data and work directories and the
/// App's private key file, absolute, each also with its links resolved where it exists.
pub fn protected_paths(config: &crate::config::Config) -> ProtectedPaths {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let forms = |path: &Path| {
        let absolute = cwd.join(path);
        let mut out = vec![absolute.clone()];
        out.extend(resolve_links(&absolute).filter(|r| *r != absolute));
        out
    };
    ProtectedPaths {
        dirs: [&config.data_dir, &config.work_dir]
            .into_iter()
            .flat_map(|d| forms(d))
            .collect(),
        files: config
            .private_key_path
            .iter()
            .flat_map(|f| forms(f))
            .collect(),
        cwd,
    }
}

#[derive(Clone)]
pub struct PolicyStore {
    /// The policy directory; `None` when the policies come from the admin repository.
    dir: Option<PathBuf>,
    /// The server's own files, which no policy source may name.
    protected: ProtectedPaths,
    current: Arc<RwLock<Arc<PolicySet>>>,
    /// The admin repository's commit the current set was read from.
    commit: Arc<RwLock<Option<String>>>,
}

impl PolicyStore {
    /// Load at start; problems are fatal here (a server must not start on a broken policy).
    pub fn open(dir: &Path, protected: ProtectedPaths) -> Result<PolicyStore> {
        let set = match load_dir_guarded(dir, &protected)? {
            Ok(set) => set,
            Err(problems) => {
                let list: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
                anyhow::bail!("policy problems:\n{}", list.join("\n"));
            }
        };
        Ok(PolicyStore {
            dir: Some(dir.to_path_buf()),
            protected,
            current: Arc::new(RwLock::new(Arc::new(set))),
            commit: Arc::new(RwLock::new(None)),
        })
    }

    /// A store filled from the admin repository ([`crate::policy_repo`]): empty (every
    /// repository "not enabled") until the first valid set is read.
    pub fn from_repository() -> PolicyStore {
        PolicyStore {
            dir: None,
            protected: ProtectedPaths::default(),
            current: Arc::new(RwLock::new(Arc::new(PolicySet::default()))),
            commit: Arc::new(RwLock::new(None)),
        }
    }

    pub fn current(&self) -> Arc<PolicySet> {
        self.current.read().expect("policy lock").clone()
    }

    /// Policies come from the admin repository and none has been read yet (a process that
    /// just started): a command must wait, not be told tfgate is not enabled.
    pub fn awaiting_first_read(&self) -> bool {
        self.dir.is_none() && self.commit().is_none()
    }

    /// The admin repository's commit the policies in force come from, if they do.
    pub fn commit(&self) -> Option<String> {
        self.commit.read().expect("policy lock").clone()
    }

    /// Puts a validated set read from the admin repository at `commit` in force.
    pub fn replace(&self, set: PolicySet, commit: &str) {
        *self.current.write().expect("policy lock") = Arc::new(set);
        *self.commit.write().expect("policy lock") = Some(commit.to_string());
    }

    /// Re-read the directory; on problems keep the old set and return them.
    pub fn reload(&self) -> Result<(), Vec<String>> {
        let Some(dir) = &self.dir else {
            return Ok(());
        };
        match load_dir_guarded(dir, &self.protected) {
            Ok(Ok(set)) => {
                *self.current.write().expect("policy lock") = Arc::new(set);
                Ok(())
            }
            Ok(Err(problems)) => Err(problems.iter().map(|p| p.to_string()).collect()),
            Err(e) => Err(vec![format!("{e:#}")]),
        }
    }

    /// What the directory looks like now (names, sizes, modification times).
    fn signature(&self) -> Vec<(String, u64, Option<std::time::SystemTime>)> {
        let Some(dir) = &self.dir else {
            return Vec::new();
        };
        let mut sig: Vec<_> = std::fs::read_dir(dir)
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .filter_map(|e| {
                        let m = e.metadata().ok()?;
                        Some((
                            e.file_name().to_string_lossy().to_string(),
                            m.len(),
                            m.modified().ok(),
                        ))
                    })
                    .collect()
            })
            .unwrap_or_default();
        sig.sort();
        sig
    }

    /// Reload on every SIGHUP and whenever the directory changes (checked every few seconds),
    /// for the life of the process.
    pub fn reload_on_sighup(&self) {
        let Some(dir) = self.dir.clone() else {
            return;
        };
        let watcher = self.clone();
        tokio::spawn(async move {
            let mut last = watcher.signature();
            loop {
                tokio::time::sleep(std::time::Duration::from_secs(5)).await;
                let now = watcher.signature();
                if now != last {
                    last = now;
                    match watcher.reload() {
                        Ok(()) => {
                            tracing::info!(dir = %dir.display(), "policies changed on disk; reloaded")
                        }
                        Err(problems) => {
                            for p in problems {
                                tracing::error!(problem = %p, "policy reload refused; previous policies kept");
                            }
                        }
                    }
                }
            }
        });
        let store = self.clone();
        tokio::spawn(async move {
            let Ok(mut hup) =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())
            else {
                return;
            };
            while hup.recv().await.is_some() {
                match store.reload() {
                    Ok(()) => tracing::info!("policies reloaded"),
                    Err(problems) => {
                        for p in problems {
                            tracing::error!(problem = %p, "policy reload refused; previous policies kept");
                        }
                    }
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reload_keeps_old_policies_on_problems() {
        let dir = tempfile::tempdir().unwrap();
        let good = "repos: [\"acme/infra\"]\nprojects:\n  - name: net\n    dir: network\n    plan_role: arn:aws:iam::111111111111:role/plan\n    apply_role: arn:aws:iam::111111111111:role/apply\n";
        std::fs::write(dir.path().join("acme.yaml"), good).unwrap();
        std::fs::write(dir.path().join("README.md"), "not a policy").unwrap();
        let store = PolicyStore::open(dir.path(), ProtectedPaths::default()).unwrap();
        assert!(store.current().for_repo("acme/infra").is_some());
        std::fs::write(
            dir.path().join("acme.yaml"),
            "repos: [\"acme/infra\"]\nbogus: 1\n",
        )
        .unwrap();
        let problems = store.reload().unwrap_err();
        assert!(problems[0].contains("acme.yaml:2:1"), "{problems:?}");
        assert!(
            store.current().for_repo("acme/infra").is_some(),
            "old set kept"
        );
    }

    #[test]
    fn missing_dir_is_an_empty_set() {
        let store = PolicyStore::open(
            Path::new("/nonexistent/tfgate-policies"),
            ProtectedPaths::default(),
        )
        .unwrap();
        assert!(store.current().for_repo("a/b").is_none());
    }
}
