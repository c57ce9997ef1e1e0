//! The configuration's sources: flags / environment variables (clap) and the optional
//! `tfgate.toml`, and the layering of the first over the second.

use std::net::SocketAddr;
use std::path::PathBuf;

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
    /// Address `/metrics` is served on, apart from the public port (default 127.0.0.1:9090).
    #[arg(long, env = "TFGATE_METRICS_ADDR", global = true)]
    pub metrics_addr: Option<SocketAddr>,
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
    /// Roots of one `/plan` planned at once, as parts any worker can take (default: the number
    /// of embedded workers, or 4 when `serve` runs none and `tfgate worker`s do the work).
    #[arg(long, env = "TFGATE_MAX_PARALLEL_ROOTS", global = true)]
    pub max_parallel_roots: Option<usize>,
    /// Largest webhook body accepted, in bytes.
    #[arg(long, env = "TFGATE_MAX_BODY_BYTES", global = true)]
    pub max_body_bytes: Option<usize>,
    /// Log format: `text` or `json`.
    #[arg(long, env = "TFGATE_LOG_FORMAT", global = true)]
    pub log_format: Option<String>,
    /// Directory of server-side policy files.
    #[arg(long, env = "TFGATE_POLICY_DIR", global = true)]
    pub policy_dir: Option<PathBuf>,
    /// The admin repository (`OWNER/NAME`) whose default branch's `policies/` folder holds
    /// the policies, read through the App (instead of the policy directory).
    #[arg(long, env = "TFGATE_POLICY_REPO", global = true)]
    pub policy_repo: Option<String>,
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
    /// The Terraform release projects use when they name none, installed on demand
    /// (`1.9.8`); instead of a binary.
    #[arg(long, env = "TFGATE_TERRAFORM_VERSION", global = true)]
    pub terraform_version: Option<String>,
    /// The OpenTofu release projects use when they name none, installed on demand (`1.8.1`).
    #[arg(long, env = "TFGATE_OPENTOFU_VERSION", global = true)]
    pub opentofu_version: Option<String>,
    /// A mirror of Terraform/OpenTofu releases (`URL/terraform/1.9.8/…`,
    /// `URL/opentofu/1.8.1/…`). Default: the official release sites.
    #[arg(long, env = "TFGATE_RELEASE_URL", global = true)]
    pub release_url: Option<String>,
    /// OpenPGP public keys release checksums must be signed with, instead of HashiCorp's and
    /// OpenTofu's: an armored key block itself, or a file holding one or more.
    #[arg(long, env = "TFGATE_RELEASE_KEYS", global = true)]
    pub release_keys: Option<String>,
    /// A Terraform CLI configuration file given to every run (e.g. a provider mirror).
    #[arg(long, env = "TFGATE_TF_CLI_CONFIG", global = true)]
    pub tf_cli_config: Option<PathBuf>,
    /// A provider filesystem mirror directory, bound read-only into the sandbox.
    #[arg(long, env = "TFGATE_PROVIDER_MIRROR", global = true)]
    pub provider_mirror: Option<PathBuf>,
    /// The provider cache shared by every run (default `DATA_DIR/provider-cache`; `off`: none).
    #[arg(long, env = "TFGATE_PROVIDER_CACHE", global = true)]
    pub provider_cache: Option<PathBuf>,
    /// `bwrap` (default) or `none` (development only: no isolation, warns on every run).
    #[arg(long, env = "TFGATE_SANDBOX", global = true)]
    pub sandbox: Option<String>,
    /// Honour a policy's `network: shared` (Terraform in the host's network, warned on every
    /// run). Off: such projects run with the egress allowlist.
    #[arg(long, env = "TFGATE_ALLOW_HOST_NETWORK", global = true)]
    pub allow_host_network: bool,
    /// The tfgate binary run inside egress sandboxes as `sandbox-relay` (default: this one).
    #[arg(long, env = "TFGATE_SANDBOX_RELAY", global = true)]
    pub sandbox_relay: Option<PathBuf>,
    /// Memory of one sandboxed run in MiB (cgroup; 0: no limit; default 4096).
    #[arg(long, env = "TFGATE_SANDBOX_MEMORY_MB", global = true)]
    pub sandbox_memory_mb: Option<u64>,
    /// Processes and threads of one run (pids cgroup; 0: no limit; default 1024).
    #[arg(long, env = "TFGATE_SANDBOX_PIDS", global = true)]
    pub sandbox_pids: Option<u64>,
    /// CPUs one run may use, e.g. `1.5` (cgroup CFS quota; 0: no limit; default 2).
    #[arg(long, env = "TFGATE_SANDBOX_CPUS", global = true)]
    pub sandbox_cpus: Option<f64>,
    /// Size cap of a run's workdir in MiB (disk watchdog; 0: no cap; default 8192).
    #[arg(long, env = "TFGATE_SANDBOX_WORKDIR_MB", global = true)]
    pub sandbox_workdir_mb: Option<u64>,
    /// Most output of one Terraform step in MiB (default 256).
    #[arg(long, env = "TFGATE_SANDBOX_OUTPUT_MB", global = true)]
    pub sandbox_output_mb: Option<u64>,
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
    /// Seconds one GitHub API call may take before it counts as failed (default 30).
    #[arg(long, env = "TFGATE_GITHUB_TIMEOUT_SECS", global = true)]
    pub github_timeout_secs: Option<u64>,
    /// The GitHub App's OAuth client id, for signing in to `/ui` (default: the one the
    /// manifest flow stored).
    #[arg(long, env = "TFGATE_OAUTH_CLIENT_ID", global = true)]
    pub oauth_client_id: Option<String>,
    /// The GitHub App's OAuth client secret (default: the one the manifest flow stored).
    #[arg(
        long,
        env = "TFGATE_OAUTH_CLIENT_SECRET",
        global = true,
        hide_env_values = true
    )]
    pub oauth_client_secret: Option<String>,
}

