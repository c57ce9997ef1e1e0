//! The fake's check runs tfgate creates and updates (their annotations kept per run).

use serde_json::{json, Value};
use wiremock::{Request, ResponseTemplate};

use super::{seg, GitHubState};

pub fn create(st: &mut GitHubState, body: &Value, id: i64) -> ResponseTemplate {
    let annotations = body["output"]["annotations"].as_array().cloned();
    let index = st.check_runs_created.len();
    st.check_run_annotations
        .insert(id, (index, annotations.unwrap_or_default()));
    st.check_runs_created.push((
        body["name"].as_str().unwrap_or("").to_string(),
        body["conclusion"].as_str().unwrap_or("").to_string(),
        body["head_sha"].as_str().unwrap_or("").to_string(),
    ));
    ResponseTemplate::new(201).set_body_json(json!({"id": id, "name": body["name"]}))
}

pub fn update(st: &mut GitHubState, req: &Request, body: &Value) -> ResponseTemplate {
    let check_run: i64 = seg(req, 4).parse().unwrap_or(0);
    let Some((index, annotations)) = st.check_run_annotations.get_mut(&check_run) else {
        return ResponseTemplate::new(404).set_body_json(json!({"message": "Not Found"}));
    };
    let index = *index;
    annotations.extend(
        body["output"]["annotations"]
            .as_array()
            .cloned()
            .unwrap_or_default(),
    );
    if let Some(conclusion) = body["conclusion"].as_str() {
        st.check_runs_created[index].1 = conclusion.to_string();
    }
    ResponseTemplate::new(200).set_body_json(json!({"id": check_run}))
}
