//! Encryption at rest for plan files and raw Terraform output: AES-256-GCM with a key from
//! configuration or a private key file, and associated data binding each blob to its run.
//!
//! ```ignore
//! let key = load_or_create_key(&config.data_dir, config.seal_key.as_ref())?;
//! let stored = seal(&key, &plan_bytes, &run_aad(run_id, BlobPurpose::Plan));
//! let plan_bytes = open(&key, &stored, &run_aad(run_id, BlobPurpose::Plan))?;
//! ```

mod error;
mod key;
mod seal;

pub use error::CryptoError;
pub use key::{load_or_create_key, SealKey, KEY_FILE_NAME};
pub use seal::{open, run_aad, seal, BlobPurpose, MAGIC, NONCE_LEN, OVERHEAD, TAG_LEN};
