//! OpenPGP signatures over a release's `SHA256SUMS`, checked with the rpgp crate against
//! the vendors' keys shipped in `keys/` (or the keys an operator names for a mirror that
//! signs its own files).
//!
//! A signature is accepted when it verifies with a trusted primary key, or with one of its
//! subkeys whose binding (and back-signature) verifies and that may sign, and when that key
//! is still valid: neither the primary key nor the subkey has expired (at the time of the
//! check) or been revoked. Each tool verifies only with its own vendor's key: a HashiCorp
//! signature never installs OpenTofu, nor the reverse (an operator's own key, for a mirror
//! that signs its own files, signs for both). Weak hashes (MD5, SHA-1, RIPEMD-160) are refused.

use pgp::composed::{Deserializable, DetachedSignature, SignedPublicKey, SignedPublicSubKey};
use pgp::crypto::hash::HashAlgorithm;
use pgp::packet::{Signature, SignatureType};
use pgp::types::{KeyDetails, Timestamp};
use std::io::Cursor;

use super::Tool;

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
    #[error("the signature was made by a trusted key that has expired or was revoked")]
    KeyNotValid,
}

/// A trusted key and the tool it signs for (`None`: any, an operator's own key).
struct TrustedKey {
    key: SignedPublicKey,
    tool: Option<Tool>,
}

/// The keys release signatures are checked against.
pub struct Keyring {
    keys: Vec<TrustedKey>,
}

/// The tool a vendor key signs for, by its pinned fingerprint.
fn vendor_tool(fingerprint: &str) -> Option<Tool> {
    match fingerprint {
        HASHICORP_FINGERPRINT => Some(Tool::Terraform),
        OPENTOFU_FINGERPRINT => Some(Tool::OpenTofu),
        _ => None,
    }
}

/// Whether a key made at `created` whose newest self-signature is `newest` has expired at `now`.
fn expired(created: Timestamp, newest: Option<&Signature>, now: u32) -> bool {
    let lifetime = newest
        .and_then(Signature::key_expiration_time)
        .map_or(0, |d| d.as_secs());
    lifetime != 0 && u64::from(created.as_secs()) + u64::from(lifetime) <= u64::from(now)
}

fn newest<'a>(sigs: impl Iterator<Item = &'a Signature>) -> Option<&'a Signature> {
    sigs.max_by_key(|s| s.created().map_or(0, Timestamp::as_secs))
}

/// The primary key is neither revoked nor expired at `now`.
fn primary_valid(key: &SignedPublicKey, now: u32) -> bool {
    let self_sigs = key
        .details
        .users
        .iter()
        .flat_map(|u| u.signatures.iter())
        .chain(key.details.direct_signatures.iter());
    key.details.revocation_signatures.is_empty()
        && !expired(key.primary_key.created_at(), newest(self_sigs), now)
}

