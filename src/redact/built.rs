//! The redactors built so far in this process, by configuration. Every run builds a redactor
//! from its policy; compiling the combined regex and the token regexes a plan needs took a
//! share of tfgate's CPU per run (bench/README.md, workers). The policy changes rarely, so a
//! few configurations are kept; clones share the compiled token regexes.

use std::sync::Mutex;

use super::{RedactError, RedactionConfig, Redactor};

/// Configurations kept (policy versions, plus the default one); the oldest is dropped first.
const KEPT: usize = 8;

static BUILT: Mutex<Vec<(RedactionConfig, Redactor)>> = Mutex::new(Vec::new());

/// The redactor kept for `config`, or a new one from `build` (kept when it built).
pub(super) fn get_or_build(
    config: &RedactionConfig,
    build: impl FnOnce(&RedactionConfig) -> Result<Redactor, RedactError>,
) -> Result<Redactor, RedactError> {
    if let Some((_, found)) = lock().iter().find(|(c, _)| c == config) {
        return Ok(found.clone());
    }
    // Built outside the lock: another thread may build the same one meanwhile; either is kept.
    let redactor = build(config)?;
    let mut kept = lock();
    if !kept.iter().any(|(c, _)| c == config) {
        if kept.len() >= KEPT {
            kept.remove(0);
        }
        kept.push((config.clone(), redactor.clone()));
    }
    Ok(redactor)
}

fn lock() -> std::sync::MutexGuard<'static, Vec<(RedactionConfig, Redactor)>> {
    // A panic while holding the lock leaves the list whole (pushes and removes only).
    BUILT.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pattern: &str) -> RedactionConfig {
        RedactionConfig {
            extra_patterns: vec![pattern.to_string()],
            secret_values: vec!["s3cr3t-value".into()],
        }
    }

    #[test]
    fn the_same_configuration_shares_one_build_and_another_does_not() {
        let a = Redactor::new(&config("built-test-a-[0-9]+")).unwrap();
        let again = Redactor::new(&config("built-test-a-[0-9]+")).unwrap();
        let other = Redactor::new(&config("built-test-b-[0-9]+")).unwrap();
        assert!(std::sync::Arc::ptr_eq(&a.token_sets, &again.token_sets));
        assert!(!std::sync::Arc::ptr_eq(&a.token_sets, &other.token_sets));
        let mut ph = super::super::Placeholders::default();
        let text = "built-test-a-12 built-test-b-34 s3cr3t-value";
        assert_eq!(again.redact(text, &mut ph), a.redact(text, &mut ph));
        assert!(!other.redact(text, &mut ph).contains("built-test-b-34"));
        assert!(other.redact(text, &mut ph).contains("built-test-a-12"));
    }

    #[test]
    fn a_bad_pattern_is_refused_every_time_and_not_kept() {
        for _ in 0..2 {
            assert!(matches!(
                Redactor::new(&config("built-test-(")),
                Err(RedactError::BadPattern { index: 0, .. })
            ));
        }
        assert!(!lock().iter().any(|(c, _)| c == &config("built-test-(")));
    }

    #[test]
    fn at_most_kept_configurations_are_kept() {
        for i in 0..KEPT + 3 {
            Redactor::new(&config(&format!("built-test-many-{i}"))).unwrap();
        }
        assert!(lock().len() <= KEPT);
    }
}
