//! Server configuration: command-line flags, then `TFGATE_*` environment variables, then an
//! optional `tfgate.toml`, then defaults. Unknown keys in the file are rejected.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use secrecy::SecretString;
use serde::Deserialize;

/// Values that may come from flags or environment variables (clap fills these).
#[derive(Debug, Default, Clone, clap::Args)]
pub struct ConfigArgs {
    /// Path of an optional TOML configuration file.
    #[arg(long, env = "TFGATE_CONFIG", global = true)]
    pub config: Option<PathBuf>,
    /// Address the HTTP server listens on.
    #[arg(long, env = "TFGATE_ADDR", global = true)]
    pub addr: Option<SocketAddr>,
    /// Directory for the SQLite database, App credentials and keys.
    #[arg(long, env = "TFGATE_DATA_DIR", global = true)]
    pub data_dir: Option<PathBuf>,
    /// Database URL: `sqlite://…` (default, in the data directory) or `postgres://…`.
    #[arg(long, env = "DATABASE_URL", global = true, hide_env_values = true)]
    pub database_url: Option<String>,
    /// Webhook secret(s), comma-separated; any of them is accepted (rotation).
    #[arg(
        long,
        env = "TFGATE_WEBHOOK_SECRET",
        global = true,
        hide_env_values = true
    )]
    pub webhook_secret: Option<String>,
    /// GitHub App id.
    #[arg(long, env = "TFGATE_APP_ID", global = true)]
    pub app_id: Option<u64>,
    /// GitHub App slug (the `@name` of the bot).
    #[arg(long, env = "TFGATE_APP_SLUG", global = true)]
    pub app_slug: Option<String>,
    /// Path of the GitHub App private key (PEM).
    #[arg(long, env = "TFGATE_PRIVATE_KEY_PATH", global = true)]
    pub private_key_path: Option<PathBuf>,
    /// The GitHub App private key itself (PEM), for platforms that hand secrets over as
    /// environment variables. Meant for the environment: a flag would show in `ps`.
    #[arg(
        long,
        env = "TFGATE_PRIVATE_KEY",
        global = true,
        hide = true,
        hide_env_values = true
    )]
    pub private_key: Option<String>,
    /// GitHub REST API base URL (GitHub Enterprise: `https://HOST/api/v3`).
    #[arg(long, env = "TFGATE_GITHUB_API_URL", global = true)]
    pub github_api_url: Option<String>,
    /// GitHub web URL, used by the App-manifest setup flow.
    #[arg(long, env = "TFGATE_GITHUB_URL", global = true)]
    pub github_url: Option<String>,
    /// Public URL of this server (webhook and setup callback URLs are built from it).
    #[arg(long, env = "TFGATE_PUBLIC_URL", global = true)]
    pub public_url: Option<String>,
    /// Number of embedded workers `serve` runs (0: none; run `tfgate worker` separately).
    #[arg(long, env = "TFGATE_WORKERS", global = true)]
    pub workers: Option<usize>,
    /// Largest webhook body accepted, in bytes.
    #[arg(long, env = "TFGATE_MAX_BODY_BYTES", global = true)]
    pub max_body_bytes: Option<usize>,
    /// Log format: `text` or `json`.
    #[arg(long, env = "TFGATE_LOG_FORMAT", global = true)]
    pub log_format: Option<String>,
    /// Directory of server-side policy files.
    #[arg(long, env = "TFGATE_POLICY_DIR", global = true)]
    pub policy_dir: Option<PathBuf>,
    /// Directory whose templates override the embedded comment templates.
    #[arg(long, env = "TFGATE_TEMPLATE_DIR", global = true)]
    pub template_dir: Option<PathBuf>,
    /// Job lease in seconds; a job whose worker stops heartbeating is re-claimed after it.
    #[arg(long, env = "TFGATE_JOB_LEASE_SECS", global = true)]
    pub job_lease_secs: Option<u64>,
    /// Attempts before a job that keeps failing transiently is given up.
    #[arg(long, env = "TFGATE_JOB_MAX_ATTEMPTS", global = true)]
    pub job_max_attempts: Option<i64>,
    /// The Terraform (or OpenTofu) binary.
    #[arg(long, env = "TFGATE_TERRAFORM", global = true)]
    pub terraform: Option<PathBuf>,
    /// A Terraform CLI configuration file given to every run (e.g. a provider mirror).
    #[arg(long, env = "TFGATE_TF_CLI_CONFIG", global = true)]
    pub tf_cli_config: Option<PathBuf>,
    /// A provider filesystem mirror directory, bound read-only into the sandbox.
    #[arg(long, env = "TFGATE_PROVIDER_MIRROR", global = true)]
    pub provider_mirror: Option<PathBuf>,
    /// `bwrap` (default) or `none` (development only: no isolation, warns on every run).
    #[arg(long, env = "TFGATE_SANDBOX", global = true)]
    pub sandbox: Option<String>,
    /// Key sealing plan files and raw logs (32 bytes, base64); default: a key file created
    /// (mode 0600) in the data directory.
    #[arg(
        long,
        env = "TFGATE_ENCRYPTION_KEY",
        global = true,
        hide_env_values = true
    )]
    pub encryption_key: Option<String>,
    /// AWS region for STS and CloudTrail calls.
    #[arg(long, env = "TFGATE_AWS_REGION", global = true)]
    pub aws_region: Option<String>,
    /// Override every AWS endpoint (tests: moto); unset for real AWS.
    #[arg(long, env = "TFGATE_AWS_ENDPOINT_URL", global = true)]
    pub aws_endpoint_url: Option<String>,
    /// Where run workdirs are created (default: DATA_DIR/work).
    #[arg(long, env = "TFGATE_WORK_DIR", global = true)]
    pub work_dir: Option<PathBuf>,
    /// Override the CloudTrail endpoint only (tests: a local fake); default: as other AWS calls.
    #[arg(long, env = "TFGATE_CLOUDTRAIL_ENDPOINT_URL", global = true)]
    pub cloudtrail_endpoint_url: Option<String>,
    /// Seconds between CloudTrail polls, comma-separated (default 30,60,90,120,180,180,180,60).
    #[arg(long, env = "TFGATE_ENRICH_SCHEDULE", global = true)]
    pub enrich_schedule: Option<String>,
    /// Days finished jobs, their deliveries and old runs' plan files and logs are kept; 0 keeps
    /// everything (default 30, at least 8).
    #[arg(long, env = "TFGATE_RETENTION_DAYS", global = true)]
    pub retention_days: Option<u32>,
}