/// The optional `tfgate.toml`; keys are the flag names with `_` (e.g. `data_dir`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ConfigFile {
    pub(super) addr: Option<SocketAddr>,
    pub(super) metrics_addr: Option<SocketAddr>,
    pub(super) data_dir: Option<PathBuf>,
    pub(super) database_url: Option<String>,
    pub(super) webhook_secret: Option<String>,
    pub(super) app_id: Option<u64>,
    pub(super) app_slug: Option<String>,
    pub(super) private_key_path: Option<PathBuf>,
    pub(super) github_api_url: Option<String>,
    pub(super) github_url: Option<String>,
    pub(super) public_url: Option<String>,
    pub(super) workers: Option<usize>,
    pub(super) max_parallel_roots: Option<usize>,
    pub(super) max_body_bytes: Option<usize>,
    pub(super) log_format: Option<String>,
    pub(super) policy_dir: Option<PathBuf>,
    pub(super) policy_repo: Option<String>,
    pub(super) template_dir: Option<PathBuf>,
    pub(super) job_lease_secs: Option<u64>,
    pub(super) job_max_attempts: Option<i64>,
    pub(super) terraform: Option<PathBuf>,
    pub(super) terraform_version: Option<String>,
    pub(super) opentofu_version: Option<String>,
    pub(super) release_url: Option<String>,
    pub(super) release_keys: Option<String>,
    pub(super) tf_cli_config: Option<PathBuf>,
    pub(super) provider_mirror: Option<PathBuf>,
    pub(super) provider_cache: Option<PathBuf>,
    pub(super) sandbox: Option<String>,
    pub(super) allow_host_network: Option<bool>,
    pub(super) sandbox_relay: Option<PathBuf>,
    pub(super) sandbox_memory_mb: Option<u64>,
    pub(super) sandbox_pids: Option<u64>,
    pub(super) sandbox_cpus: Option<f64>,
    pub(super) sandbox_workdir_mb: Option<u64>,
    pub(super) sandbox_output_mb: Option<u64>,
    pub(super) encryption_key: Option<String>,
    pub(super) aws_region: Option<String>,
    pub(super) aws_endpoint_url: Option<String>,
    pub(super) work_dir: Option<PathBuf>,
    pub(super) cloudtrail_endpoint_url: Option<String>,
    pub(super) oauth_client_id: Option<String>,
    pub(super) oauth_client_secret: Option<String>,
    pub(super) enrich_schedule: Option<String>,
    pub(super) retention_days: Option<u32>,
    pub(super) github_timeout_secs: Option<u64>,
}

