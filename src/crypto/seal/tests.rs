use super::*;

fn key(fill: u8) -> SealKey {
    SealKey::from_bytes([fill; 32])
}

fn plan_aad(run: i64) -> Vec<u8> {
    run_aad(run, BlobPurpose::Plan)
}

#[test]
fn aad_names_run_and_purpose() {
    assert_eq!(run_aad(42, BlobPurpose::Plan), b"run:42:plan");
    assert_eq!(run_aad(42, BlobPurpose::RawLog), b"run:42:log");
    assert_eq!(run_aad(-1, BlobPurpose::Plan), b"run:-1:plan");
}

#[test]
fn round_trip_for_several_sizes() {
    let key = key(7);
    for size in [0usize, 1, 15, 16, 17, 4096, 1 << 20] {
        let plaintext: Vec<u8> = (0..size).map(|i| (i * 13 % 251) as u8).collect();
        let sealed = seal(&key, &plaintext, &plan_aad(1));
        assert_eq!(sealed.len(), plaintext.len() + OVERHEAD);
        assert_eq!(&sealed[..4], b"TFG1");
        if size >= 16 {
            assert!(!sealed.windows(16).any(|w| w == &plaintext[..16]));
        }
        assert_eq!(
            open(&key, &sealed, &plan_aad(1)).unwrap(),
            plaintext,
            "size {size}"
        );
    }
}

#[test]
fn each_seal_uses_a_fresh_nonce() {
    let key = key(7);
    let a = seal(&key, b"same plan", &plan_aad(1));
    let b = seal(&key, b"same plan", &plan_aad(1));
    assert_ne!(a[4..16], b[4..16]);
    assert_ne!(a, b);
}

#[test]
fn tampering_with_any_region_is_detected() {
    let key = key(7);
    let plaintext = b"terraform plan bytes".to_vec();
    let sealed = seal(&key, &plaintext, &plan_aad(3));
    let body_end = sealed.len() - TAG_LEN;
    let regions = [
        ("magic", 0, CryptoError::UnknownFormat),
        ("magic last byte", 3, CryptoError::UnknownFormat),
        ("nonce first byte", 4, CryptoError::Unseal),
        ("nonce last byte", 15, CryptoError::Unseal),
        ("ciphertext first byte", 16, CryptoError::Unseal),
        ("ciphertext last byte", body_end - 1, CryptoError::Unseal),
        ("tag first byte", body_end, CryptoError::Unseal),
        ("tag last byte", sealed.len() - 1, CryptoError::Unseal),
    ];
    for (name, index, expected) in regions {
        let mut tampered = sealed.clone();
        tampered[index] ^= 0x01;
        let err = open(&key, &tampered, &plan_aad(3)).unwrap_err();
        assert_eq!(err.to_string(), expected.to_string(), "{name}");
    }
}

#[test]
fn truncation_and_extension_are_detected() {
    let key = key(7);
    let sealed = seal(&key, b"plan", &plan_aad(3));
    assert!(matches!(
        open(&key, &sealed[..sealed.len() - 1], &plan_aad(3)),
        Err(CryptoError::Unseal)
    ));
    assert!(matches!(
        open(&key, &sealed[..OVERHEAD - 1], &plan_aad(3)),
        Err(CryptoError::TooShort)
    ));
    assert!(matches!(
        open(&key, b"", &plan_aad(3)),
        Err(CryptoError::TooShort)
    ));
    let mut longer = sealed.clone();
    longer.push(0);
    assert!(matches!(
        open(&key, &longer, &plan_aad(3)),
        Err(CryptoError::Unseal)
    ));
}

#[test]
fn wrong_aad_is_rejected() {
    let key = key(7);
    let sealed = seal(&key, b"plan", &plan_aad(3));
    for wrong in [plan_aad(4), run_aad(3, BlobPurpose::RawLog), Vec::new()] {
        assert!(
            matches!(open(&key, &sealed, &wrong), Err(CryptoError::Unseal)),
            "{}",
            String::from_utf8_lossy(&wrong)
        );
    }
}

#[test]
fn wrong_key_is_rejected() {
    let sealed = seal(&key(7), b"plan", &plan_aad(3));
    assert!(matches!(
        open(&key(8), &sealed, &plan_aad(3)),
        Err(CryptoError::Unseal)
    ));
}

#[test]
fn opens_a_standard_aes_256_gcm_vector() {
    // NIST GCM spec test case 14: zero key, zero IV, 16 zero bytes, no AAD.
    let ciphertext = hex::decode("cea7403d4d606b6e074ec5d3baf39d18").unwrap();
    let tag = hex::decode("d0d1c8a799996bf0265b98b5d48ab919").unwrap();
    let mut sealed = MAGIC.to_vec();
    sealed.extend_from_slice(&[0u8; NONCE_LEN]);
    sealed.extend_from_slice(&ciphertext);
    sealed.extend_from_slice(&tag);
    assert_eq!(open(&key(0), &sealed, b"").unwrap(), vec![0u8; 16]);
}
