//! `X-Hub-Signature-256` verification: HMAC-SHA256 of the raw body, compared in constant time,
//! against each configured secret (several during a rotation).

use hmac::{Hmac, Mac};
use secrecy::{ExposeSecret, SecretString};
use sha2::Sha256;

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("missing X-Hub-Signature-256 header")]
    Missing,
    #[error("malformed X-Hub-Signature-256 header")]
    Malformed,
    #[error("signature does not match")]
    Mismatch,
    #[error("no webhook secret is configured")]
    NoSecret,
}

/// Verify `header` (`sha256=<64 hex>`) over `body` with any of `secrets`.
pub fn verify(
    secrets: &[SecretString],
    header: Option<&str>,
    body: &[u8],
) -> Result<(), SignatureError> {
    if secrets.is_empty() {
        return Err(SignatureError::NoSecret);
    }
    let header = header.ok_or(SignatureError::Missing)?;
    let hex_sig = header
        .trim()
        .strip_prefix("sha256=")
        .ok_or(SignatureError::Malformed)?;
    if hex_sig.len() != 64 {
        return Err(SignatureError::Malformed);
    }
    let sig = hex::decode(hex_sig).map_err(|_| SignatureError::Malformed)?;
    let mut matched = false;
    // Check every secret (no early exit), so timing does not reveal which one matched.
    for secret in secrets {
        let mut mac = Hmac::<Sha256>::new_from_slice(secret.expose_secret().as_bytes())
            .expect("HMAC accepts keys of any length");
        mac.update(body);
        matched |= mac.verify_slice(&sig).is_ok();
    }
    if matched {
        Ok(())
    } else {
        Err(SignatureError::Mismatch)
    }
}

/// The header value GitHub would send for `body` under `secret` (tests, benchmarks, CLI).
pub fn sign(secret: &str, body: &[u8]) -> String {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC accepts keys of any length");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets(list: &[&str]) -> Vec<SecretString> {
        list.iter()
            .map(|s| SecretString::from(s.to_string()))
            .collect()
    }

    #[test]
    fn github_documented_example_verifies() {
        // Example from GitHub's "Validating webhook deliveries" documentation.
        let header = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
        assert_eq!(
            verify(
                &secrets(&["It's a Secret to Everybody"]),
                Some(header),
                b"Hello, World!"
            ),
            Ok(())
        );
    }

    #[test]
    fn table() {
        let body = b"{\"a\":1}";
        let good = sign("new", body);
        let flipped = {
            let mut s = good.clone();
            let last = if s.ends_with('0') { '1' } else { '0' };
            s.pop();
            s.push(last);
            s
        };
        type Case = (
            Vec<&'static str>,
            Option<String>,
            Result<(), SignatureError>,
        );
        let cases: Vec<Case> = vec![
            (vec!["new"], Some(good.clone()), Ok(())),
            (vec!["old", "new"], Some(good.clone()), Ok(())),
            (
                vec!["old"],
                Some(good.clone()),
                Err(SignatureError::Mismatch),
            ),
            (vec![], Some(good.clone()), Err(SignatureError::NoSecret)),
            (vec!["new"], None, Err(SignatureError::Missing)),
            (
                vec!["new"],
                Some("sha1=abc".into()),
                Err(SignatureError::Malformed),
            ),
            (
                vec!["new"],
                Some("sha256=zz".into()),
                Err(SignatureError::Malformed),
            ),
            (
                vec!["new"],
                Some(format!("sha256={}", "g".repeat(64))),
                Err(SignatureError::Malformed),
            ),
            (vec!["new"], Some(flipped), Err(SignatureError::Mismatch)),
        ];
        for (s, header, want) in cases {
            assert_eq!(
                verify(&secrets(&s), header.as_deref(), body),
                want,
                "{s:?} {header:?}"
            );
        }
    }

    #[test]
    fn body_change_breaks_signature() {
        let sig = sign("k", b"one");
        assert_eq!(
            verify(&secrets(&["k"]), Some(&sig), b"two"),
            Err(SignatureError::Mismatch)
        );
    }
}