impl ConfigArgs {
    /// Each value set by a flag or environment variable, else the file's.
    pub(super) fn over(&self, file: ConfigFile) -> ConfigFile {
        ConfigFile {
            addr: self.addr.or(file.addr),
            metrics_addr: self.metrics_addr.or(file.metrics_addr),
            data_dir: self.data_dir.clone().or(file.data_dir),
            database_url: self.database_url.clone().or(file.database_url),
            webhook_secret: self.webhook_secret.clone().or(file.webhook_secret),
            app_id: self.app_id.or(file.app_id),
            app_slug: self.app_slug.clone().or(file.app_slug),
            private_key_path: self.private_key_path.clone().or(file.private_key_path),
            github_api_url: self.github_api_url.clone().or(file.github_api_url),
            github_url: self.github_url.clone().or(file.github_url),
            public_url: self.public_url.clone().or(file.public_url),
            workers: self.workers.or(file.workers),
            max_parallel_roots: self.max_parallel_roots.or(file.max_parallel_roots),
            max_body_bytes: self.max_body_bytes.or(file.max_body_bytes),
            log_format: self.log_format.clone().or(file.log_format),
            policy_dir: self.policy_dir.clone().or(file.policy_dir),
            policy_repo: self.policy_repo.clone().or(file.policy_repo),
            template_dir: self.template_dir.clone().or(file.template_dir),
            job_lease_secs: self.job_lease_secs.or(file.job_lease_secs),
            job_max_attempts: self.job_max_attempts.or(file.job_max_attempts),
            terraform: self.terraform.clone().or(file.terraform),
            terraform_version: self.terraform_version.clone().or(file.terraform_version),
            opentofu_version: self.opentofu_version.clone().or(file.opentofu_version),
            release_url: self.release_url.clone().or(file.release_url),
            release_keys: self.release_keys.clone().or(file.release_keys),
            tf_cli_config: self.tf_cli_config.clone().or(file.tf_cli_config),
            provider_mirror: self.provider_mirror.clone().or(file.provider_mirror),
            provider_cache: self.provider_cache.clone().or(file.provider_cache),
            sandbox: self.sandbox.clone().or(file.sandbox),
            allow_host_network: self
                .allow_host_network
                .then_some(true)
                .or(file.allow_host_network),
            sandbox_relay: self.sandbox_relay.clone().or(file.sandbox_relay),
            sandbox_memory_mb: self.sandbox_memory_mb.or(file.sandbox_memory_mb),
            sandbox_pids: self.sandbox_pids.or(file.sandbox_pids),
            sandbox_cpus: self.sandbox_cpus.or(file.sandbox_cpus),
            sandbox_workdir_mb: self.sandbox_workdir_mb.or(file.sandbox_workdir_mb),
            sandbox_output_mb: self.sandbox_output_mb.or(file.sandbox_output_mb),
            encryption_key: self.encryption_key.clone().or(file.encryption_key),
            aws_region: self.aws_region.clone().or(file.aws_region),
            aws_endpoint_url: self.aws_endpoint_url.clone().or(file.aws_endpoint_url),
            work_dir: self.work_dir.clone().or(file.work_dir),
            cloudtrail_endpoint_url: self
                .cloudtrail_endpoint_url
                .clone()
                .or(file.cloudtrail_endpoint_url),
            oauth_client_id: self.oauth_client_id.clone().or(file.oauth_client_id),
            oauth_client_secret: self
                .oauth_client_secret
                .clone()
                .or(file.oauth_client_secret),
            enrich_schedule: self.enrich_schedule.clone().or(file.enrich_schedule),
            retention_days: self.retention_days.or(file.retention_days),
            github_timeout_secs: self.github_timeout_secs.or(file.github_timeout_secs),
        }
    }
}
