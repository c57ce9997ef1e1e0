//! The fake's issue comments: create, edit, list (as tfgate's bot), and reactions to them.

use serde_json::{json, Value};
use wiremock::{Request, ResponseTemplate};

use super::{seg, GitHubState, Posted};

pub fn create(st: &mut GitHubState, req: &Request, body: &Value, id: i64) -> ResponseTemplate {
    let number: i64 = seg(req, 4).parse().unwrap_or(0);
    let text = body["body"].as_str().unwrap_or("").to_string();
    st.comments.push(Posted {
        number,
        body: text.clone(),
        id,
        edits: 0,
        at: std::time::Instant::now(),
        edited_at: None,
    });
    ResponseTemplate::new(201).set_body_json(json!({
        "id": id, "body": text,
        "html_url": format!("https://github.com/o/r/pull/{number}#issuecomment-{id}")
    }))
}

pub fn edit(st: &mut GitHubState, req: &Request, body: &Value) -> ResponseTemplate {
    let cid: i64 = seg(req, 5).parse().unwrap_or(0);
    let text = body["body"].as_str().unwrap_or("").to_string();
    match st.comments.iter_mut().find(|c| c.id == cid) {
        Some(c) => {
            c.body = text;
            c.edits += 1;
            c.edited_at = Some(std::time::Instant::now());
            ResponseTemplate::new(200).set_body_json(json!({"id": cid}))
        }
        None => ResponseTemplate::new(404),
    }
}

pub fn list(st: &GitHubState, req: &Request) -> ResponseTemplate {
    let number: i64 = seg(req, 4).parse().unwrap_or(0);
    let page: usize = req
        .url
        .query_pairs()
        .find(|(k, _)| k == "page")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(1);
    let list: Vec<Value> = st.comments.iter().filter(|c| c.number == number).skip((page - 1) * 100).take(100)
        .map(|c| json!({"id": c.id, "body": c.body, "user": {"login": "tfgate[bot]", "type": "Bot"}})).collect();
    ResponseTemplate::new(200).set_body_json(list)
}

pub fn react(st: &mut GitHubState, req: &Request, body: &Value, id: i64) -> ResponseTemplate {
    let comment: i64 = seg(req, 5).parse().unwrap_or(0);
    let content = body["content"].as_str().unwrap_or("").to_string();
    st.reactions.push((comment, content.clone()));
    ResponseTemplate::new(201).set_body_json(json!({"id": id, "content": content}))
}
