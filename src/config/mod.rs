//! Server configuration: command-line flags, then `TFGATE_*` environment variables, then an
//! optional `tfgate.toml`, then defaults. Unknown keys in the file are rejected.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use secrecy::SecretString;

mod args;
#[cfg(test)]
mod tests;
mod values;

pub use args::ConfigArgs;
use args::ConfigFile;
pub use values::{DEFAULT_GITHUB_TIMEOUT, DEFAULT_RETENTION_DAYS, MIN_RETENTION_DAYS};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Text,
    Json,
}

/// The resolved configuration.
#[derive(Debug, Clone)]
pub struct Config {
    pub addr: SocketAddr,
    /// Where `/metrics` is served: never on the public `addr` (its labels name repositories
    /// and projects).
    pub metrics_addr: SocketAddr,
    pub data_dir: PathBuf,
    pub database_url: String,
    pub webhook_secrets: Vec<SecretString>,
    pub app_id: Option<u64>,
    pub app_slug: String,
    pub private_key_path: Option<PathBuf>,
    /// `TFGATE_PRIVATE_KEY`: the PEM itself.
    pub private_key: Option<SecretString>,
    pub github_api_url: String,
    pub github_url: String,
    pub public_url: Option<String>,
    pub workers: usize,
    /// Roots of one `/plan` planned at once (`--max-parallel-roots`).
    pub max_parallel_roots: usize,
    pub max_body_bytes: usize,
    pub log_format: LogFormat,
    pub policy_dir: PathBuf,
    /// `TFGATE_POLICY_REPO`: policies from this admin repository instead of `policy_dir`.
    pub policy_repo: Option<(String, String)>,
    pub template_dir: Option<PathBuf>,
    pub job_lease_secs: u64,
    pub job_max_attempts: i64,
    pub terraform: PathBuf,
    /// The release projects use when they name none (instead of `terraform`).
    pub terraform_release: Option<crate::tool_release::Release>,
    /// Where releases are downloaded from and which keys must sign them.
    pub releases: ReleaseSettings,
    pub tf_cli_config: Option<PathBuf>,
    pub provider_mirror: Option<PathBuf>,
    /// The provider cache (`provider_cache`); `None` when switched off.
    pub provider_cache: Option<PathBuf>,
    pub sandbox: crate::sandbox::SandboxMode,
    /// Whether a policy's `network: shared` is honoured.
    pub allow_host_network: bool,
    /// The binary run inside egress sandboxes as `tfgate sandbox-relay`.
    pub sandbox_relay: PathBuf,
    /// Per-run resource limits (`sandbox_memory_mb`, `sandbox_pids`, `sandbox_cpus`,
    /// `sandbox_workdir_mb`); the rest of [`crate::sandbox::Limits`] keeps its defaults.
    pub sandbox_limits: crate::sandbox::Limits,
    /// Most bytes one Terraform step may print (`sandbox_output_mb`).
    pub sandbox_output_cap_bytes: usize,
    pub encryption_key: Option<SecretString>,
    pub aws_region: String,
    pub aws_endpoint_url: Option<String>,
    pub work_dir: PathBuf,
    pub cloudtrail_endpoint_url: Option<String>,
    /// The App's OAuth client for `/ui` sign-in (`None`: the manifest flow's, if stored).
    pub oauth_client_id: Option<String>,
    pub oauth_client_secret: Option<SecretString>,
    /// Delays between CloudTrail polls (about 15 minutes in all by default).
    pub enrich_schedule: Vec<std::time::Duration>,
    /// Days rows are kept before pruning (`None`: forever); see `db::retention` and
    /// [`MIN_RETENTION_DAYS`].
    pub retention_days: Option<u32>,
    /// How long one GitHub API call may take ([`DEFAULT_GITHUB_TIMEOUT`]).
    pub github_timeout: std::time::Duration,
}

pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";
pub const DEFAULT_METRICS_ADDR: &str = "127.0.0.1:9090";

fn default_metrics_addr() -> SocketAddr {
    DEFAULT_METRICS_ADDR
        .parse()
        .expect("valid default metrics address")
}
pub const DEFAULT_MAX_BODY_BYTES: usize = 5 * 1024 * 1024;

