//! Whether this process's sealing key may be used with its database (pure): every process must
//! seal and open with the same key, so the first start stores the key's fingerprint (a
//! key-check value, not the key) and every later start compares.

use thiserror::Error;

/// The `server_settings` name of the key-check value.
pub const KEY_CHECK_SETTING: &str = "seal_key_fingerprint";

/// Why a process must not start with the key it has.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum KeyCheckError {
    #[error(
        "TFGATE_ENCRYPTION_KEY is required with PostgreSQL: every process (serve and each \
         worker, on any machine) must seal and open plans, logs and App credentials with the \
         same key, and without it each machine would make its own key file. Generate one with \
         `openssl rand -base64 32` and set it on every process"
    )]
    KeyRequired,
    #[error(
        "the sealing key (fingerprint {current}) is not the one this database was first used \
         with (fingerprint {stored}): plans, logs and App credentials sealed before could not \
         be read and would look corrupt. Set the original TFGATE_ENCRYPTION_KEY (or restore \
         DATA_DIR/seal.key) on every process"
    )]
    Mismatch { stored: String, current: String },
}

/// The key may come from the data directory's key file only on SQLite (one machine); on
/// PostgreSQL, processes on several machines share the database, so it must be configured.
pub fn require_configured_key(
    is_postgres: bool,
    key_configured: bool,
) -> Result<(), KeyCheckError> {
    if is_postgres && !key_configured {
        return Err(KeyCheckError::KeyRequired);
    }
    Ok(())
}

/// What the start-up does with the stored key-check value.
#[derive(Debug, PartialEq, Eq)]
pub enum KeyCheck {
    /// No value yet: store this key's fingerprint.
    FirstUse,
    Matches,
}

/// Compares the stored fingerprint (if any) with this process's key's fingerprint.
pub fn judge_key(stored: Option<&str>, current: &str) -> Result<KeyCheck, KeyCheckError> {
    match stored {
        None => Ok(KeyCheck::FirstUse),
        Some(stored) if stored.trim() == current => Ok(KeyCheck::Matches),
        Some(stored) => Err(KeyCheckError::Mismatch {
            stored: stored.trim().to_string(),
            current: current.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configured_key_is_required_only_on_postgres() {
        // (postgres, configured, required error)
        let table = [
            (false, false, false),
            (false, true, false),
            (true, true, false),
            (true, false, true),
        ];
        for (postgres, configured, refused) in table {
            let got = require_configured_key(postgres, configured);
            assert_eq!(
                got.is_err(),
                refused,
                "postgres {postgres}, key {configured}"
            );
        }
        let message = require_configured_key(true, false).unwrap_err().to_string();
        assert!(message.contains("TFGATE_ENCRYPTION_KEY"), "{message}");
        assert!(message.contains("openssl rand -base64 32"), "{message}");
    }

    #[test]
    fn the_stored_fingerprint_decides() {
        assert_eq!(judge_key(None, "aaaa"), Ok(KeyCheck::FirstUse));
        assert_eq!(judge_key(Some("aaaa"), "aaaa"), Ok(KeyCheck::Matches));
        assert_eq!(judge_key(Some("aaaa\n"), "aaaa"), Ok(KeyCheck::Matches));
        let err = judge_key(Some("aaaa"), "bbbb").unwrap_err();
        assert_eq!(
            err,
            KeyCheckError::Mismatch {
                stored: "aaaa".into(),
                current: "bbbb".into()
            }
        );
        let message = err.to_string();
        assert!(message.contains("fingerprint bbbb"), "{message}");
        assert!(message.contains("fingerprint aaaa"), "{message}");
        assert!(
            message.contains("original TFGATE_ENCRYPTION_KEY"),
            "{message}"
        );
    }
}
