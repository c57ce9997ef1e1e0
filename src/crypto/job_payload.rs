//! Job payloads that carry raw failure details (the `enrich` job: resource addresses, role ARNs,
//! account ids, AWS request ids and encoded authorization messages) are sealed at rest like plan
//! files and raw logs: the jobs table then holds `{"sealed":"<base64>"}`, bound to the job kind.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde::{Deserialize, Serialize};

use super::{open, seal, CryptoError, SealKey};

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Sealed {
    sealed: String,
}

/// Associated data for a sealed payload of a job of `kind`: `job:<kind>`.
fn job_aad(kind: &str) -> Vec<u8> {
    format!("job:{kind}").into_bytes()
}

/// `plaintext` (the payload's JSON) sealed for the jobs table.
pub fn seal_job_payload(key: &SealKey, kind: &str, plaintext: &str) -> String {
    let sealed = seal(key, plaintext.as_bytes(), &job_aad(kind));
    serde_json::to_string(&Sealed {
        sealed: STANDARD.encode(sealed),
    })
    .expect("a string serialises")
}

/// The JSON inside a payload made by [`seal_job_payload`]. A payload that is not in the sealed
/// form (a job queued before payloads were sealed) is returned as it is.
pub fn open_job_payload(key: &SealKey, kind: &str, stored: &str) -> Result<String, CryptoError> {
    let Ok(Sealed { sealed }) = serde_json::from_str::<Sealed>(stored) else {
        return Ok(stored.to_string());
    };
    let bytes = STANDARD
        .decode(sealed)
        .map_err(|_| CryptoError::UnknownFormat)?;
    let plaintext = open(key, &bytes, &job_aad(kind))?;
    String::from_utf8(plaintext).map_err(|_| CryptoError::UnknownFormat)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAYLOAD: &str = r#"{"read_role":"arn:aws:iam::123456789012:role/read","request_id":"6a3f6a3b-0000-4000-8000-000000000002"}"#;

    fn key(byte: u8) -> SealKey {
        SealKey::from_bytes([byte; SealKey::LEN])
    }

    #[test]
    fn sealed_payload_hides_its_content_and_opens_again() {
        let stored = seal_job_payload(&key(7), "enrich", PAYLOAD);
        for secret in ["arn:aws", "123456789012", "6a3f6a3b", "read_role"] {
            assert!(!stored.contains(secret), "{secret} in {stored}");
        }
        assert_eq!(
            open_job_payload(&key(7), "enrich", &stored).unwrap(),
            PAYLOAD
        );
    }

    #[test]
    fn wrong_key_or_kind_does_not_open() {
        let stored = seal_job_payload(&key(7), "enrich", PAYLOAD);
        assert!(matches!(
            open_job_payload(&key(8), "enrich", &stored),
            Err(CryptoError::Unseal)
        ));
        assert!(matches!(
            open_job_payload(&key(7), "comment", &stored),
            Err(CryptoError::Unseal)
        ));
        let not_base64 = r#"{"sealed":"%%%"}"#;
        assert!(matches!(
            open_job_payload(&key(7), "enrich", not_base64),
            Err(CryptoError::UnknownFormat)
        ));
    }

    #[test]
    fn payload_queued_before_sealing_is_read_as_is() {
        assert_eq!(
            open_job_payload(&key(7), "enrich", PAYLOAD).unwrap(),
            PAYLOAD
        );
    }
}
