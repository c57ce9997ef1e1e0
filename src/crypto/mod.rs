//! Encryption at rest for plan files, raw Terraform output and job payloads with raw failure
//! details: AES-256-GCM with a key from
//! configuration or a private key file, and associated data binding each blob to its run.
//!
//! ```ignore
//! let key = load_or_create_key(&config.data_dir, config.seal_key.as_ref())?;
//! let stored = seal(&key, &plan_bytes, &run_aad(run_id, BlobPurpose::Plan));
//! let plan_bytes = open(&key, &stored, &run_aad(run_id, BlobPurpose::Plan))?;
//! ```

mod error;
mod job_payload;
mod key;
pub mod key_check;
mod seal;

pub use error::CryptoError;
pub use job_payload::{open_job_payload, seal_job_payload};
pub use key::{load_existing_key, load_or_create_key, SealKey, KEY_FILE_NAME};
pub use seal::{open, run_aad, seal, BlobPurpose, MAGIC, NONCE_LEN, OVERHEAD, TAG_LEN};
