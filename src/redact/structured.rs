//! Redaction of Terraform addresses and JSON plan values.

use super::{Kind, Placeholders, Redactor};
use once_cell::sync::Lazy;
use regex::Regex;
use serde_json::Value;

/// `["key"]` instance keys (with Terraform's `\"` / `\\` escapes inside).
static INSTANCE_KEY: Lazy<Regex> = Lazy::new(|| Regex::new(r#"\["((?:[^"\\]|\\.)*)"\]"#).unwrap());

pub fn redact_address(r: &Redactor, address: &str, ph: &mut Placeholders) -> String {
    let mut out = String::with_capacity(address.len());
    let mut last = 0;
    for c in INSTANCE_KEY.captures_iter(address) {
        let key = c.get(1).expect("group 1");
        out.push_str(&redact_names(r, &address[last..key.start()], ph));
        out.push_str(&r.redact(key.as_str(), ph));
        last = key.end();
    }
    out.push_str(&redact_names(r, &address[last..], ph));
    out
}

/// The name parts of an address (`module.acct_123456789012.aws_x.role_a`): the usual rules, and
/// account ids glued to a name with `_`/`-` (which the word-boundary check would let through).
fn redact_names(r: &Redactor, names: &str, ph: &mut Placeholders) -> String {
    let redacted = r.redact(names, ph);
    let bytes = redacted.as_bytes();
    let mut out = String::with_capacity(redacted.len());
    let (mut copied, mut i) = (0, 0);
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        if i - start == ACCOUNT_DIGITS {
            out.push_str(&redacted[copied..start]);
            ph.push_placeholder(Kind::Account, &redacted[start..i], &mut out);
            copied = i;
        }
    }
    out.push_str(&redacted[copied..]);
    out
}

const ACCOUNT_DIGITS: usize = 12;

pub fn redact_json(r: &Redactor, value: &Value, ph: &mut Placeholders) -> Value {
    match value {
        Value::String(s) => Value::String(r.redact(s, ph)),
        // A number can be an account id or a known secret value: redact its text form.
        Value::Number(n) => {
            let text = n.to_string();
            let redacted = r.redact(&text, ph);
            if redacted == text && !is_account_number(n) {
                Value::Number(n.clone())
            } else {
                Value::String(redacted)
            }
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| redact_json(r, v, ph)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (r.redact(k, ph), redact_json(r, v, ph)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn is_account_number(n: &serde_json::Number) -> bool {
    n.as_u64()
        .is_some_and(|v| (100_000_000_000..=999_999_999_999).contains(&v))
}
