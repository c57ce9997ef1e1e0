//! Observing what the doctor judges (effects only): the database, the sealing key, the policy
//! source, GitHub, Terraform, bubblewrap, cgroups and the disk. Each observation is turned into
//! an outcome by `judge.rs`.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use super::*;
use crate::config::Config;
use crate::db::Db;
use crate::github::GitHubApp;
use crate::sandbox::{run_sandboxed, ExitKind, Network, SandboxMode, SandboxSpec};
use crate::state::AppState;
use crate::tool_release::Release;

/// How long one command of a check may take.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(20);
/// Installed repositories looked at for the policy check.
const MAX_INSTALLED_REPOS: usize = 1000;

/// `tfgate doctor`: every check, from the configuration alone (nothing is created or migrated;
/// a database that does not exist yet is reported, not made).
pub async fn doctor_for_config(config: &Config) -> Report {
    let db = match crate::db::sqlite_file_path(&config.database_url) {
        Some(path) if !path.exists() => Err(DatabaseSeen::Unreachable(format!(
            "no database file at {} yet (serve creates it)",
            path.display()
        ))),
        _ => Db::connect(&config.database_url)
            .await
            .map_err(|e| DatabaseSeen::Unreachable(format!("{e:#}"))),
    };
    let key = crate::crypto::load_existing_key(&config.data_dir, config.encryption_key.as_ref());
    let (app, app_error) = match app_from_config(config, db.as_ref().ok(), key_ref(&key)).await {
        Ok(app) => (app.map(Arc::new), None),
        Err(e) => (None, Some(format!("{e:#}"))),
    };
    let key = key.map(|k| k.map(Arc::new));
    let mut report = observe(
        config,
        db.as_ref().ok(),
        db.as_ref().err(),
        &key,
        app.as_deref(),
    )
    .await;
    if let Some(error) = app_error {
        // The App's configuration itself is broken (a key that does not parse).
        for check in report
            .checks
            .iter_mut()
            .filter(|c| c.name == CheckName::GitHubApp)
        {
            check.outcome = judge_app(&AppSeen::Refused(error.clone()));
        }
    }
    report
}

fn key_ref(
    key: &Result<Option<crate::crypto::SealKey>, crate::crypto::CryptoError>,
) -> Option<&crate::crypto::SealKey> {
    key.as_ref().ok().and_then(Option::as_ref)
}

/// Every check for a running `serve` or `worker` (its own database, key and App).
pub async fn doctor_for_state(state: &AppState) -> Report {
    let key = Ok(Some(state.seal_key.clone()));
    observe(
        &state.config,
        Some(&state.db),
        None,
        &key,
        state.github().as_deref(),
    )
    .await
}

/// Runs the checks at start (logging each line) and again every 30 s while one fails, every
/// 5 minutes once all pass, keeping the last report for `/readyz`.
pub fn spawn_readiness(
    state: &Arc<AppState>,
    mut shutdown: watch::Receiver<bool>,
) -> tokio::task::JoinHandle<()> {
    let state = state.clone();
    tokio::spawn(async move {
        let mut last_failed: Option<Vec<&'static str>> = None;
        loop {
            let report = doctor_for_state(&state).await;
            let failed = report.failed();
            if last_failed.as_ref() != Some(&failed) {
                log_report(&report);
            }
            let wait = if failed.is_empty() { 300 } else { 30 };
            last_failed = Some(failed);
            state.set_readiness(report);
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_secs(wait)) => {}
                _ = shutdown.changed() => return,
            }
        }
    })
}

fn log_report(report: &Report) {
    for check in &report.checks {
        let name = check.name.as_str();
        match &check.outcome {
            Outcome::Ok(detail) => tracing::info!(check = name, "doctor: ok: {detail}"),
            Outcome::Warn(detail) => tracing::warn!(check = name, "doctor: {detail}"),
            Outcome::Fail { problem, fix } => {
                tracing::error!(check = name, "doctor: {problem}; fix: {fix}")
            }
        }
    }
}