/// The subkey is neither revoked nor expired at `now` (its bindings verified already).
fn subkey_valid(sub: &SignedPublicSubKey, now: u32) -> bool {
    let of = |t| sub.signatures.iter().filter(move |s| s.typ() == Some(t));
    of(SignatureType::SubkeyRevocation).next().is_none()
        && !expired(
            sub.key.created_at(),
            newest(of(SignatureType::SubkeyBinding)),
            now,
        )
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
                let trusted = Keyring::from_armored(text)
                    .ok()
                    .and_then(|mut ring| ring.keys.pop())
                    .expect("a shipped key parses");
                assert_eq!(
                    fingerprint_of(&trusted.key),
                    *fingerprint,
                    "a shipped key has its pinned fingerprint"
                );
                trusted
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
                let tool = vendor_tool(&fingerprint_of(&key));
                keys.push(TrustedKey { key, tool });
            }
        }
        if keys.is_empty() {
            return Err("no OpenPGP public key found".into());
        }
        Ok(Keyring { keys })
    }

    /// Primary fingerprints, upper-case hex.
    pub fn fingerprints(&self) -> Vec<String> {
        self.keys.iter().map(|k| fingerprint_of(&k.key)).collect()
    }

    /// Checks a detached signature (binary or armored) over `data` of a `tool` release, now;
    /// returns the fingerprint of the primary key it belongs to.
    pub fn verify(
        &self,
        tool: Tool,
        data: &[u8],
        signature: &[u8],
    ) -> Result<String, SignatureError> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u32::try_from(d.as_secs()).unwrap_or(u32::MAX));
        self.verify_at(tool, data, signature, now)
    }

    /// [`Keyring::verify`] at `now` (Unix seconds).
    pub fn verify_at(
        &self,
        tool: Tool,
        data: &[u8],
        signature: &[u8],
        now: u32,
    ) -> Result<String, SignatureError> {
        let (sig, _) = DetachedSignature::from_reader_single(Cursor::new(signature))
            .map_err(|_| SignatureError::Unreadable)?;
        let strong = matches!(
            sig.signature.hash_alg(),
            Some(HashAlgorithm::Sha256 | HashAlgorithm::Sha384 | HashAlgorithm::Sha512)
        );
        if !strong {
            return Err(SignatureError::WeakHash);
        }
        let mut invalid_key = false;
        for trusted in self
            .keys
            .iter()
            .filter(|k| k.tool.map_or(true, |t| t == tool))
        {
            let key = &trusted.key;
            let primary_ok = primary_valid(key, now);
            let signing_subkeys = key.public_subkeys.iter().filter(|sub| {
                sub.signatures.iter().any(|b| b.key_flags().sign())
                    && sub.verify_bindings(&key.primary_key).is_ok()
            });
            let mut made_by = std::iter::once((sig.verify(&key.primary_key, data).is_ok(), true))
                .chain(
                    signing_subkeys
                        .map(|sub| (sig.verify(&sub.key, data).is_ok(), subkey_valid(sub, now))),
                )
                .filter(|(verified, _)| *verified);
            match made_by.next() {
                Some((_, valid)) if valid && primary_ok => return Ok(fingerprint_of(key)),
                Some(_) => invalid_key = true,
                None => {}
            }
        }
        Err(if invalid_key {
            SignatureError::KeyNotValid
        } else {
            SignatureError::NotTrusted
        })
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
        assert_eq!(
            ring.verify(Tool::Terraform, &tf, &tf_sig).unwrap(),
            HASHICORP_FINGERPRINT
        );
        let tofu = fixture("tofu_1.8.5_SHA256SUMS");
        let tofu_sig = fixture("tofu_1.8.5_SHA256SUMS.gpgsig");
        assert_eq!(
            ring.verify(Tool::OpenTofu, &tofu, &tofu_sig).unwrap(),
            OPENTOFU_FINGERPRINT
        );
    }

    #[test]
    fn a_changed_byte_a_swapped_pair_or_an_unknown_key_is_refused() {
        let ring = Keyring::shipped();
        let tf = fixture("terraform_1.9.8_SHA256SUMS");
        let tf_sig = fixture("terraform_1.9.8_SHA256SUMS.72D7468F.sig");
        let mut tampered = tf.clone();
        tampered[0] = if tampered[0] == b'b' { b'c' } else { b'b' };
        assert_eq!(
            ring.verify(Tool::Terraform, &tampered, &tf_sig),
            Err(SignatureError::NotTrusted)
        );
        let mut longer = tf.clone();
        longer.push(b'\n');
        assert_eq!(
            ring.verify(Tool::Terraform, &longer, &tf_sig),
            Err(SignatureError::NotTrusted)
        );
        let tofu = fixture("tofu_1.8.5_SHA256SUMS");
        assert_eq!(
            ring.verify(Tool::Terraform, &tofu, &tf_sig),
            Err(SignatureError::NotTrusted)
        );
        let only_tofu = Keyring::from_armored(OPENTOFU_KEY).unwrap();
        assert_eq!(
            only_tofu.verify(Tool::Terraform, &tf, &tf_sig),
            Err(SignatureError::NotTrusted)
        );
        assert_eq!(
            ring.verify(Tool::Terraform, &tf, b"not a signature"),
            Err(SignatureError::Unreadable)
        );
        assert_eq!(
            ring.verify(Tool::Terraform, &tf, &tf),
            Err(SignatureError::Unreadable)
        );
    }

    #[test]
    fn each_tool_verifies_only_with_its_own_vendors_key() {
        let ring = Keyring::shipped();
        let tf = fixture("terraform_1.9.8_SHA256SUMS");
        let tf_sig = fixture("terraform_1.9.8_SHA256SUMS.72D7468F.sig");
        let tofu = fixture("tofu_1.8.5_SHA256SUMS");
        let tofu_sig = fixture("tofu_1.8.5_SHA256SUMS.gpgsig");
        assert_eq!(
            ring.verify(Tool::OpenTofu, &tf, &tf_sig),
            Err(SignatureError::NotTrusted),
            "HashiCorp's signature does not install OpenTofu"
        );
        assert_eq!(
            ring.verify(Tool::Terraform, &tofu, &tofu_sig),
            Err(SignatureError::NotTrusted),
            "OpenTofu's signature does not install Terraform"
        );
        // The vendors' keys given as TFGATE_RELEASE_KEYS keep to their tools; another key
        // (a mirror's own) signs for both.
        let given = Keyring::from_armored(&format!("{HASHICORP_KEY}\n{OPENTOFU_KEY}")).unwrap();
        assert!(given.verify(Tool::OpenTofu, &tf, &tf_sig).is_err());
        assert!(given.verify(Tool::Terraform, &tf, &tf_sig).is_ok());
        let own = Keyring::from_armored(&bad_key("valid.asc")).unwrap();
        let (sums, sig) = (bad_key_file("SHA256SUMS"), bad_key_file("valid.sig"));
        for tool in [Tool::Terraform, Tool::OpenTofu] {
            assert!(own.verify_at(tool, &sums, &sig, NOW).is_ok(), "{tool:?}");
        }
    }

    fn bad_key_file(name: &str) -> Vec<u8> {
        fixture(&format!("bad-keys/{name}"))
    }

    fn bad_key(name: &str) -> String {
        String::from_utf8(bad_key_file(name)).unwrap()
    }

    /// 2026-12-05: after every expiry and revocation of `tests/fixtures/releases/bad-keys/`.
    const NOW: u32 = 1_796_428_800;
    /// 2020-01-01 18:00: the signatures are made, nothing has expired or been revoked yet
    /// (revocation signatures, though, count whenever they are present).
    const BEFORE_EXPIRY: u32 = 1_577_901_600;

    #[test]
    fn expired_or_revoked_keys_and_subkeys_are_refused() {
        let sums = bad_key_file("SHA256SUMS");
        for (name, at_expiry_time) in [
            ("expired-primary", Some(BEFORE_EXPIRY)),
            ("expired-subkey", Some(BEFORE_EXPIRY)),
            ("revoked-primary", None),
            ("revoked-subkey", None),
        ] {
            let ring = Keyring::from_armored(&bad_key(&format!("{name}.asc"))).unwrap();
            let sig = bad_key_file(&format!("{name}.sig"));
            assert_eq!(
                ring.verify_at(Tool::Terraform, &sums, &sig, NOW),
                Err(SignatureError::KeyNotValid),
                "{name}"
            );
            assert_eq!(
                ring.verify(Tool::Terraform, &sums, &sig),
                Err(SignatureError::KeyNotValid),
                "{name}, now"
            );
            if let Some(then) = at_expiry_time {
                assert!(
                    ring.verify_at(Tool::Terraform, &sums, &sig, then).is_ok(),
                    "{name} was valid when it signed"
                );
            }
        }
        let valid = Keyring::from_armored(&bad_key("valid.asc")).unwrap();
        assert!(valid
            .verify(Tool::Terraform, &sums, &bad_key_file("valid.sig"))
            .is_ok());
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
