//! OpenPGP signatures over a release's `SHA256SUMS`, checked with the rpgp crate against
//! the vendors' keys shipped in `keys/` (or the keys an operator names for a mirror that
//! signs its own files).
//!
//! A signature is accepted when it verifies with a trusted primary key, or with one of its
//! subkeys whose binding (and back-signature) verifies and that may sign. Weak hashes
//! (MD5, SHA-1, RIPEMD-160) are refused.

use pgp::composed::{Deserializable, DetachedSignature, SignedPublicKey};
use pgp::crypto::hash::HashAlgorithm;
use pgp::types::KeyDetails;
use std::io::Cursor;

/// HashiCorp's release key, primary fingerprint C874 011F 0AB4 0511 0D02 1055 3436 5D94 72D7 468F.
pub const HASHICORP_KEY: &str = include_str!("../../keys/hashicorp.asc");
pub const HASHICORP_FINGERPRINT: &str = "C874011F0AB405110D02105534365D9472D7468F";
/// OpenTofu's release key, fingerprint E3E6 E43D 84CB 852E ADB0 051D 0C0A F313 E5FD 9F80.
pub const OPENTOFU_KEY: &str = include_str!("../../keys/opentofu.asc");
pub const OPENTOFU_FINGERPRINT: &str = "E3E6E43D84CB852EADB0051D0C0AF313E5FD9F80";

/// Why a signature was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("the signature file is not an OpenPGP signature")]
    Unreadable,
    #[error("the signature uses a weak or unknown hash")]
    WeakHash,
    #[error("the signature was not made by a trusted key over this file")]
    NotTrusted,
}

/// The keys release signatures are checked against.
pub struct Keyring {
    keys: Vec<SignedPublicKey>,
}

impl Keyring {
    /// The vendors' keys shipped with tfgate, each checked against its pinned fingerprint.
    pub fn shipped() -> Keyring {
        let pinned = [
            (HASHICORP_KEY, HASHICORP_FINGERPRINT),
            (OPENTOFU_KEY, OPENTOFU_FINGERPRINT),
        ];
        let keys = pinned
            .iter()
            .map(|(text, fingerprint)| {
                let key = Keyring::from_armored(text)
                    .ok()
                    .and_then(|mut ring| ring.keys.pop())
                    .expect("a shipped key parses");
                assert_eq!(
                    fingerprint_of(&key),
                    *fingerprint,
                    "a shipped key has its pinned fingerprint"
                );
                key
            })
            .collect();
        Keyring { keys }
    }

    /// Every public key in armored text (one or more blocks), each with valid self-bindings.
    pub fn from_armored(text: &str) -> Result<Keyring, String> {
        const BEGIN: &str = "-----BEGIN PGP PUBLIC KEY BLOCK-----";
        let mut keys = Vec::new();
        // One armor block at a time: the reader stops after the first block.
        for (start, _) in text.match_indices(BEGIN) {
            let parsed = SignedPublicKey::from_armor_many(Cursor::new(&text.as_bytes()[start..]))
                .map_err(|e| format!("not an armored OpenPGP public key: {e}"))?;
            for key in parsed.0 {
                let key = key.map_err(|e| format!("unreadable OpenPGP public key: {e}"))?;
                key.verify_bindings().map_err(|e| {
                    format!(
                        "key {} has an invalid self-signature: {e}",
                        fingerprint_of(&key)
                    )
                })?;
                keys.push(key);
            }
        }
        if keys.is_empty() {
            return Err("no OpenPGP public key found".into());
        }
        Ok(Keyring { keys })
    }

    /// Primary fingerprints, upper-case hex.
    pub fn fingerprints(&self) -> Vec<String> {
        self.keys.iter().map(fingerprint_of).collect()
    }