type KeySeen = Result<Option<Arc<crate::crypto::SealKey>>, crate::crypto::CryptoError>;

async fn observe(
    config: &Config,
    db: Option<&Db>,
    db_error: Option<&DatabaseSeen>,
    key: &KeySeen,
    app: Option<&GitHubApp>,
) -> Report {
    let mut report = Report::default();
    let database = match (db, db_error) {
        (Some(db), _) => match db.migration_counts().await {
            Ok((applied, known)) => DatabaseSeen::Reachable { applied, known },
            Err(e) => DatabaseSeen::Unreachable(format!("{e:#}")),
        },
        (None, Some(seen)) => seen.clone(),
        (None, None) => DatabaseSeen::Unreachable("not opened".into()),
    };
    report.push(CheckName::Database, judge_database(&database));
    let key_seen = seal_key_seen(db, key).await;
    report.push(
        CheckName::SealKey,
        judge_seal_key(
            &key_seen,
            config.is_postgres(),
            config.encryption_key.is_some(),
        ),
    );
    let installed = match app {
        Some(app) => app.installed_repositories(MAX_INSTALLED_REPOS).await.ok(),
        None => None,
    };
    let (policies, tools) = match &config.policy_repo {
        Some(repo) => {
            let protected = crate::policy_repo::store::protected_paths(config);
            stored_policies_seen(db, repo, installed, &protected).await
        }
        None => policies_seen(config, installed),
    };
    report.push(CheckName::Policies, judge_policies(&policies));
    report.push(CheckName::GitHubApp, judge_app(&app_seen(app).await));
    report.push(
        CheckName::WebhookSecret,
        judge_webhook_secret(config.webhook_secrets.len() + usize::from(app_secret(config))),
    );
    let terraform = terraform_seen(config, &tools).await;
    report.push(CheckName::Terraform, judge_terraform(&terraform));
    let sandbox = match config.sandbox {
        SandboxMode::None => None,
        SandboxMode::Bwrap => Some(sandbox_works(config).await),
    };
    report.push(CheckName::Sandbox, judge_sandbox(sandbox.as_ref()));
    let (info, warning) = crate::sandbox::limits_in_force();
    report.push(CheckName::Cgroups, judge_cgroups(&info, warning.as_deref()));
    let work_dir = config.work_dir.display().to_string();
    report.push(
        CheckName::Disk,
        judge_disk(&free_bytes(&config.work_dir), &work_dir),
    );
    report
}

/// A manifest-flow webhook secret kept in the data directory's credentials file counts too.
fn app_secret(config: &Config) -> bool {
    crate::github::AppCredentials::load(&config.data_dir)
        .ok()
        .flatten()
        .is_some_and(|c| c.webhook_secret.is_some())
}

async fn seal_key_seen(db: Option<&Db>, key: &KeySeen) -> SealKeySeen {
    match key {
        Err(e) => SealKeySeen::Unreadable(e.to_string()),
        Ok(None) => SealKeySeen::NotYetCreated,
        Ok(Some(key)) => {
            let stored = match db {
                Some(db) => {
                    crate::db::server_settings::get(db, crate::crypto::key_check::KEY_CHECK_SETTING)
                        .await
                        .ok()
                        .flatten()
                }
                None => None,
            };
            SealKeySeen::Loaded {
                fingerprint: key.fingerprint(),
                stored,
            }
        }
    }
}

/// What the policies need of Terraform: the releases they name, and whether some project
/// runs the server's own binary (assumed when the policies cannot be read).
struct PolicyTools {
    releases: Vec<Release>,
    server_binary: bool,
}

impl Default for PolicyTools {
    fn default() -> Self {
        PolicyTools {
            releases: vec![],
            server_binary: true,
        }
    }
}

/// The policy set as observed, and what it needs of Terraform.
type PoliciesAndReleases = (PoliciesSeen, PolicyTools);

