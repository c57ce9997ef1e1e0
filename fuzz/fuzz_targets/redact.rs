//! The redactor's promise: a secret of a kind it redacts, planted anywhere in arbitrary text
//! between delimiters, never reaches the output, neither through `redact` nor `redact_json`.
//!
//! Input: a 64-byte header that says what to plant where (see `Plant::from_header`), then the
//! text (UTF-8, lossily). `scripts/fuzz.sh` writes its seeds as a fixed header + a fixture.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use tfgate::redact::{Placeholders, RedactionConfig, Redactor};
use tfgate_fuzz::plant::{plant_all, Planted, HEADER_LEN, KNOWN_SECRETS};

fn redactor() -> &'static Redactor {
    static REDACTOR: OnceLock<Redactor> = OnceLock::new();
    REDACTOR.get_or_init(|| {
        let config = RedactionConfig {
            extra_patterns: Vec::new(),
            secret_values: KNOWN_SECRETS.iter().map(|s| s.to_string()).collect(),
        };
        Redactor::new(&config).expect("the known secrets compile")
    })
}

fuzz_target!(|data: &[u8]| {
    if data.len() < HEADER_LEN {
        return;
    }
    let (header, rest) = data.split_at(HEADER_LEN);
    let fuzz_text = String::from_utf8_lossy(rest);
    let Planted { text, must_go } = plant_all(header, &fuzz_text);
    let r = redactor();
    // A value the fuzzed text itself holds glued to other characters may rightly stay there.
    let checked: Vec<&String> = must_go
        .iter()
        .filter(|v| !fuzz_text.contains(v.as_str()))
        .collect();

    let out = r.redact(&text, &mut Placeholders::new());
    for value in &checked {
        assert!(
            !out.contains(value.as_str()),
            "{value:?} survived redacting {text:?}"
        );
    }

    if header[0] & 1 == 1 {
        let doc = json!({ "text": text, "nested": [{ text.clone(): text }] });
        let redacted = r.redact_json(&doc, &mut Placeholders::new());
        for value in &checked {
            assert!(
                !json_holds(&redacted, value),
                "{value:?} survived redact_json of {text:?}"
            );
        }
    }
});

/// Whether any string, key or number of `value` contains `needle`.
fn json_holds(value: &Value, needle: &str) -> bool {
    match value {
        Value::String(s) => s.contains(needle),
        Value::Number(n) => n.to_string().contains(needle),
        Value::Array(items) => items.iter().any(|v| json_holds(v, needle)),
        Value::Object(map) => map
            .iter()
            .any(|(k, v)| k.contains(needle) || json_holds(v, needle)),
        _ => false,
    }
}
