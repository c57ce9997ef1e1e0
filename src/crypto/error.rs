//! Errors of the crypto module. None of them holds key material or plaintext.

use std::io;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum CryptoError {
    #[error(
        "seal key is not valid base64 (expected 32 random bytes, e.g. `openssl rand -base64 32`)"
    )]
    KeyEncoding,
    #[error("seal key must be 32 bytes, got {len}")]
    KeyLength { len: usize },
    #[error("could not read or create the seal key file {path}")]
    KeyFile {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(
        "seal key file {path} is accessible to other users (mode {mode:o}); run `chmod 600` on it"
    )]
    KeyFilePermissions { path: PathBuf, mode: u32 },
    #[error("sealed data is too short")]
    TooShort,
    #[error("sealed data has an unknown format")]
    UnknownFormat,
    #[error("sealed data could not be opened (wrong key, wrong run, or tampered)")]
    Unseal,
}
