//! Downloading, checking and unpacking a release (the effect shell of [`super`]).
//!
//! Order, each step before the next is trusted: `SHA256SUMS`, its signature (refused unless a
//! trusted key made it), the archive (refused unless its SHA-256 is the signed line), the
//! binary out of the archive into a staging directory beside the final one, then one rename.
//! A failure at any step leaves nothing installed. Concurrent installs of one release in one
//! process wait for each other; across processes the rename decides and the loser's copy is
//! dropped.

use crate::model::view::ToolProblem;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::installed_path;
use super::layout::{expected_sha256, host_platform, release_files, Release, ReleaseFiles};
use super::signature::{Keyring, SignatureError};

/// Largest `SHA256SUMS` or signature file read.
const MAX_SMALL_FILE: u64 = 1024 * 1024;
/// Largest archive downloaded, and largest binary unpacked.
const MAX_ARCHIVE: u64 = 1024 * 1024 * 1024;

/// Why a release could not be installed. The display text is for the server log (it may
/// carry URLs); [`InstallError::public_problem`] is what a PR may be told.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("{release} has no build for this platform ({os}/{arch})", os = std::env::consts::OS, arch = std::env::consts::ARCH)]
    NoPlatform { release: Release },
    #[error("{release}: downloading {url} failed: {detail}")]
    Download {
        release: Release,
        url: String,
        detail: String,
    },
    #[error("{release}: the signature of {url} is refused: {error}")]
    Signature {
        release: Release,
        url: String,
        error: SignatureError,
    },
    #[error("{release}: the signed SHA256SUMS has no line for {archive}")]
    NotListed { release: Release, archive: String },
    #[error("{release}: {archive} does not match its signed SHA-256 (got {actual})")]
    Checksum {
        release: Release,
        archive: String,
        actual: String,
    },
    #[error("{release}: {detail}")]
    Unpack { release: Release, detail: String },
}

/// What a PR may be told about a failed install.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PublicProblem {
    /// Not reachable or not found: the admin should look at the release site or mirror.
    DownloadFailed,
    /// Downloaded, and refused by the signature or checksum check.
    Refused,
    /// The vendor builds no binary for this server's platform.
    NoBuild,
}

impl InstallError {
    pub fn public_problem(&self) -> PublicProblem {
        match self {
            InstallError::NoPlatform { .. } => PublicProblem::NoBuild,
            InstallError::Download { .. } | InstallError::Unpack { .. } => {
                PublicProblem::DownloadFailed
            }
            InstallError::Signature { .. }
            | InstallError::NotListed { .. }
            | InstallError::Checksum { .. } => PublicProblem::Refused,
        }
    }
}

/// Where releases come from, which keys they must be signed with, and where they go.
pub struct ReleaseSource {
    /// `--release-url`: a mirror in HashiCorp's layout; `None`: the official sites.
    mirror: Option<String>,
    keyring: Keyring,
    tools_dir: PathBuf,
    http: reqwest::Client,
    /// One lock per release, so one process downloads a release once.
    installing: Mutex<HashMap<Release, Arc<tokio::sync::Mutex<()>>>>,
}

