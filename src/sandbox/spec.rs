//! What a sandboxed run may see and use (pure data).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::error::SandboxError;

/// Home directory inside the sandbox: an empty tmpfs, writable, gone after the run.
pub const SANDBOX_HOME: &str = "/home/tfgate";

/// Everything a sandboxed run may see and use. Paths are bound at the same path inside the
/// sandbox, so absolute paths (and the symlinks `terraform init` writes into
/// `.terraform/providers`) stay valid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxSpec {
    /// The run's private working directory, bound read-write; also the initial cwd.
    pub workdir: PathBuf,
    /// The Terraform binary, bound read-only.
    pub terraform_bin: PathBuf,
    /// The provider cache (a filesystem mirror only tfgate writes), bound read-only when set.
    pub plugin_cache: Option<PathBuf>,
    /// More read-only binds, e.g. a provider filesystem mirror and the CLI config file.
    pub extra_ro_binds: Vec<PathBuf>,
    /// More read-write binds: directories tfgate owns outside the workdir (the directory the
    /// saved plan is written to, during `plan` only).
    pub rw_binds: Vec<PathBuf>,
    /// The ONLY environment the process gets (the caller builds it from an allowlist).
    /// In bwrap mode `HOME` is always [`SANDBOX_HOME`], whatever this map says.
    pub env: BTreeMap<String, String>,
    /// Whether the process shares the host's network namespace.
    pub network: Network,
    /// Resource limits applied with `setrlimit` before exec.
    pub limits: Limits,
    /// Wall-clock limit; past it the whole process group is killed.
    pub timeout: Duration,
    /// Most bytes read from stdout + stderr together; past it the group is killed.
    pub output_cap_bytes: usize,
}

/// Network access of the sandboxed process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Network {
    /// Host network namespace: everything the host reaches (only behind the server flag
    /// `--allow-host-network`).
    Shared,
    /// A private network namespace with only its own loopback (providers' gRPC still works).
    None,
    /// A private network namespace whose only way out is tfgate's egress proxy, reached
    /// through a Unix socket bound in; the program runs under `tfgate sandbox-relay`.
    Egress(EgressMount),
}

/// How a sandbox reaches its run's egress proxy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EgressMount {
    /// The host directory holding the proxy's socket, bound read-only inside.
    pub socket_dir: PathBuf,
    /// The tfgate binary that runs `sandbox-relay` inside, bound read-only.
    pub relay_bin: PathBuf,
    /// Allowlisted loopback endpoints the relay listens on inside (clients skip proxies for
    /// loopback addresses).
    pub forwards: Vec<(String, u16)>,
}

impl EgressMount {
    /// The proxy URL the sandboxed programs get in `HTTPS_PROXY`/`HTTP_PROXY`.
    pub fn proxy_url(&self) -> String {
        format!(
            "http://127.0.0.1:{}",
            crate::egress::relay::proxy_port(&self.forwards)
        )
    }
}

/// `setrlimit` limits (soft = hard) applied to the spawned process and inherited by all its
/// descendants. `None` leaves the inherited limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// RLIMIT_AS: virtual address space per process. Go reserves a lot of address space:
    /// keep this at several GiB for Terraform and its providers.
    pub address_space_bytes: Option<u64>,
    /// RLIMIT_CPU: CPU seconds per process (SIGXCPU, then SIGKILL).
    pub cpu_seconds: Option<u64>,
    /// RLIMIT_FSIZE: largest file a process may write (SIGXFSZ past it).
    pub file_size_bytes: Option<u64>,
    /// RLIMIT_NPROC: the kernel counts ALL tasks (processes and threads) of the real uid,
    /// including the server itself, and does not enforce it at all for root (uid 0, also when
    /// mapped to uid 0 inside bwrap's user namespace). So as root this is inert; as a normal
    /// user it must leave room for the server's own threads.
    pub max_processes: Option<u64>,
    /// Memory of the whole run (cgroup `memory.limit_in_bytes` / `memory.max`).
    pub memory_bytes: Option<u64>,
    /// Processes and threads of the whole run (cgroup `pids.max`): what stops a fork bomb,
    /// also as root.
    pub max_pids: Option<u64>,
    /// CPU share of the whole run in thousandths of a CPU (cgroup CFS quota; 1000 = one CPU).
    pub cpu_millis: Option<u64>,
    /// Size cap of the workdir, checked by the disk watchdog (the run is killed past it).
    pub workdir_bytes: Option<u64>,
    /// Size of each tmpfs (`/tmp` and the home directory) in bwrap mode.
    pub tmpfs_bytes: Option<u64>,
    /// Longest stdout line handed to the line callback; a longer one is dropped (counted).
    pub line_bytes: usize,
}