/// The optional `tfgate.toml`; keys are the flag names with `_` (e.g. `data_dir`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    addr: Option<SocketAddr>,
    data_dir: Option<PathBuf>,
    database_url: Option<String>,
    webhook_secret: Option<String>,
    app_id: Option<u64>,
    app_slug: Option<String>,
    private_key_path: Option<PathBuf>,
    github_api_url: Option<String>,
    github_url: Option<String>,
    public_url: Option<String>,
    workers: Option<usize>,
    max_body_bytes: Option<usize>,
    log_format: Option<String>,
    policy_dir: Option<PathBuf>,
    template_dir: Option<PathBuf>,
    job_lease_secs: Option<u64>,
    job_max_attempts: Option<i64>,
    terraform: Option<PathBuf>,
    tf_cli_config: Option<PathBuf>,
    provider_mirror: Option<PathBuf>,
    sandbox: Option<String>,
    encryption_key: Option<String>,
    aws_region: Option<String>,
    aws_endpoint_url: Option<String>,
    work_dir: Option<PathBuf>,
    cloudtrail_endpoint_url: Option<String>,
    enrich_schedule: Option<String>,
    retention_days: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Text,
    Json,
}

/// The resolved configuration.
#[derive(Debug, Clone)]
pub struct Config {
    pub addr: SocketAddr,
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
    pub max_body_bytes: usize,
    pub log_format: LogFormat,
    pub policy_dir: PathBuf,
    pub template_dir: Option<PathBuf>,
    pub job_lease_secs: u64,
    pub job_max_attempts: i64,
    pub terraform: PathBuf,
    pub tf_cli_config: Option<PathBuf>,
    pub provider_mirror: Option<PathBuf>,
    pub sandbox: crate::sandbox::SandboxMode,
    pub encryption_key: Option<SecretString>,
    pub aws_region: String,
    pub aws_endpoint_url: Option<String>,
    pub work_dir: PathBuf,
    pub cloudtrail_endpoint_url: Option<String>,
    /// Delays between CloudTrail polls (about 15 minutes in all by default).
    pub enrich_schedule: Vec<std::time::Duration>,
    /// Days rows are kept before pruning (`None`: forever); see [`crate::db::retention`].
    pub retention_days: Option<u32>,
}

pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";
pub const DEFAULT_MAX_BODY_BYTES: usize = 5 * 1024 * 1024;

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
        let data_dir = args
            .data_dir
            .clone()
            .or(file.data_dir)
            .unwrap_or_else(|| PathBuf::from("data"));
        let database_url = args
            .database_url
            .clone()
            .or(file.database_url)
            .unwrap_or_else(|| default_sqlite_url(&data_dir));
        let secrets = args.webhook_secret.clone().or(file.webhook_secret);
        let log_format = match args
            .log_format
            .clone()
            .or(file.log_format)
            .as_deref()
            .unwrap_or("text")
        {
            "text" => LogFormat::Text,
            "json" => LogFormat::Json,
            other => bail!("TFGATE_LOG_FORMAT must be `text` or `json`, not `{other}`"),
        };
        let job_lease_secs = args.job_lease_secs.or(file.job_lease_secs).unwrap_or(60);
        if job_lease_secs < 2 {
            bail!("job lease must be at least 2 seconds");
        }
        let sandbox = match args
            .sandbox
            .clone()
            .or(file.sandbox)
            .as_deref()
            .unwrap_or("bwrap")
        {
            "bwrap" => crate::sandbox::SandboxMode::Bwrap,
            "none" => crate::sandbox::SandboxMode::None,
            other => bail!("TFGATE_SANDBOX must be `bwrap` or `none`, not `{other}`"),
        };
        let work_dir = args
            .work_dir
            .clone()
            .or(file.work_dir)
            .unwrap_or_else(|| data_dir.join("work"));
        let enrich_schedule = match args.enrich_schedule.clone().or(file.enrich_schedule) {
            Some(list) => list
                .split(',')
                .map(|x| x.trim().parse::<u64>().map(std::time::Duration::from_secs))
                .collect::<Result<Vec<_>, _>>()
                .context("TFGATE_ENRICH_SCHEDULE must be comma-separated seconds")?,
            None => crate::enrich::backoff_schedule(),
        };
        let retention_days = crate::db::retention::retention_days(
            args.retention_days
                .or(file.retention_days)
                .unwrap_or(crate::db::retention::DEFAULT_RETENTION_DAYS),
        )
        .map_err(|e| anyhow::anyhow!("TFGATE_RETENTION_DAYS: {e}"))?;
        Ok(Config {
            retention_days,
            cloudtrail_endpoint_url: args
                .cloudtrail_endpoint_url
                .clone()
                .or(file.cloudtrail_endpoint_url),
            enrich_schedule,
            encryption_key: args
                .encryption_key
                .clone()
                .or(file.encryption_key)
                .map(SecretString::from),
            aws_region: args
                .aws_region
                .clone()
                .or(file.aws_region)
                .unwrap_or_else(|| "us-east-1".into()),
            aws_endpoint_url: args.aws_endpoint_url.clone().or(file.aws_endpoint_url),
            work_dir,
            terraform: args
                .terraform
                .clone()
                .or(file.terraform)
                .unwrap_or_else(|| PathBuf::from("terraform")),
            tf_cli_config: args.tf_cli_config.clone().or(file.tf_cli_config),
            provider_mirror: args.provider_mirror.clone().or(file.provider_mirror),
            sandbox,
            addr: args
                .addr
                .or(file.addr)
                .unwrap_or_else(|| DEFAULT_ADDR.parse().expect("valid default address")),
            data_dir,
            database_url,
            webhook_secrets: split_secrets(secrets.as_deref().unwrap_or("")),
            app_id: args.app_id.or(file.app_id),
            app_slug: args
                .app_slug
                .clone()
                .or(file.app_slug)
                .unwrap_or_else(|| "tfgate".into()),
            private_key_path: args.private_key_path.clone().or(file.private_key_path),
            private_key: args
                .private_key
                .as_deref()
                .filter(|pem| !pem.trim().is_empty())
                .map(|pem| SecretString::from(pem_with_newlines(pem))),
            github_api_url: trim_url(
                args.github_api_url
                    .clone()
                    .or(file.github_api_url)
                    .unwrap_or_else(|| "https://api.github.com".into()),
            ),
            github_url: trim_url(
                args.github_url
                    .clone()
                    .or(file.github_url)
                    .unwrap_or_else(|| "https://github.com".into()),
            ),
            public_url: crate::github::manifest::checked_public_url(
                args.public_url.clone().or(file.public_url).map(trim_url),
            )?,
            workers: args.workers.or(file.workers).unwrap_or(2),
            max_body_bytes: args
                .max_body_bytes
                .or(file.max_body_bytes)
                .unwrap_or(DEFAULT_MAX_BODY_BYTES),
            log_format,
            policy_dir: args
                .policy_dir
                .clone()
                .or(file.policy_dir)
                .unwrap_or_else(|| PathBuf::from("policies")),
            template_dir: args.template_dir.clone().or(file.template_dir),
            job_lease_secs,
            job_max_attempts: args.job_max_attempts.or(file.job_max_attempts).unwrap_or(5),
        })
    }

    pub fn is_postgres(&self) -> bool {
        self.database_url.starts_with("postgres://")
            || self.database_url.starts_with("postgresql://")
    }
}