fn policies_seen(config: &Config, installed: Option<Vec<String>>) -> PoliciesAndReleases {
    let dir = &config.policy_dir;
    let files = match crate::policy_repo::store::read_policy_dir(dir) {
        Ok(files) => files
            .iter()
            .filter(|(name, _)| !crate::policy::is_rego_file_name(name))
            .count(),
        Err(e) => {
            return (
                PoliciesSeen::Unreadable(format!("{e:#}")),
                PolicyTools::default(),
            )
        }
    };
    let protected = crate::policy_repo::store::protected_paths(config);
    match crate::policy_repo::store::load_dir_guarded(dir, &protected) {
        Err(e) => (
            PoliciesSeen::Unreadable(format!("{e:#}")),
            PolicyTools::default(),
        ),
        Ok(Err(problems)) => (
            PoliciesSeen::Problems(problems.iter().map(ToString::to_string).collect()),
            PolicyTools::default(),
        ),
        Ok(Ok(set)) => loaded(&set, dir.display().to_string(), files, installed),
    }
}

fn loaded(
    set: &crate::policy::PolicySet,
    source: String,
    files: usize,
    installed: Option<Vec<String>>,
) -> PoliciesAndReleases {
    let seen = PoliciesSeen::Loaded {
        source,
        files,
        installed: installed.map(|repos| {
            let covered = repos.iter().filter(|r| set.for_repo(r).is_some()).count();
            (repos.len(), covered)
        }),
    };
    let tools = PolicyTools {
        releases: set.releases().into_iter().collect(),
        server_binary: set.uses_server_terraform(),
    };
    (seen, tools)
}

/// The server's binary (unless a default release replaces it) and every release needed.
async fn terraform_seen(config: &Config, needs: &PolicyTools) -> TerraformSeen {
    let binary = match &config.terraform_release {
        Some(_) => None,
        None if !needs.server_binary => None,
        None => {
            let path = config.terraform.display().to_string();
            Some((path, terraform_version(&config.terraform).await))
        }
    };
    let mut wanted: Vec<Release> = config.terraform_release.iter().cloned().collect();
    wanted.extend(needs.releases.iter().cloned());
    wanted.sort();
    wanted.dedup();
    let mut releases = Vec::new();
    match crate::state::release_source(config) {
        Err(e) => releases.extend(
            wanted
                .iter()
                .map(|r| (r.to_string(), Err(format!("{e:#}")))),
        ),
        Ok(source) => {
            for r in wanted {
                let seen = source.check_available(&r).await.map_err(|e| e.to_string());
                releases.push((r.to_string(), seen));
            }
        }
    }
    TerraformSeen { binary, releases }
}

/// With `TFGATE_POLICY_REPO`: the last valid set stored in the database.
async fn stored_policies_seen(
    db: Option<&Db>,
    (owner, name): &(String, String),
    installed: Option<Vec<String>>,
    protected: &crate::policy::sources::ProtectedPaths,
) -> PoliciesAndReleases {
    use crate::policy_repo::{StoredPolicies, STORED_POLICIES_SETTING};
    let repo = format!("{owner}/{name}");
    let stored = match db {
        Some(db) => crate::db::server_settings::get(db, STORED_POLICIES_SETTING)
            .await
            .ok()
            .flatten()
            .and_then(|text| serde_json::from_str::<StoredPolicies>(&text).ok()),
        None => None,
    };
    let Some(stored) = stored else {
        return (PoliciesSeen::NotYetRead(repo), PolicyTools::default());
    };
    match stored.load(protected) {
        Err(problems) => (
            PoliciesSeen::Problems(problems.iter().map(ToString::to_string).collect()),
            PolicyTools::default(),
        ),
        Ok(set) => {
            let source = format!("{repo}@{}", &stored.sha[..stored.sha.len().min(7)]);
            loaded(&set, source, stored.files.len(), installed)
        }
    }
}

async fn app_seen(app: Option<&GitHubApp>) -> AppSeen {
    match app {
        None => AppSeen::NotConfigured,
        Some(app) => match app.check_credentials().await {
            Ok(slug) => AppSeen::Valid(slug),
            Err(e) => AppSeen::Refused(format!("{e:#}")),
        },
    }
}