    /// Checks a detached signature (binary or armored) over `data`; returns the fingerprint
    /// of the primary key it belongs to.
    pub fn verify(&self, data: &[u8], signature: &[u8]) -> Result<String, SignatureError> {
        let (sig, _) = DetachedSignature::from_reader_single(Cursor::new(signature))
            .map_err(|_| SignatureError::Unreadable)?;
        let strong = matches!(
            sig.signature.hash_alg(),
            Some(HashAlgorithm::Sha256 | HashAlgorithm::Sha384 | HashAlgorithm::Sha512)
        );
        if !strong {
            return Err(SignatureError::WeakHash);
        }
        for key in &self.keys {
            if sig.verify(&key.primary_key, data).is_ok() {
                return Ok(fingerprint_of(key));
            }
            let signing_subkeys = key.public_subkeys.iter().filter(|sub| {
                sub.signatures.iter().any(|b| b.key_flags().sign())
                    && sub.verify_bindings(&key.primary_key).is_ok()
            });
            for sub in signing_subkeys {
                if sig.verify(&sub.key, data).is_ok() {
                    return Ok(fingerprint_of(key));
                }
            }
        }
        Err(SignatureError::NotTrusted)
    }
}

fn fingerprint_of(key: &SignedPublicKey) -> String {
    format!("{:X}", key.fingerprint())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/releases");

    fn fixture(name: &str) -> Vec<u8> {
        std::fs::read(format!("{FIXTURES}/{name}")).unwrap()
    }

    #[test]
    fn real_terraform_and_opentofu_signatures_verify_with_the_shipped_keys() {
        let ring = Keyring::shipped();
        let tf = fixture("terraform_1.9.8_SHA256SUMS");
        let tf_sig = fixture("terraform_1.9.8_SHA256SUMS.72D7468F.sig");
        assert_eq!(ring.verify(&tf, &tf_sig).unwrap(), HASHICORP_FINGERPRINT);
        let tofu = fixture("tofu_1.8.5_SHA256SUMS");
        let tofu_sig = fixture("tofu_1.8.5_SHA256SUMS.gpgsig");
        assert_eq!(ring.verify(&tofu, &tofu_sig).unwrap(), OPENTOFU_FINGERPRINT);
    }

    #[test]
    fn a_changed_byte_a_swapped_pair_or_an_unknown_key_is_refused() {
        let ring = Keyring::shipped();
        let tf = fixture("terraform_1.9.8_SHA256SUMS");
        let tf_sig = fixture("terraform_1.9.8_SHA256SUMS.72D7468F.sig");
        let mut tampered = tf.clone();
        tampered[0] = if tampered[0] == b'b' { b'c' } else { b'b' };
        assert_eq!(
            ring.verify(&tampered, &tf_sig),
            Err(SignatureError::NotTrusted)
        );
        let mut longer = tf.clone();
        longer.push(b'\n');
        assert_eq!(
            ring.verify(&longer, &tf_sig),
            Err(SignatureError::NotTrusted)
        );
        let tofu = fixture("tofu_1.8.5_SHA256SUMS");
        assert_eq!(ring.verify(&tofu, &tf_sig), Err(SignatureError::NotTrusted));
        let only_tofu = Keyring::from_armored(OPENTOFU_KEY).unwrap();
        assert_eq!(
            only_tofu.verify(&tf, &tf_sig),
            Err(SignatureError::NotTrusted)
        );
        assert_eq!(
            ring.verify(&tf, b"not a signature"),
            Err(SignatureError::Unreadable)
        );
        assert_eq!(ring.verify(&tf, &tf), Err(SignatureError::Unreadable));
    }

    #[test]
    fn keyrings_from_text() {
        let both = format!("{HASHICORP_KEY}\n{OPENTOFU_KEY}");
        let ring = Keyring::from_armored(&both).unwrap();
        assert_eq!(
            ring.fingerprints(),
            [HASHICORP_FINGERPRINT, OPENTOFU_FINGERPRINT]
        );
        assert!(Keyring::from_armored("hello").is_err());
        assert!(Keyring::from_armored("").is_err());
    }
}
