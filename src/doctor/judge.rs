//! What each observation means (pure): an [`Outcome`] with a fix an operator can follow.

use super::Outcome;

/// The database as observed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DatabaseSeen {
    Unreachable(String),
    /// Migrations applied and known to this binary.
    Reachable {
        applied: usize,
        known: usize,
    },
}

pub fn judge_database(seen: &DatabaseSeen) -> Outcome {
    match seen {
        DatabaseSeen::Unreachable(error) => Outcome::fail(
            format!("unreachable: {error}"),
            "check DATABASE_URL and that the database server is running",
        ),
        DatabaseSeen::Reachable { applied, known } if applied < known => Outcome::fail(
            format!("{} of {known} migrations not applied", known - applied),
            "run `tfgate migrate` (serve and worker also migrate at start)",
        ),
        DatabaseSeen::Reachable { applied, known } if applied > known => Outcome::fail(
            format!("the database has {applied} migrations, this binary knows {known}"),
            "a newer tfgate migrated this database: run that version",
        ),
        DatabaseSeen::Reachable { known, .. } => {
            Outcome::Ok(format!("reachable; all {known} migrations applied"))
        }
    }
}

/// The sealing key as observed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SealKeySeen {
    /// Not configured and no key file yet (created at first start).
    NotYetCreated,
    Unreadable(String),
    /// Loaded; its fingerprint and the one the database stored, if any.
    Loaded {
        fingerprint: String,
        stored: Option<String>,
    },
}

pub fn judge_seal_key(seen: &SealKeySeen, is_postgres: bool, key_configured: bool) -> Outcome {
    use crate::crypto::key_check::{judge_key, require_configured_key};
    if let Err(e) = require_configured_key(is_postgres, key_configured) {
        return Outcome::fail("no TFGATE_ENCRYPTION_KEY with PostgreSQL", e.to_string());
    }
    match seen {
        SealKeySeen::NotYetCreated => {
            Outcome::Ok("no key yet: serve creates DATA_DIR/seal.key at first start".into())
        }
        SealKeySeen::Unreadable(error) => Outcome::fail(
            format!("the key cannot be read: {error}"),
            "TFGATE_ENCRYPTION_KEY must be base64 of 32 bytes; a key file must be mode 0600",
        ),
        SealKeySeen::Loaded {
            fingerprint,
            stored,
        } => match judge_key(stored.as_deref(), fingerprint) {
            Ok(_) => Outcome::Ok(format!("fingerprint {fingerprint} matches the database")),
            Err(e) => Outcome::fail("the key does not match the database", e.to_string()),
        },
    }
}

/// The policy source as observed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PoliciesSeen {
    Unreadable(String),
    /// `TFGATE_POLICY_REPO` is set and no valid set was read from it yet.
    NotYetRead(String),
    Problems(Vec<String>),
    Loaded {
        source: String,
        files: usize,
        /// Repositories the App is installed on (`None`: unknown, no App), and how many of
        /// them a policy covers.
        installed: Option<(usize, usize)>,
    },
}

pub fn judge_policies(seen: &PoliciesSeen) -> Outcome {
    const FIX_PROBLEMS: &str = "run `tfgate policy check` and fix the lines it prints";
    match seen {
        PoliciesSeen::Unreadable(error) => Outcome::fail(
            format!("cannot be read: {error}"),
            "set TFGATE_POLICY_DIR to a readable directory of policy YAML files",
        ),
        PoliciesSeen::NotYetRead(repo) => Outcome::fail(
            format!("no valid policy set read from {repo} yet"),
            format!(
                "install the App on {repo} and push valid policies to `policies/` of its \
                 default branch (the `tfgate/policy` check run lists any problem)"
            ),
        ),
        PoliciesSeen::Problems(problems) => {
            let first = problems.first().map(String::as_str).unwrap_or("");
            Outcome::fail(
                format!("{} problem(s), first: {first}", problems.len()),
                FIX_PROBLEMS,
            )
        }
        PoliciesSeen::Loaded { source, files: 0, .. } => Outcome::fail(
            format!("no policy file in {source}: every command would answer \"not enabled\""),
            "add a policy (see policies/example-*.yaml) or point TFGATE_POLICY_DIR at them",
        ),
        PoliciesSeen::Loaded {
            source,
            installed: Some((installed, 0)),
            ..
        } if *installed > 0 => Outcome::fail(
            format!("no policy in {source} covers any of the {installed} installed repositories"),
            "name the repositories (owner/name or a glob) in a policy's `repos:`",
        ),
        PoliciesSeen::Loaded {
            source,
            files,
            installed,
        } => Outcome::Ok(match installed {
            Some((installed, covered)) => format!(
                "{files} file(s) in {source}; {covered} of {installed} installed repositories covered"
            ),
            None => format!("{files} file(s) in {source}; installed repositories unknown"),
        }),
    }
}

/// The GitHub App as observed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppSeen {
    NotConfigured,
    /// `GET /app` answered with this slug.
    Valid(String),
    Refused(String),
}

