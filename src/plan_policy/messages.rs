//! conftest's message conventions: a rule's value is a set (or array) of messages, each a
//! string or an object with `msg` (the resource address from `resource`, `address` or
//! `details.resource`); a complete rule that is `true` fails without a message.

use crate::model::PolicyMessage;

/// The messages of one rule's value.
pub(super) fn messages_of(kind: &str, value: &regorus::Value) -> Vec<PolicyMessage> {
    let json = match serde_json::to_value(value) {
        Ok(j) => j,
        Err(_) => return Vec::new(),
    };
    let items: Vec<serde_json::Value> = match json {
        serde_json::Value::Array(items) => items,
        serde_json::Value::Bool(true) => vec![serde_json::Value::String(String::new())],
        serde_json::Value::String(_) | serde_json::Value::Object(_) => vec![json],
        _ => Vec::new(),
    };
    let mut out: Vec<PolicyMessage> = items.iter().map(|i| message_of(kind, i)).collect();
    out.sort_by(|a, b| (&a.address, &a.message).cmp(&(&b.address, &b.message)));
    out.dedup();
    out
}

fn message_of(kind: &str, item: &serde_json::Value) -> PolicyMessage {
    let (message, address) = match item {
        serde_json::Value::String(s) => (s.clone(), None),
        serde_json::Value::Object(o) => {
            let msg = match o.get("msg") {
                Some(serde_json::Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => String::new(),
            };
            let address = ["resource", "address"]
                .iter()
                .find_map(|k| o.get(*k))
                .or_else(|| o.get("details").and_then(|d| d.get("resource")))
                .and_then(|a| a.as_str())
                .map(str::to_string);
            (msg, address)
        }
        other => (other.to_string(), None),
    };
    let message = if message.is_empty() {
        format!("rule `{kind}` failed without a message")
    } else {
        message
    };
    PolicyMessage {
        rule: kind.to_string(),
        message,
        address,
    }
}