/// `--max-parallel-roots`, by default the embedded workers (4 when `serve` runs none).
fn max_parallel_roots(set: Option<usize>, workers: Option<usize>) -> usize {
    set.unwrap_or(match workers.unwrap_or(2) {
        0 => 4,
        n => n,
    })
}

impl Config {
    /// Resolve flags/env (already in `args`) over the config file over defaults.
    pub fn resolve(args: &ConfigArgs) -> Result<Config> {
        let file_path = args.config.clone().or_else(|| {
            let p = PathBuf::from("tfgate.toml");
            p.exists().then_some(p)
        });
        let file = match &file_path {
            Some(p) => read_config_file(p)?,
            None => ConfigFile::default(),
        };
        let v = args.over(file);
        let data_dir = v.data_dir.clone().unwrap_or_else(|| PathBuf::from("data"));
        let (sandbox_limits, sandbox_output_cap_bytes) = sandbox_limits(&v)?;
        let (terraform_release, releases) = (terraform_release(&v)?, release_settings(&v)?);
        Ok(Config {
            terraform_release,
            releases,
            sandbox_limits,
            sandbox_output_cap_bytes,
            retention_days: retention_days(&v)?,
            github_timeout: github_timeout(v.github_timeout_secs)?,
            cloudtrail_endpoint_url: v.cloudtrail_endpoint_url,
            oauth_client_id: v.oauth_client_id,
            oauth_client_secret: v.oauth_client_secret.map(SecretString::from),
            enrich_schedule: enrich_schedule(v.enrich_schedule.as_deref())?,
            encryption_key: v.encryption_key.map(SecretString::from),
            aws_region: v.aws_region.unwrap_or_else(|| "us-east-1".into()),
            aws_endpoint_url: v.aws_endpoint_url,
            work_dir: v.work_dir.unwrap_or_else(|| data_dir.join("work")),
            terraform: v
                .terraform
                .clone()
                .unwrap_or_else(|| PathBuf::from("terraform")),
            tf_cli_config: v.tf_cli_config,
            provider_mirror: v.provider_mirror,
            provider_cache: match v.provider_cache {
                Some(p) if p.as_os_str() == "off" => None,
                Some(p) => Some(p),
                None => Some(data_dir.join("provider-cache")),
            },
            sandbox: sandbox_mode(v.sandbox.as_deref())?,
            allow_host_network: v.allow_host_network.unwrap_or(false),
            sandbox_relay: match v.sandbox_relay {
                Some(path) => path,
                None => std::env::current_exe().context("locating the tfgate binary")?,
            },
            addr: v
                .addr
                .unwrap_or_else(|| DEFAULT_ADDR.parse().expect("valid default address")),
            metrics_addr: v.metrics_addr.unwrap_or_else(default_metrics_addr),
            database_url: v
                .database_url
                .unwrap_or_else(|| default_sqlite_url(&data_dir)),
            data_dir,
            webhook_secrets: split_secrets(v.webhook_secret.as_deref().unwrap_or("")),
            app_id: v.app_id,
            app_slug: v.app_slug.unwrap_or_else(|| "tfgate".into()),
            private_key_path: v.private_key_path,
            private_key: args
                .private_key
                .as_deref()
                .filter(|pem| !pem.trim().is_empty())
                .map(|pem| SecretString::from(pem_with_newlines(pem))),
            github_api_url: trim_url(
                v.github_api_url
                    .unwrap_or_else(|| "https://api.github.com".into()),
            ),
            github_url: trim_url(v.github_url.unwrap_or_else(|| "https://github.com".into())),
            public_url: values::checked_public_url(v.public_url.map(trim_url))?,
            workers: v.workers.unwrap_or(2),
            max_parallel_roots: max_parallel_roots(v.max_parallel_roots, v.workers),
            max_body_bytes: v.max_body_bytes.unwrap_or(DEFAULT_MAX_BODY_BYTES),
            log_format: log_format(v.log_format.as_deref())?,
            policy_repo: policy_repo(v.policy_repo.as_deref(), v.policy_dir.is_some())?,
            policy_dir: v.policy_dir.unwrap_or_else(|| PathBuf::from("policies")),
            template_dir: v.template_dir,
            job_lease_secs: job_lease_secs(v.job_lease_secs)?,
            job_max_attempts: v.job_max_attempts.unwrap_or(5),
        })
    }

    pub fn is_postgres(&self) -> bool {
        self.database_url.starts_with("postgres://")
            || self.database_url.starts_with("postgresql://")
    }
}

