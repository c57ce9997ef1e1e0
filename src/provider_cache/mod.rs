//! The provider cache shared by every run (pure part): which provider packages a finished
//! `init` may add to it, and the hashes that decide.
//!
//! The cache is a Terraform filesystem mirror in the unpacked layout
//! (`HOST/NAMESPACE/TYPE/VERSION/TARGET/…`), listed first in every run's CLI config and bound
//! read-only into the sandbox, so Terraform links a cached package instead of downloading it,
//! and checks it against the root's `.terraform.lock.hcl` as it does any mirror. Only tfgate
//! writes it, on the host, right after a successful `init` (before any plan-time code of the
//! PR ran): a package is kept when its `h1:` hash is one the lock file (written by that `init`)
//! records for that provider and version, and the policy allows the provider.

mod store;

pub use store::harvest;

use std::collections::BTreeMap;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use sha2::{Digest, Sha256};

/// One provider package: `registry.terraform.io/hashicorp/aws`, `5.31.0`, `linux_amd64`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Package {
    pub source: String,
    pub version: String,
    pub target: String,
}

impl Package {
    /// From a path relative to `.terraform/providers` (or the cache):
    /// `HOST/NAMESPACE/TYPE/VERSION/TARGET`.
    pub fn from_relative_path(path: &str) -> Option<Package> {
        let parts: Vec<&str> = path.split('/').collect();
        let [host, namespace, kind, version, target] = parts.as_slice() else {
            return None;
        };
        let safe = |p: &str| {
            !p.is_empty()
                && p != "."
                && p != ".."
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '+'))
        };
        if !parts.iter().all(|p| safe(p)) {
            return None;
        }
        Some(Package {
            source: format!("{host}/{namespace}/{kind}").to_ascii_lowercase(),
            version: version.to_string(),
            target: target.to_string(),
        })
    }

    pub fn relative_path(&self) -> String {
        format!("{}/{}/{}", self.source, self.version, self.target)
    }
}

/// The `h1:` hashes a `.terraform.lock.hcl` records, per (provider source, version).
pub fn locked_hashes(lock_file: &str) -> BTreeMap<(String, String), Vec<String>> {
    let mut out = BTreeMap::new();
    let mut current: Option<(String, Option<String>, Vec<String>)> = None;
    for line in lock_file.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("provider \"") {
            let source = rest.split('"').next().unwrap_or("").to_ascii_lowercase();
            current = Some((source, None, Vec::new()));
            continue;
        }
        let Some((_, version, hashes)) = current.as_mut() else {
            continue;
        };
        if let Some(rest) = line.strip_prefix("version") {
            let value = rest.trim_start().strip_prefix('=').map(str::trim);
            *version = value.map(|v| v.trim_matches('"').to_string());
        } else if line.starts_with("\"h1:") {
            hashes.push(line.trim_end_matches(',').trim_matches('"').to_string());
        } else if line == "}" {
            if let Some((source, Some(version), hashes)) = current.take() {
                out.insert((source, version), hashes);
            }
        }
    }
    out
}

/// Terraform's `h1:` package hash of an unpacked package: the SHA-256 of the lines
/// `"<sha256 hex>  <relative path>\n"` of its files sorted by path, base64.
pub fn h1_hash(files: &[(String, [u8; 32])]) -> String {
    let mut sorted: Vec<&(String, [u8; 32])> = files.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut summary = Sha256::new();
    for (path, digest) in sorted {
        summary.update(format!("{}  {path}\n", hex::encode(digest)));
    }
    format!("h1:{}", STANDARD.encode(summary.finalize()))
}

/// Whether `source` (`registry.terraform.io/hashicorp/aws`) matches a policy pattern
/// (`registry.terraform.io/hashicorp/*`, `registry.terraform.io/*/*`).
pub fn allowed(source: &str, patterns: &[String]) -> bool {
    let parts: Vec<&str> = source.split('/').collect();
    patterns.iter().any(|pattern| {
        let want: Vec<&str> = pattern.split('/').collect();
        want.len() == parts.len()
            && want
                .iter()
                .zip(&parts)
                .all(|(w, p)| *w == "*" || w.eq_ignore_ascii_case(p))
    })
}

/// What to do with a package an `init` installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Keep,
    Skip(&'static str),
}

/// A package is kept when the policy allows its provider and the lock file records its hash.
pub fn judge(
    package: &Package,
    h1: &str,
    locked: &BTreeMap<(String, String), Vec<String>>,
    allowed_sources: &[String],
) -> Verdict {
    if !allowed(&package.source, allowed_sources) {
        return Verdict::Skip("provider not allowed by the policy");
    }
    match locked.get(&(package.source.clone(), package.version.clone())) {
        None => Verdict::Skip("the lock file does not record this provider version"),
        Some(hashes) if hashes.iter().any(|h| h == h1) => Verdict::Keep,
        Some(_) => Verdict::Skip("the package's hash is not in the lock file"),
    }
}

#[cfg(test)]
mod tests;
