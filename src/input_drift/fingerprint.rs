//! Keyed fingerprints of shared inputs: HMAC-SHA256 under a server key, so a value can be
//! compared across runs without being stored, posted or logged.

use std::fmt;

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// Separates input fingerprints from every other HMAC the server computes with the same key.
const DOMAIN: &[u8] = b"tfgate/shared-input-fingerprint/v1\0";

/// Number of hex digits shown to readers.
pub const SHORT_LEN: usize = 12;

/// Full length of a fingerprint in hex digits (SHA-256).
pub const HEX_LEN: usize = 64;

/// A keyed fingerprint (64 lowercase hex digits). Holds no trace of the value; `Display`
/// shows the short form. Equality is constant-time.
#[derive(Clone)]
pub struct Fingerprint {
    hex: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FingerprintError {
    #[error("a fingerprint is {HEX_LEN} hex digits, found {found} characters")]
    Length { found: usize },
    #[error("a fingerprint holds only hex digits (0-9, a-f)")]
    NotHex,
}

/// HMAC-SHA256(key, DOMAIN ‖ len(name) as u64 BE ‖ name ‖ value). The length prefix keeps
/// `("AB", "C")` and `("A", "BC")` apart.
pub fn fingerprint(key: &[u8], input_name: &str, value: &str) -> Fingerprint {
    // HMAC accepts keys of any length; `new_from_slice` cannot fail for it.
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(DOMAIN);
    mac.update(&(input_name.len() as u64).to_be_bytes());
    mac.update(input_name.as_bytes());
    mac.update(value.as_bytes());
    Fingerprint {
        hex: hex::encode(mac.finalize().into_bytes()),
    }
}

impl Fingerprint {
    /// Parses a stored fingerprint (lock file, database). Accepts upper case; keeps lower case.
    pub fn from_hex(text: &str) -> Result<Fingerprint, FingerprintError> {
        if text.len() != HEX_LEN {
            return Err(FingerprintError::Length {
                found: text.chars().count(),
            });
        }
        if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(FingerprintError::NotHex);
        }
        Ok(Fingerprint {
            hex: text.to_ascii_lowercase(),
        })
    }

    /// All 64 hex digits (for storage and the lock file).
    pub fn as_hex(&self) -> &str {
        &self.hex
    }

    /// The first [`SHORT_LEN`] hex digits (for readers).
    pub fn short(&self) -> &str {
        &self.hex[..SHORT_LEN]
    }
}

impl PartialEq for Fingerprint {
    fn eq(&self, other: &Self) -> bool {
        constant_time_eq(self.hex.as_bytes(), other.hex.as_bytes())
    }
}

impl Eq for Fingerprint {}

impl std::hash::Hash for Fingerprint {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.hex.hash(state);
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.short())
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({})", self.short())
    }
}

impl serde::Serialize for Fingerprint {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.hex)
    }
}

/// Compares without an early exit (both sides are fixed-length hex in practice).
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const KEY: &[u8] = b"server-key-for-tests";

    #[test]
    fn known_answer() {
        // Computed independently: HMAC-SHA256 with the documented message layout.
        let mut message = DOMAIN.to_vec();
        message.extend_from_slice(&11u64.to_be_bytes());
        message.extend_from_slice(b"ADMIN_CIDRS");
        message.extend_from_slice(b"[\"10.0.0.1/32\"]");
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(KEY).unwrap();
        mac.update(&message);
        let want = hex::encode(mac.finalize().into_bytes());
        let got = fingerprint(KEY, "ADMIN_CIDRS", "[\"10.0.0.1/32\"]");
        assert_eq!(got.as_hex(), want);
        assert_eq!(got.as_hex().len(), HEX_LEN);
        assert_eq!(got.short(), &want[..12]);
        assert_eq!(got.to_string(), &want[..12]);
    }

    #[test]
    fn depends_on_key_name_and_value() {
        let base = fingerprint(KEY, "ADMIN_CIDRS", "a");
        assert_eq!(base, fingerprint(KEY, "ADMIN_CIDRS", "a"));
        assert_ne!(base, fingerprint(b"other-key", "ADMIN_CIDRS", "a"));
        assert_ne!(base, fingerprint(KEY, "OTHER", "a"));
        assert_ne!(base, fingerprint(KEY, "ADMIN_CIDRS", "b"));
        // Name/value boundary is unambiguous.
        assert_ne!(fingerprint(KEY, "AB", "C"), fingerprint(KEY, "A", "BC"));
    }

    #[test]
    fn never_shows_the_value() {
        let secret = "10.20.30.40/32";
        let fp = fingerprint(KEY, "ADMIN_CIDRS", secret);
        for shown in [
            fp.to_string(),
            format!("{fp:?}"),
            serde_json::to_string(&fp).unwrap(),
        ] {
            assert!(!shown.contains(secret), "{shown}");
            assert!(!shown.contains("10.20"), "{shown}");
        }
        assert_eq!(format!("{fp:?}"), format!("Fingerprint({})", fp.short()));
    }

    #[test]
    fn parses_hex() {
        let fp = fingerprint(KEY, "X", "v");
        assert_eq!(Fingerprint::from_hex(fp.as_hex()).unwrap(), fp);
        assert_eq!(
            Fingerprint::from_hex(&fp.as_hex().to_ascii_uppercase()).unwrap(),
            fp
        );
        assert_eq!(
            Fingerprint::from_hex(&fp.as_hex()[..63]),
            Err(FingerprintError::Length { found: 63 })
        );
        let mut bad = fp.as_hex().to_string();
        bad.replace_range(0..1, "g");
        assert_eq!(Fingerprint::from_hex(&bad), Err(FingerprintError::NotHex));
    }

    #[test]
    fn constant_time_eq_compares_bytes() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
        assert!(constant_time_eq(b"", b""));
    }

    proptest! {
        #[test]
        fn distinct_values_give_distinct_fingerprints(a in ".{0,40}", b in ".{0,40}") {
            prop_assume!(a != b);
            prop_assert_ne!(fingerprint(KEY, "N", &a), fingerprint(KEY, "N", &b));
        }

        #[test]
        fn hex_round_trip(value in ".{0,40}") {
            let fp = fingerprint(KEY, "N", &value);
            prop_assert_eq!(Fingerprint::from_hex(fp.as_hex()).unwrap(), fp);
        }
    }
}