impl Default for Limits {
    /// Generous limits that a real `terraform apply` stays well inside.
    fn default() -> Self {
        const GIB: u64 = 1024 * 1024 * 1024;
        Limits {
            address_space_bytes: Some(16 * GIB),
            cpu_seconds: Some(3600),
            file_size_bytes: Some(GIB),
            max_processes: Some(4096),
            memory_bytes: Some(4 * GIB),
            max_pids: Some(1024),
            cpu_millis: Some(2000),
            workdir_bytes: Some(8 * GIB),
            tmpfs_bytes: Some(GIB),
            line_bytes: 16 * 1024 * 1024,
        }
    }
}

/// How a run is isolated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SandboxMode {
    /// bubblewrap: namespaces, read-only system binds, private workdir, tmpfs home.
    Bwrap,
    /// Development only: the program runs directly on the host (still with the env
    /// allowlist, rlimits, own process group, timeout and output cap). Warns on every run.
    None,
}

impl SandboxSpec {
    /// Checks what bwrap and the kernel would otherwise reject obscurely.
    pub fn validate(&self) -> Result<(), SandboxError> {
        let mut paths: Vec<&Path> = vec![&self.workdir, &self.terraform_bin];
        if let Network::Egress(mount) = &self.network {
            paths.extend([mount.socket_dir.as_path(), mount.relay_bin.as_path()]);
        }
        paths.extend(self.plugin_cache.as_deref());
        paths.extend(self.extra_ro_binds.iter().map(PathBuf::as_path));
        paths.extend(self.rw_binds.iter().map(PathBuf::as_path));
        if let Some(path) = paths.iter().find(|p| !p.is_absolute()) {
            return Err(SandboxError::InvalidSpec(format!(
                "path is not absolute: {}",
                path.display()
            )));
        }
        if self.workdir == Path::new("/") {
            return Err(SandboxError::InvalidSpec("workdir is /".to_string()));
        }
        for (key, value) in &self.env {
            if key.is_empty() || key.contains(['=', '\0']) || value.contains('\0') {
                return Err(SandboxError::InvalidSpec(format!(
                    "invalid environment variable name or value: {key:?}"
                )));
            }
        }
        if self.timeout.is_zero() {
            return Err(SandboxError::InvalidSpec("timeout is zero".to_string()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> SandboxSpec {
        SandboxSpec {
            workdir: PathBuf::from("/var/lib/tfgate/runs/1"),
            terraform_bin: PathBuf::from("/opt/tfgate/bin/terraform"),
            plugin_cache: None,
            extra_ro_binds: vec![],
            rw_binds: vec![],
            env: BTreeMap::new(),
            network: Network::None,
            limits: Limits::default(),
            timeout: Duration::from_secs(60),
            output_cap_bytes: 1 << 20,
        }
    }

    #[test]
    fn valid_spec_passes() {
        assert!(spec().validate().is_ok());
    }

    #[test]
    fn invalid_specs_are_rejected() {
        type Mutation = fn(&mut SandboxSpec);
        let cases: Vec<(&str, Mutation)> = vec![
            ("relative workdir", |s| s.workdir = "runs/1".into()),
            ("root workdir", |s| s.workdir = "/".into()),
            ("relative terraform", |s| {
                s.terraform_bin = "terraform".into()
            }),
            ("relative cache", |s| s.plugin_cache = Some("cache".into())),
            ("relative extra", |s| s.extra_ro_binds = vec!["m".into()]),
            ("relative rw bind", |s| s.rw_binds = vec!["plan".into()]),
            ("= in env key", |s| {
                s.env.insert("A=B".into(), "x".into());
            }),
            ("empty env key", |s| {
                s.env.insert(String::new(), "x".into());
            }),
            ("NUL in env value", |s| {
                s.env.insert("A".into(), "x\0y".into());
            }),
            ("zero timeout", |s| s.timeout = Duration::ZERO),
        ];
        for (name, mutate) in cases {
            let mut s = spec();
            mutate(&mut s);
            assert!(
                matches!(s.validate(), Err(SandboxError::InvalidSpec(_))),
                "{name} should be rejected"
            );
        }
    }
}