/// The App as `serve` would load it: configuration, then the database, then the file.
async fn app_from_config(
    config: &Config,
    db: Option<&Db>,
    key: Option<&crate::crypto::SealKey>,
) -> anyhow::Result<Option<GitHubApp>> {
    use secrecy::SecretString;
    if let Some((id, pem)) = crate::config::app_key(config)? {
        let app = GitHubApp::new(id, config.app_slug.clone(), &pem, &config.github_api_url)?;
        return Ok(Some(app));
    }
    let stored = match (db, key) {
        (Some(db), Some(key)) => crate::github::credentials_store::load(db, key)
            .await
            .ok()
            .flatten(),
        _ => None,
    };
    let creds = match stored {
        Some(creds) => Some(creds),
        None => crate::github::AppCredentials::load(&config.data_dir)?,
    };
    creds
        .map(|c| {
            GitHubApp::new(
                c.id,
                c.slug,
                &SecretString::from(c.pem),
                &config.github_api_url,
            )
        })
        .transpose()
}

/// `terraform version`'s first line.
async fn terraform_version(terraform: &Path) -> Result<String, String> {
    let run = tokio::process::Command::new(terraform)
        .arg("version")
        .env("CHECKPOINT_DISABLE", "1")
        .kill_on_drop(true)
        .output();
    match tokio::time::timeout(COMMAND_TIMEOUT, run).await {
        Err(_) => Err("`terraform version` did not answer in 20 s".into()),
        Ok(Err(e)) => Err(e.to_string()),
        Ok(Ok(out)) if !out.status.success() => Err(format!("exited with {}", out.status)),
        Ok(Ok(out)) => Ok(String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .to_string()),
    }
}

/// Runs `/bin/true` in a sandbox like a run's (private network, the configured limits).
async fn sandbox_works(config: &Config) -> Result<(), String> {
    // The work directory's file system when it exists (a check creates nothing).
    let temp = std::env::temp_dir();
    let parent = if config.work_dir.is_dir() {
        &config.work_dir
    } else {
        &temp
    };
    let dir = tempfile::Builder::new()
        .prefix("doctor-")
        .tempdir_in(parent)
        .map_err(|e| format!("{}: {e}", parent.display()))?;
    let program = Path::new("/bin/true");
    let spec = SandboxSpec {
        workdir: dir.path().to_path_buf(),
        terraform_bin: program.to_path_buf(),
        plugin_cache: None,
        extra_ro_binds: vec![],
        rw_binds: vec![],
        env: BTreeMap::from([("PATH".to_string(), "/usr/bin:/bin".to_string())]),
        network: Network::None,
        limits: config.sandbox_limits,
        timeout: COMMAND_TIMEOUT,
        output_cap_bytes: 64 * 1024,
    };
    match run_sandboxed(&spec, SandboxMode::Bwrap, program, &[], |_| {}).await {
        Ok(out) if out.status == ExitKind::Exited(0) => Ok(()),
        Ok(out) => Err(format!(
            "{:?}: {}",
            out.status,
            out.stderr_tail.lines().last().unwrap_or("")
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// Free bytes on the file system holding `dir` (or its nearest existing ancestor).
fn free_bytes(dir: &Path) -> Result<u64, String> {
    use std::os::unix::ffi::OsStrExt;
    let existing = dir
        .ancestors()
        .find(|p| p.exists())
        .ok_or_else(|| "no existing ancestor".to_string())?;
    let path = std::ffi::CString::new(existing.as_os_str().as_bytes())
        .map_err(|_| "path contains NUL".to_string())?;
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: a valid NUL-terminated path and a zeroed out-parameter.
    if unsafe { libc::statvfs(path.as_ptr(), &mut stat) } != 0 {
        return Err(std::io::Error::last_os_error().to_string());
    }
    Ok(stat.f_bavail as u64 * stat.f_frsize as u64)
}