fn github_timeout(secs: Option<u64>) -> Result<std::time::Duration> {
    match secs {
        None => Ok(DEFAULT_GITHUB_TIMEOUT),
        Some(0) => bail!("TFGATE_GITHUB_TIMEOUT_SECS must be at least 1"),
        Some(s) => Ok(std::time::Duration::from_secs(s)),
    }
}

fn read_config_file(path: &Path) -> Result<ConfigFile> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading config file {}", path.display()))?;
    toml::from_str(&text).with_context(|| format!("invalid config file {}", path.display()))
}

fn log_format(value: Option<&str>) -> Result<LogFormat> {
    match value.unwrap_or("text") {
        "text" => Ok(LogFormat::Text),
        "json" => Ok(LogFormat::Json),
        other => bail!("TFGATE_LOG_FORMAT must be `text` or `json`, not `{other}`"),
    }
}

const MIB: u64 = 1024 * 1024;

/// The per-run limits from `sandbox_*` settings: a size in MiB (0: no limit), processes (0:
/// no limit), CPUs as a decimal (0: no limit); unset ones keep [`crate::sandbox::Limits`]'
/// defaults, and the output cap defaults to 256 MiB.
fn sandbox_limits(v: &ConfigFile) -> Result<(crate::sandbox::Limits, usize)> {
    let defaults = crate::sandbox::Limits::default();
    let mib = |value: Option<u64>, default: Option<u64>| match value {
        Some(0) => None,
        Some(n) => Some(n.saturating_mul(MIB)),
        None => default,
    };
    let cpu_millis = match v.sandbox_cpus {
        None => defaults.cpu_millis,
        Some(0.0) => None,
        Some(cpus) if cpus.is_finite() && (0.01..=1024.0).contains(&cpus) => {
            Some((cpus * 1000.0).round() as u64)
        }
        Some(cpus) => bail!("sandbox_cpus must be 0 or between 0.01 and 1024, not {cpus}"),
    };
    let output_mb = v.sandbox_output_mb.unwrap_or(256);
    if output_mb == 0 {
        bail!("sandbox_output_mb must be at least 1");
    }
    let limits = crate::sandbox::Limits {
        memory_bytes: mib(v.sandbox_memory_mb, defaults.memory_bytes),
        max_pids: match v.sandbox_pids {
            Some(0) => None,
            Some(n) => Some(n),
            None => defaults.max_pids,
        },
        cpu_millis,
        workdir_bytes: mib(v.sandbox_workdir_mb, defaults.workdir_bytes),
        ..defaults
    };
    Ok((
        limits,
        usize::try_from(output_mb.saturating_mul(MIB)).unwrap_or(usize::MAX),
    ))
}

/// `--release-url` and `--release-keys` (the armored keys themselves, read from a file
/// when the value is a path).
#[derive(Debug, Clone, Default)]
pub struct ReleaseSettings {
    pub mirror: Option<String>,
    pub keys: Option<String>,
}

fn terraform_release(v: &ConfigFile) -> Result<Option<crate::tool_release::Release>> {
    use crate::tool_release::{release, Tool};
    match (&v.terraform_version, &v.opentofu_version) {
        (Some(_), Some(_)) => {
            bail!("set TFGATE_TERRAFORM_VERSION or TFGATE_OPENTOFU_VERSION, not both")
        }
        (Some(t), None) => release(Tool::Terraform, t)
            .map(Some)
            .map_err(anyhow::Error::msg),
        (None, Some(o)) => release(Tool::OpenTofu, o)
            .map(Some)
            .map_err(anyhow::Error::msg),
        (None, None) => Ok(None),
    }
}

fn release_settings(v: &ConfigFile) -> Result<ReleaseSettings> {
    let mirror = match v.release_url.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(url) if url.starts_with("https://") || url.starts_with("http://") => {
            Some(url.trim_end_matches('/').to_string())
        }
        Some(url) => bail!("TFGATE_RELEASE_URL must be an http(s) URL, not `{url}`"),
    };
    let keys = match v.release_keys.as_deref() {
        None => None,
        Some(text) if text.contains("-----BEGIN PGP PUBLIC KEY BLOCK-----") => Some(text.into()),
        Some(path) => Some(
            std::fs::read_to_string(path)
                .with_context(|| format!("reading TFGATE_RELEASE_KEYS file {path}"))?,
        ),
    };
    if let Some(text) = &keys {
        crate::tool_release::Keyring::from_armored(text)
            .map_err(|e| anyhow::anyhow!("TFGATE_RELEASE_KEYS: {e}"))?;
    }
    Ok(ReleaseSettings { mirror, keys })
}

