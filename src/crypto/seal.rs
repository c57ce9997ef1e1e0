//! AES-256-GCM sealing of blobs stored at rest (plan files, raw logs).
//!
//! Format: `TFG1` (4 bytes) ‖ nonce (12 random bytes) ‖ ciphertext ‖ tag (16 bytes).
//! The associated data binds a blob to its run and purpose (see [`run_aad`]): a plan
//! sealed for run 7 does not open as run 8's plan or as run 7's log.

use aes_gcm::aead::{Aead, Payload};
use aes_gcm::Nonce;
use rand::rngs::OsRng;
use rand::RngCore;

use super::error::CryptoError;
use super::key::SealKey;

/// Leading bytes of every sealed blob (format version 1).
pub const MAGIC: &[u8; 4] = b"TFG1";
pub const NONCE_LEN: usize = 12;
pub const TAG_LEN: usize = 16;
/// Bytes a sealed blob has on top of its plaintext.
pub const OVERHEAD: usize = MAGIC.len() + NONCE_LEN + TAG_LEN;

/// What a sealed blob of a run holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlobPurpose {
    /// The binary plan file written by `terraform plan -out`.
    Plan,
    /// Raw, unredacted Terraform output, for admins only.
    RawLog,
}

impl BlobPurpose {
    fn label(self) -> &'static str {
        match self {
            BlobPurpose::Plan => "plan",
            BlobPurpose::RawLog => "log",
        }
    }
}

/// Associated data for a blob of a run: `run:<id>:plan` or `run:<id>:log`.
pub fn run_aad(run_id: i64, purpose: BlobPurpose) -> Vec<u8> {
    format!("run:{run_id}:{}", purpose.label()).into_bytes()
}

/// Encrypts `plaintext` under `key` with a fresh random nonce, binding `aad`.
///
/// # Panics
/// Only when `plaintext` exceeds AES-GCM's limit of about 64 GiB.
pub fn seal(key: &SealKey, plaintext: &[u8], aad: &[u8]) -> Vec<u8> {
    let mut nonce = [0u8; NONCE_LEN];
    OsRng.fill_bytes(&mut nonce);
    let ciphertext = key
        .cipher()
        .encrypt(
            Nonce::from_slice(&nonce),
            Payload {
                msg: plaintext,
                aad,
            },
        )
        .expect("plaintext within AES-GCM's length limit");
    let mut sealed = Vec::with_capacity(OVERHEAD + plaintext.len());
    sealed.extend_from_slice(MAGIC);
    sealed.extend_from_slice(&nonce);
    sealed.extend_from_slice(&ciphertext);
    sealed
}

/// Decrypts a blob made by [`seal`]; fails on a wrong key, wrong `aad` or any change.
pub fn open(key: &SealKey, sealed: &[u8], aad: &[u8]) -> Result<Vec<u8>, CryptoError> {
    if sealed.len() < OVERHEAD {
        return Err(CryptoError::TooShort);
    }
    let (magic, rest) = sealed.split_at(MAGIC.len());
    if magic != MAGIC {
        return Err(CryptoError::UnknownFormat);
    }
    let (nonce, ciphertext) = rest.split_at(NONCE_LEN);
    key.cipher()
        .decrypt(
            Nonce::from_slice(nonce),
            Payload {
                msg: ciphertext,
                aad,
            },
        )
        .map_err(|_| CryptoError::Unseal)
}

#[cfg(test)]
mod tests;