impl ReleaseSource {
    pub fn new(mirror: Option<String>, keyring: Keyring, tools_dir: PathBuf) -> ReleaseSource {
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(30))
            .timeout(Duration::from_secs(15 * 60))
            .user_agent(concat!("tfgate/", env!("CARGO_PKG_VERSION")))
            .build()
            .expect("an HTTP client with rustls builds");
        ReleaseSource {
            mirror,
            keyring,
            tools_dir,
            http,
            installing: Mutex::new(HashMap::new()),
        }
    }

    pub fn tools_dir(&self) -> &Path {
        &self.tools_dir
    }

    /// The files of `release` for this machine (`None`: no build for this platform).
    pub fn files(&self, release: &Release) -> Option<ReleaseFiles> {
        Some(release_files(
            release,
            self.mirror.as_deref(),
            host_platform()?,
        ))
    }

    /// The release's binary, installed now when missing.
    pub async fn ensure(&self, release: &Release) -> Result<PathBuf, InstallError> {
        let path = installed_path(&self.tools_dir, release);
        if path.is_file() {
            return Ok(path);
        }
        let lock = {
            let mut map = self.installing.lock().expect("install map lock");
            map.entry(release.clone()).or_default().clone()
        };
        let _held = lock.lock().await;
        if path.is_file() {
            return Ok(path);
        }
        let started = std::time::Instant::now();
        self.install(release).await?;
        tracing::info!(%release, seconds = started.elapsed().as_secs_f64(), path = %path.display(), "installed a release");
        Ok(path)
    }

    /// Whether the release is installed, or at least its signed `SHA256SUMS` can be fetched
    /// and verified (for `tfgate doctor`).
    pub async fn check_available(&self, release: &Release) -> Result<bool, InstallError> {
        if installed_path(&self.tools_dir, release).is_file() {
            return Ok(true);
        }
        let files = self
            .files(release)
            .ok_or_else(|| InstallError::NoPlatform {
                release: release.clone(),
            })?;
        self.signed_sums(release, &files).await?;
        Ok(false)
    }

    async fn install(&self, release: &Release) -> Result<(), InstallError> {
        let files = self
            .files(release)
            .ok_or_else(|| InstallError::NoPlatform {
                release: release.clone(),
            })?;
        let sums = self.signed_sums(release, &files).await?;
        let expected =
            expected_sha256(&sums, &files.archive_name).ok_or_else(|| InstallError::NotListed {
                release: release.clone(),
                archive: files.archive_name.clone(),
            })?;
        let unpack = |detail: String| InstallError::Unpack {
            release: release.clone(),
            detail,
        };
        std::fs::create_dir_all(&self.tools_dir)
            .map_err(|e| unpack(format!("creating {}: {e}", self.tools_dir.display())))?;
        let staging = tempfile::Builder::new()
            .prefix(".staging-")
            .tempdir_in(&self.tools_dir)
            .map_err(|e| unpack(format!("a staging directory: {e}")))?;
        let archive_path = staging.path().join(&files.archive_name);
        let actual = self
            .download_to(release, &files.archive_url, &archive_path)
            .await?;
        if actual != expected {
            return Err(InstallError::Checksum {
                release: release.clone(),
                archive: files.archive_name,
                actual: hex::encode(actual),
            });
        }
        let binary = release.tool.binary_name();
        let unpacked = staging.path().join("bin");
        let archive = archive_path.clone();
        let dest = unpacked.clone();
        tokio::task::spawn_blocking(move || unzip_binary(&archive, binary, &dest))
            .await
            .map_err(|e| unpack(format!("unpacking: {e}")))?
            .map_err(unpack)?;
        self.publish(release, &unpacked).map_err(unpack)
    }

    /// Moves the unpacked directory to its final place in one rename.
    fn publish(&self, release: &Release, unpacked: &Path) -> Result<(), String> {
        let final_dir = self
            .tools_dir
            .join(release.tool.dir_name())
            .join(&release.version);
        let parent = final_dir
            .parent()
            .expect("a version directory has a parent");
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("creating {}: {e}", parent.display()))?;
        match std::fs::rename(unpacked, &final_dir) {
            Ok(()) => Ok(()),
            // Another process installed it first: theirs is as verified as ours.
            Err(_) if installed_path(&self.tools_dir, release).is_file() => Ok(()),
            Err(e) => Err(format!("moving into {}: {e}", final_dir.display())),
        }
    }

    /// `SHA256SUMS`, after its signature verified with a trusted key.
    async fn signed_sums(
        &self,
        release: &Release,
        files: &ReleaseFiles,
    ) -> Result<String, InstallError> {
        let sums = self.fetch_small(release, &files.sums_url).await?;
        let (url, signature) = self.first_signature(release, files).await?;
        match self.keyring.verify(release.tool, &sums, &signature) {
            Ok(fingerprint) => tracing::debug!(%release, %fingerprint, "release checksums signed"),
            Err(error) => {
                return Err(InstallError::Signature {
                    release: release.clone(),
                    url,
                    error,
                })
            }
        }
        String::from_utf8(sums).map_err(|_| InstallError::NotListed {
            release: release.clone(),
            archive: files.archive_name.clone(),
        })
    }

    /// The first signature file the site has (a 404 moves on to the next name).
    async fn first_signature(
        &self,
        release: &Release,
        files: &ReleaseFiles,
    ) -> Result<(String, Vec<u8>), InstallError> {
        let mut last = None;
        for url in &files.signature_urls {
            match self.fetch_small(release, url).await {
                Ok(bytes) => return Ok((url.clone(), bytes)),
                Err(e @ InstallError::Download { .. }) => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| InstallError::Download {
            release: release.clone(),
            url: files.sums_url.clone(),
            detail: "no signature file is known for this tool".into(),
        }))
    }

    async fn fetch_small(&self, release: &Release, url: &str) -> Result<Vec<u8>, InstallError> {
        let mut out = Vec::new();
        self.stream(release, url, MAX_SMALL_FILE, |chunk| {
            out.extend_from_slice(chunk);
            Ok(())
        })
        .await?;
        Ok(out)
    }

    /// Downloads into `path`; returns the SHA-256 of what was written.
    async fn download_to(
        &self,
        release: &Release,
        url: &str,
        path: &Path,
    ) -> Result<[u8; 32], InstallError> {
        let failed = |detail: String| InstallError::Download {
            release: release.clone(),
            url: url.to_string(),
            detail,
        };
        let mut file = std::fs::File::create(path)
            .map_err(|e| failed(format!("creating {}: {e}", path.display())))?;
        let mut hasher = Sha256::new();
        self.stream(release, url, MAX_ARCHIVE, |chunk| {
            hasher.update(chunk);
            file.write_all(chunk).map_err(|e| e.to_string())
        })
        .await?;
        file.sync_all().map_err(|e| failed(e.to_string()))?;
        Ok(hasher.finalize().into())
    }

    async fn stream(
        &self,
        release: &Release,
        url: &str,
        limit: u64,
        mut sink: impl FnMut(&[u8]) -> Result<(), String>,
    ) -> Result<(), InstallError> {
        let failed = |detail: String| InstallError::Download {
            release: release.clone(),
            url: url.to_string(),
            detail,
        };
        let mut response = self
            .http
            .get(url)
            .send()
            .await
            .map_err(|e| failed(e.to_string()))?;
        if !response.status().is_success() {
            return Err(failed(format!("HTTP {}", response.status())));
        }
        let mut seen = 0u64;
        while let Some(chunk) = response.chunk().await.map_err(|e| failed(e.to_string()))? {
            seen += chunk.len() as u64;
            if seen > limit {
                return Err(failed(format!("larger than {limit} bytes")));
            }
            sink(&chunk).map_err(failed)?;
        }
        Ok(())
    }
}

