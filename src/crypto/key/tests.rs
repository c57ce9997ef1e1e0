use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::sync::{Arc, Barrier};

use super::*;

const KEY_B64: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

fn key_bytes() -> [u8; 32] {
    std::array::from_fn(|i| i as u8)
}

#[test]
fn key_from_env_value_is_used_and_no_file_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let env = SecretString::from(format!("  {KEY_B64}\n"));
    let key = load_or_create_key(dir.path(), Some(&env)).unwrap();
    assert_eq!(
        key.fingerprint(),
        SealKey::from_bytes(key_bytes()).fingerprint()
    );
    assert!(!dir.path().join(KEY_FILE_NAME).exists());
}

#[test]
fn bad_env_values_are_errors_that_do_not_echo_the_value() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("not base64 at all!", "not valid base64"),
        ("c2hvcnQ=", "must be 32 bytes, got 5"),
        (
            "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gIQ==",
            "must be 32 bytes, got 34",
        ),
        ("", "must be 32 bytes, got 0"),
    ];
    for (value, expected) in cases {
        let env = SecretString::from(value);
        let err = load_or_create_key(dir.path(), Some(&env)).unwrap_err();
        let text = format!("{err} {err:?}");
        assert!(text.contains(expected), "{value:?}: {text}");
        if !value.is_empty() {
            assert!(!text.contains(value), "{value:?} echoed: {text}");
        }
    }
}

#[test]
fn key_file_is_created_with_mode_0600_and_reused() {
    let base = tempfile::tempdir().unwrap();
    let data_dir = base.path().join("data");
    let created = load_or_create_key(&data_dir, None).unwrap();
    let path = data_dir.join(KEY_FILE_NAME);
    let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let dir_mode = fs::metadata(&data_dir).unwrap().permissions().mode() & 0o777;
    assert_eq!(dir_mode, 0o700);
    let text = fs::read_to_string(&path).unwrap();
    assert_eq!(
        SealKey::from_base64(&text).unwrap().fingerprint(),
        created.fingerprint()
    );
    let loaded = load_or_create_key(&data_dir, None).unwrap();
    assert_eq!(loaded.fingerprint(), created.fingerprint());
    let names: Vec<_> = fs::read_dir(&data_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, [KEY_FILE_NAME]);
}

#[test]
fn generated_keys_differ() {
    assert_ne!(
        SealKey::generate().fingerprint(),
        SealKey::generate().fingerprint()
    );
}

#[test]
fn key_file_readable_by_others_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(KEY_FILE_NAME);
    fs::write(&path, KEY_B64).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
    let err = load_or_create_key(dir.path(), None).unwrap_err();
    assert!(
        matches!(err, CryptoError::KeyFilePermissions { mode: 0o644, .. }),
        "{err:?}"
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), KEY_B64);
}

#[test]
fn corrupt_key_file_is_an_error_not_a_new_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(KEY_FILE_NAME);
    fs::write(&path, "c2hvcnQ=").unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    let err = load_or_create_key(dir.path(), None).unwrap_err();
    assert!(matches!(err, CryptoError::KeyLength { len: 5 }), "{err:?}");
    assert_eq!(fs::read_to_string(&path).unwrap(), "c2hvcnQ=");
}

#[test]
fn concurrent_first_loads_agree_on_one_key() {
    let dir = Arc::new(tempfile::tempdir().unwrap());
    let barrier = Arc::new(Barrier::new(8));
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let dir = Arc::clone(&dir);
            let barrier = Arc::clone(&barrier);
            std::thread::spawn(move || {
                barrier.wait();
                load_or_create_key(dir.path(), None).unwrap().fingerprint()
            })
        })
        .collect();
    let prints: Vec<String> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert!(prints.iter().all(|p| p == &prints[0]), "{prints:?}");
}

#[test]
fn debug_never_shows_key_material() {
    let key = SealKey::from_bytes(key_bytes());
    let debug = format!("{key:?}");
    assert_eq!(debug, "SealKey(<redacted>)");
    assert!(!debug.contains(KEY_B64));
    assert!(!debug.contains(&hex::encode(key_bytes())));
}

#[test]
fn base64_round_trip_and_fingerprint_shape() {
    let key = SealKey::from_bytes(key_bytes());
    assert_eq!(key.to_base64().expose_secret(), KEY_B64);
    let print = key.fingerprint();
    assert_eq!(print.len(), 16);
    assert!(print.bytes().all(|b| b.is_ascii_hexdigit()));
    assert!(!hex::encode(key_bytes()).contains(&print));
}