fn read_config_file(path: &Path) -> Result<ConfigFile> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading config file {}", path.display()))?;
    toml::from_str(&text).with_context(|| format!("invalid config file {}", path.display()))
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

#[cfg(test)]
mod tests {
    use super::*;
    use secrecy::ExposeSecret;

    #[test]
    fn secrets_split_on_commas_and_drop_blanks() {
        let s = split_secrets(" a, ,b ,");
        let v: Vec<&str> = s.iter().map(|x| x.expose_secret()).collect();
        assert_eq!(v, vec!["a", "b"]);
    }

    fn key_config(app_id: Option<u64>, pem: Option<&str>, path: Option<&str>) -> Config {
        Config::resolve(&ConfigArgs {
            data_dir: Some("/tmp/x".into()),
            app_id,
            private_key: pem.map(str::to_string),
            private_key_path: path.map(PathBuf::from),
            ..Default::default()
        })
        .unwrap()
    }

    #[test]
    fn the_app_key_comes_from_the_environment_or_a_file_never_half_configured() {
        use secrecy::ExposeSecret;
        let file = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/github/test-app-key.pem"
        );
        let pem = std::fs::read_to_string(file).unwrap();
        let from_file = app_key(&key_config(Some(7), None, Some(file)))
            .unwrap()
            .unwrap();
        assert_eq!(
            (from_file.0, from_file.1.expose_secret()),
            (7, pem.as_str())
        );
        let from_env = app_key(&key_config(Some(7), Some(&pem), None))
            .unwrap()
            .unwrap();
        assert_eq!(from_env.1.expose_secret(), pem);
        // One line with `\n` escapes, as some secret stores keep a PEM.
        let escaped = pem.trim_end().replace('\n', "\\n");
        let from_one_line = app_key(&key_config(Some(7), Some(&escaped), None))
            .unwrap()
            .unwrap();
        assert_eq!(from_one_line.1.expose_secret(), pem.trim_end());
        assert!(app_key(&key_config(None, None, None)).unwrap().is_none());
        assert!(app_key(&key_config(None, Some("  "), None))
            .unwrap()
            .is_none());
        for (config, says) in [
            (key_config(Some(7), None, None), "no private key"),
            (key_config(None, Some(&pem), None), "TFGATE_APP_ID is not"),
            (key_config(Some(7), Some(&pem), Some(file)), "not both"),
            (
                key_config(Some(7), None, Some("/nonexistent/key.pem")),
                "/nonexistent/key.pem",
            ),
        ] {
            let err = format!("{:#}", app_key(&config).unwrap_err());
            assert!(err.contains(says), "{err}");
            assert!(
                !err.contains("PRIVATE KEY-----"),
                "the key leaked into: {err}"
            );
        }
    }

    #[test]
    fn defaults_use_sqlite_in_data_dir() {
        let c = Config::resolve(&ConfigArgs {
            data_dir: Some("/tmp/x".into()),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(c.database_url, "sqlite:///tmp/x/tfgate.db?mode=rwc");
        assert!(!c.is_postgres());
        assert_eq!(c.addr.to_string(), DEFAULT_ADDR);
    }

    #[test]
    fn unknown_keys_in_file_are_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("tfgate.toml");
        std::fs::write(&p, "addr = \"127.0.0.1:1\"\nbogus = 1\n").unwrap();
        let err = Config::resolve(&ConfigArgs {
            config: Some(p),
            ..Default::default()
        })
        .unwrap_err();
        assert!(
            format!("{err:#}").contains("unknown field `bogus`"),
            "{err:#}"
        );
    }

    #[test]
    fn flags_win_over_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("tfgate.toml");
        std::fs::write(&p, "workers = 7\napp_slug = \"filebot\"\n").unwrap();
        let c = Config::resolve(&ConfigArgs {
            config: Some(p),
            workers: Some(3),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(c.workers, 3);
        assert_eq!(c.app_slug, "filebot");
    }
}