/// Unpacks the archive's top-level `binary` into `dest_dir/binary`, executable.
fn unzip_binary(archive: &Path, binary: &str, dest_dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let file = std::fs::File::open(archive).map_err(|e| format!("opening the archive: {e}"))?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| format!("not a zip archive: {e}"))?;
    let mut member = zip
        .by_name(binary)
        .map_err(|_| format!("the archive has no `{binary}`"))?;
    if member.size() > MAX_ARCHIVE {
        return Err(format!("`{binary}` is larger than {MAX_ARCHIVE} bytes"));
    }
    std::fs::create_dir_all(dest_dir).map_err(|e| e.to_string())?;
    let dest = dest_dir.join(binary);
    let mut out = std::fs::File::create(&dest).map_err(|e| e.to_string())?;
    let copied = std::io::copy(&mut (&mut member).take(MAX_ARCHIVE + 1), &mut out)
        .map_err(|e| format!("unpacking `{binary}`: {e}"))?;
    if copied > MAX_ARCHIVE {
        return Err(format!("`{binary}` is larger than {MAX_ARCHIVE} bytes"));
    }
    out.sync_all().map_err(|e| e.to_string())?;
    std::fs::set_permissions(&dest, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| e.to_string())
}

/// The PR-safe view of a problem (`model::view`, worded by the templates).
impl From<PublicProblem> for ToolProblem {
    fn from(p: crate::tool_release::install::PublicProblem) -> Self {
        use PublicProblem as P;
        match p {
            P::DownloadFailed => ToolProblem::DownloadFailed,
            P::Refused => ToolProblem::Refused,
            P::NoBuild => ToolProblem::NoBuild,
        }
    }
}