pub fn judge_app(seen: &AppSeen) -> Outcome {
    match seen {
        AppSeen::NotConfigured => Outcome::fail(
            "no GitHub App credentials",
            "open tfgate's / in a browser to register the App (manifest flow), or set \
             TFGATE_APP_ID and TFGATE_PRIVATE_KEY_PATH (or TFGATE_PRIVATE_KEY)",
        ),
        AppSeen::Valid(slug) => Outcome::Ok(format!("GET /app: {slug}")),
        AppSeen::Refused(error) => Outcome::fail(
            format!("GET /app failed: {error}"),
            "check TFGATE_APP_ID, the private key and TFGATE_GITHUB_API_URL",
        ),
    }
}

pub fn judge_webhook_secret(count: usize) -> Outcome {
    if count == 0 {
        Outcome::fail(
            "no webhook secret: every delivery is refused",
            "set TFGATE_WEBHOOK_SECRET to the App's webhook secret",
        )
    } else {
        Outcome::Ok(format!("{count} secret(s) configured"))
    }
}

/// `terraform version`'s first line, or why it could not run.
/// Terraform as observed: the server's binary (when some project runs it) and each release
/// the server or a policy names, `Ok(true)` installed, `Ok(false)` downloadable and signed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TerraformSeen {
    pub binary: Option<(String, Result<String, String>)>,
    pub releases: Vec<(String, Result<bool, String>)>,
}

pub fn judge_terraform(seen: &TerraformSeen) -> Outcome {
    if let Some((path, Err(error))) = &seen.binary {
        return Outcome::fail(
            format!("{path} does not run: {error}"),
            "install Terraform there, set TFGATE_TERRAFORM to its path, or set \
             TFGATE_TERRAFORM_VERSION to have a release installed on demand",
        );
    }
    if let Some((release, Err(error))) = seen.releases.iter().find(|(_, r)| r.is_err()) {
        return Outcome::fail(
            format!("{release} cannot be installed: {error}"),
            "let this machine reach releases.hashicorp.com (OpenTofu: github.com), or set \
             TFGATE_RELEASE_URL to a mirror in HashiCorp's layout; a refused signature means \
             the files are not the vendor's (a mirror that signs its own: TFGATE_RELEASE_KEYS)",
        );
    }
    let mut parts: Vec<String> = seen
        .binary
        .iter()
        .filter_map(|(path, r)| r.as_ref().ok().map(|v| format!("{path}: {v}")))
        .collect();
    parts.extend(seen.releases.iter().map(|(release, r)| match r {
        Ok(true) => format!("{release} installed"),
        _ => format!("{release} downloadable (signature checked)"),
    }));
    if parts.is_empty() {
        return Outcome::Warn("no project runs Terraform yet".into());
    }
    Outcome::Ok(parts.join("; "))
}

/// A trivial command in the sandbox: `None` when the sandbox is switched off.
pub fn judge_sandbox(seen: Option<&Result<(), String>>) -> Outcome {
    match seen {
        None => Outcome::Warn(
            "TFGATE_SANDBOX=none: Terraform runs on the host (development only)".into(),
        ),
        Some(Ok(())) => Outcome::Ok("bubblewrap runs a command in fresh namespaces".into()),
        Some(Err(error)) => Outcome::fail(
            format!("bubblewrap cannot run a command: {error}"),
            "install bubblewrap (apt-get install bubblewrap) and allow unprivileged user \
             namespaces (sysctl kernel.unprivileged_userns_clone=1; in a container, a seccomp \
             profile that permits them)",
        ),
    }
}

/// The per-run limits in force (the start-up line) and the warning about weaker fallbacks.
pub fn judge_cgroups(info: &str, warning: Option<&str>) -> Outcome {
    match warning {
        None => Outcome::Ok(info.to_string()),
        Some(w) => Outcome::Warn(format!("{info}; {w}")),
    }
}

const GIB: u64 = 1024 * 1024 * 1024;
/// Below this, workdirs (checkouts, providers, plans) cannot be relied on.
pub const MIN_FREE_BYTES: u64 = 2 * GIB;
/// Below this, a warning.
pub const LOW_FREE_BYTES: u64 = 10 * GIB;

pub fn judge_disk(free: &Result<u64, String>, path: &str) -> Outcome {
    let gib = |b: u64| format!("{:.1} GiB", b as f64 / GIB as f64);
    match free {
        Err(error) => Outcome::fail(
            format!("{path}: {error}"),
            "create the work directory (TFGATE_WORK_DIR) or make it writable",
        ),
        Ok(free) if *free < MIN_FREE_BYTES => Outcome::fail(
            format!("{path}: only {} free", gib(*free)),
            "free space or point TFGATE_WORK_DIR at a bigger volume (not the database's)",
        ),
        Ok(free) if *free < LOW_FREE_BYTES => {
            Outcome::Warn(format!("{path}: {} free (low)", gib(*free)))
        }
        Ok(free) => Outcome::Ok(format!("{path}: {} free", gib(*free))),
    }
}

#[cfg(test)]
#[path = "judge_tests.rs"]
mod tests;
