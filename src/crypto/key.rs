//! The 32-byte key that seals plan files and raw logs, from configuration or a key file.

use std::fmt;
use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use aes_gcm::{Aes256Gcm, KeyInit};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use rand::rngs::OsRng;
use rand::RngCore;
use secrecy::{ExposeSecret, SecretString};
use sha2::{Digest, Sha256};

use super::error::CryptoError;

/// Name of the key file created in the data directory when no key is configured.
pub const KEY_FILE_NAME: &str = "seal.key";

/// An AES-256-GCM key. Never printed; zeroed when dropped.
pub struct SealKey {
    bytes: [u8; SealKey::LEN],
}

impl SealKey {
    /// Key length in bytes.
    pub const LEN: usize = 32;

    /// A fresh random key from the operating system's generator.
    pub fn generate() -> SealKey {
        let mut bytes = [0u8; SealKey::LEN];
        OsRng.fill_bytes(&mut bytes);
        SealKey { bytes }
    }

    pub fn from_bytes(bytes: [u8; SealKey::LEN]) -> SealKey {
        SealKey { bytes }
    }

    /// Parses standard base64 (surrounding whitespace ignored) of exactly 32 bytes.
    /// Errors never echo the input.
    pub fn from_base64(text: &str) -> Result<SealKey, CryptoError> {
        let mut decoded = STANDARD
            .decode(text.trim())
            .map_err(|_| CryptoError::KeyEncoding)?;
        let result = <[u8; SealKey::LEN]>::try_from(decoded.as_slice())
            .map(SealKey::from_bytes)
            .map_err(|_| CryptoError::KeyLength { len: decoded.len() });
        decoded.fill(0);
        result
    }

    /// The key as standard base64, for an admin to copy into configuration.
    /// A 32-byte subkey for another purpose (HMAC-SHA256 of `label` under this key), so one
    /// configured secret serves sealing and, e.g., shared-input fingerprints independently.
    pub fn derive(&self, label: &[u8]) -> [u8; 32] {
        use hmac::{Hmac, Mac};
        let mut mac =
            <Hmac<sha2::Sha256> as Mac>::new_from_slice(&self.bytes).expect("any key length");
        mac.update(label);
        mac.finalize().into_bytes().into()
    }

    pub fn to_base64(&self) -> SecretString {
        SecretString::from(STANDARD.encode(self.bytes))
    }

    /// A short, non-secret identifier of the key (16 hex chars of a domain-separated SHA-256),
    /// to tell in logs which key is in use.
    pub fn fingerprint(&self) -> String {
        let mut hasher = Sha256::new();
        hasher.update(b"tfgate seal key fingerprint\0");
        hasher.update(self.bytes);
        hex::encode(&hasher.finalize()[..8])
    }

    pub(crate) fn cipher(&self) -> Aes256Gcm {
        Aes256Gcm::new(&self.bytes.into())
    }
}

impl fmt::Debug for SealKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SealKey(<redacted>)")
    }
}

impl Drop for SealKey {
    fn drop(&mut self) {
        for byte in self.bytes.iter_mut() {
            // Volatile so the wipe is not optimised away.
            // SAFETY: `byte` is a valid, aligned, exclusive reference into `self.bytes`.
            unsafe { std::ptr::write_volatile(byte, 0) };
        }
    }
}

/// The configured key when `env_value` is given (base64 of 32 bytes); otherwise the key in
/// `data_dir/seal.key`, created with mode 0600 (and `data_dir` with 0700) when absent.
/// An existing key file readable by group or others is refused.
pub fn load_or_create_key(
    data_dir: &Path,
    env_value: Option<&SecretString>,
) -> Result<SealKey, CryptoError> {
    if let Some(value) = env_value {
        return SealKey::from_base64(value.expose_secret());
    }
    let path = data_dir.join(KEY_FILE_NAME);
    match read_key_file(&path) {
        Err(CryptoError::KeyFile { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
            create_key_file(data_dir, &path)
        }
        other => other,
    }
}

/// The configured key, or the data directory's key file when it exists; `None` when neither
/// is there yet (nothing is created: for checks such as `tfgate doctor`).
pub fn load_existing_key(
    data_dir: &Path,
    env_value: Option<&SecretString>,
) -> Result<Option<SealKey>, CryptoError> {
    if let Some(value) = env_value {
        return SealKey::from_base64(value.expose_secret()).map(Some);
    }
    match read_key_file(&data_dir.join(KEY_FILE_NAME)) {
        Err(CryptoError::KeyFile { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
            Ok(None)
        }
        other => other.map(Some),
    }
}

fn key_file_error(path: &Path) -> impl FnOnce(io::Error) -> CryptoError + '_ {
    move |source| CryptoError::KeyFile {
        path: path.to_path_buf(),
        source,
    }
}

fn read_key_file(path: &Path) -> Result<SealKey, CryptoError> {
    let mut file = File::open(path).map_err(key_file_error(path))?;
    let mode = file
        .metadata()
        .map_err(key_file_error(path))?
        .permissions()
        .mode();
    if mode & 0o077 != 0 {
        return Err(CryptoError::KeyFilePermissions {
            path: path.to_path_buf(),
            mode: mode & 0o7777,
        });
    }
    let mut text = String::new();
    file.read_to_string(&mut text)
        .map_err(key_file_error(path))?;
    let key = SealKey::from_base64(&text);
    // Best effort: do not leave the encoded key in freed memory.
    // SAFETY: zero bytes are valid UTF-8.
    unsafe { text.as_bytes_mut().fill(0) };
    key
}

/// Writes a new key to a private temporary file, then links it into place; when another
/// process wins the race its key is used instead.
fn create_key_file(data_dir: &Path, path: &Path) -> Result<SealKey, CryptoError> {
    DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(data_dir)
        .map_err(key_file_error(data_dir))?;
    let key = SealKey::generate();
    let temporary = temporary_path(data_dir);
    let written = write_private(&temporary, key.to_base64().expose_secret())
        .and_then(|()| fs::hard_link(&temporary, path));
    let _ = fs::remove_file(&temporary);
    match written {
        Ok(()) => Ok(key),
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => read_key_file(path),
        Err(err) => Err(key_file_error(path)(err)),
    }
}

fn temporary_path(data_dir: &Path) -> PathBuf {
    let mut suffix = [0u8; 8];
    OsRng.fill_bytes(&mut suffix);
    data_dir.join(format!(".{KEY_FILE_NAME}.{}.tmp", hex::encode(suffix)))
}

fn write_private(path: &Path, contents: &str) -> io::Result<()> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(contents.as_bytes())?;
    file.write_all(b"\n")?;
    file.sync_all()
}

#[cfg(test)]
mod tests;
