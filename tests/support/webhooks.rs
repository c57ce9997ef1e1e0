//! Webhook deliveries built from the fixtures in `tests/fixtures/webhooks/`.

use std::path::PathBuf;

use serde_json::Value;

pub fn fixture_path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

pub fn webhook_fixture(name: &str) -> Value {
    let text = std::fs::read_to_string(fixture_path(&format!("webhooks/{name}"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// A PR comment delivery (`issue_comment.created` on a PR) with the given body and author;
/// each gets a comment id of its own (tfgate handles a comment id once).
pub fn pr_comment(body: &str, author: &str) -> Value {
    static NEXT_COMMENT_ID: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(1);
    let mut v = webhook_fixture("issue_comment.created.on-pr.json");
    v["comment"]["body"] = body.into();
    v["comment"]["user"]["login"] = author.into();
    v["comment"]["id"] = NEXT_COMMENT_ID
        .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
        .into();
    v
}