fn sandbox_mode(value: Option<&str>) -> Result<crate::sandbox::SandboxMode> {
    match value.unwrap_or("bwrap") {
        "bwrap" => Ok(crate::sandbox::SandboxMode::Bwrap),
        "none" => Ok(crate::sandbox::SandboxMode::None),
        other => bail!("TFGATE_SANDBOX must be `bwrap` or `none`, not `{other}`"),
    }
}

fn job_lease_secs(value: Option<u64>) -> Result<u64> {
    let secs = value.unwrap_or(60);
    if secs < 2 {
        bail!("job lease must be at least 2 seconds");
    }
    Ok(secs)
}

fn enrich_schedule(value: Option<&str>) -> Result<Vec<std::time::Duration>> {
    match value {
        Some(list) => list
            .split(',')
            .map(|x| x.trim().parse::<u64>().map(std::time::Duration::from_secs))
            .collect::<Result<Vec<_>, _>>()
            .context("TFGATE_ENRICH_SCHEDULE must be comma-separated seconds"),
        None => Ok(crate::enrich::backoff_schedule()),
    }
}

fn retention_days(v: &ConfigFile) -> Result<Option<u32>> {
    values::retention_days(v.retention_days.unwrap_or(DEFAULT_RETENTION_DAYS))
        .map_err(|e| anyhow::anyhow!("TFGATE_RETENTION_DAYS: {e}"))
}

fn default_sqlite_url(data_dir: &Path) -> String {
    format!("sqlite://{}?mode=rwc", data_dir.join("tfgate.db").display())
}

fn trim_url(s: String) -> String {
    s.trim_end_matches('/').to_string()
}

/// A PEM given in one line with `\n` escapes (as some secret stores keep it) gets its line
/// breaks back; one with real line breaks is kept as it is.
fn pem_with_newlines(pem: &str) -> String {
    if pem.contains('\n') {
        pem.to_string()
    } else {
        pem.replace("\\n", "\n")
    }
}

/// Where the App's private key comes from, checked: an App id needs exactly one key source
/// and a key needs an App id. `None`: no App configured here (the manifest flow's file may
/// hold one).
/// `TFGATE_POLICY_REPO`, checked; it and `TFGATE_POLICY_DIR` are alternatives.
fn policy_repo(text: Option<&str>, dir_set: bool) -> Result<Option<(String, String)>> {
    let Some(text) = text.filter(|t| !t.trim().is_empty()) else {
        return Ok(None);
    };
    if dir_set {
        bail!("set TFGATE_POLICY_REPO or TFGATE_POLICY_DIR, not both");
    }
    values::parse_policy_repo(text)
        .map(Some)
        .map_err(anyhow::Error::msg)
}

pub fn app_key(config: &Config) -> Result<Option<(u64, SecretString)>> {
    let key = match (&config.private_key, &config.private_key_path) {
        (Some(_), Some(_)) => {
            bail!("set TFGATE_PRIVATE_KEY or TFGATE_PRIVATE_KEY_PATH, not both")
        }
        (Some(pem), None) => Some(pem.clone()),
        (None, Some(path)) => Some(SecretString::from(
            std::fs::read_to_string(path)
                .with_context(|| format!("reading the App private key {}", path.display()))?,
        )),
        (None, None) => None,
    };
    match (config.app_id, key) {
        (Some(id), Some(key)) => Ok(Some((id, key))),
        (Some(_), None) => bail!(
            "TFGATE_APP_ID is set but no private key: set TFGATE_PRIVATE_KEY_PATH (a PEM file) \
             or TFGATE_PRIVATE_KEY (the PEM itself)"
        ),
        (None, Some(_)) => bail!("a GitHub App private key is configured but TFGATE_APP_ID is not"),
        (None, None) => Ok(None),
    }
}

/// Split a comma-separated secret list, dropping empty entries and surrounding spaces.
pub fn split_secrets(list: &str) -> Vec<SecretString> {
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| SecretString::from(s.to_string()))
        .collect()
}
