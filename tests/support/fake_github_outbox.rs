//! Faults for the outbox scenarios, mounted over the fake GitHub's own routes (wiremock takes
//! the mock of the highest priority that still matches): the next comment or check-run POSTs
//! answer 502, a comment create can succeed but lose its answer, and check runs tfgate creates
//! are listed back with their `external_id`, as GitHub lists them.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use wiremock::matchers::{method, path_regex};
use wiremock::{Mock, Request, ResponseTemplate};

use super::fake_github::{faults, FakeGitHub, Posted};

const COMMENTS: &str = r"^/repos/[^/]+/[^/]+/issues/\d+/comments$";
const CHECK_RUNS: &str = r"^/repos/[^/]+/[^/]+/check-runs$";
const CHECK_RUNS_OF_COMMIT: &str = r"^/repos/[^/]+/[^/]+/commits/[0-9a-f]+/check-runs$";

fn bad_gateway() -> ResponseTemplate {
    ResponseTemplate::new(502).set_body_json(json!({"message": "Server Error"}))
}

/// Check runs created while [`FakeGitHub::list_created_check_runs`] is mounted, as listed.
#[derive(Clone, Default)]
pub struct CreatedCheckRuns(Arc<Mutex<Vec<Value>>>);

impl CreatedCheckRuns {
    /// (name, conclusion, external_id) of each, in order.
    pub fn created(&self) -> Vec<(String, String, String)> {
        let text = |v: &Value, k: &str| v[k].as_str().unwrap_or("").to_string();
        let runs = self.0.lock().unwrap();
        runs.iter()
            .map(|r| {
                (
                    text(r, "name"),
                    text(r, "conclusion"),
                    text(r, "external_id"),
                )
            })
            .collect()
    }
}

impl FakeGitHub {
    /// The next `n` comment creates answer 502 and create nothing.
    pub async fn fail_next_comment_posts(&self, n: u64) {
        Mock::given(method("POST"))
            .and(path_regex(COMMENTS))
            .respond_with(bad_gateway())
            .up_to_n_times(n)
            .with_priority(1)
            .mount(&self.server)
            .await;
    }

    /// The next comment create (after those of [`FakeGitHub::fail_next_comment_posts`])
    /// succeeds, but its answer is a 502, as if it timed out; the `retries` creates after it
    /// answer 502 and create nothing (the client's own retries of that one call; a later
    /// attempt that finds the comment posts nothing and leaves them unused).
    pub async fn lose_next_comment_answer(&self, retries: u64) {
        let state = self.state.clone();
        let respond = move |req: &Request| {
            let mut st = state.lock().unwrap();
            st.next_id += 1;
            let id = 1000 + st.next_id;
            let number: i64 = req
                .url
                .path()
                .split('/')
                .nth(5)
                .unwrap_or("0")
                .parse()
                .unwrap_or(0);
            let body: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
            st.comments.push(Posted {
                number,
                body: body["body"].as_str().unwrap_or("").to_string(),
                id,
                edits: 0,
                at: std::time::Instant::now(),
                edited_at: None,
            });
            bad_gateway()
        };
        Mock::given(method("POST"))
            .and(path_regex(COMMENTS))
            .respond_with(respond)
            .up_to_n_times(1)
            .with_priority(2)
            .mount(&self.server)
            .await;
        Mock::given(method("POST"))
            .and(path_regex(COMMENTS))
            .respond_with(bad_gateway())
            .up_to_n_times(retries)
            .with_priority(3)
            .mount(&self.server)
            .await;
    }

    /// The next `n` check-run creates answer 502 and create nothing.
    pub async fn fail_next_check_run_posts(&self, n: u64) {
        Mock::given(method("POST"))
            .and(path_regex(CHECK_RUNS))
            .respond_with(bad_gateway())
            .up_to_n_times(n)
            .with_priority(1)
            .mount(&self.server)
            .await;
    }

    /// From now on check runs tfgate creates are recorded (also in `check_runs_created`) and
    /// listed on their commit by the App `tfgate`, with their `external_id`.
    pub async fn list_created_check_runs(&self) -> CreatedCheckRuns {
        let created = CreatedCheckRuns::default();
        let (state, runs) = (self.state.clone(), created.0.clone());
        // Both routes go through the fault injector (`FakeGitHub::fail_next`) and are recorded.
        let record = move |req: &Request| {
            let body: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
            let mut st = state.lock().unwrap();
            faults::respond(&mut st, req, |st| {
                st.next_id += 1;
                let id = 1000 + st.next_id;
                let text = |k: &str| body[k].as_str().unwrap_or("").to_string();
                let annotations = body["output"]["annotations"].as_array().cloned();
                let index = st.check_runs_created.len();
                st.check_run_annotations
                    .insert(id, (index, annotations.unwrap_or_default()));
                st.check_runs_created
                    .push((text("name"), text("conclusion"), text("head_sha")));
                runs.lock().unwrap().push(json!({
                    "id": id, "name": body["name"], "conclusion": body["conclusion"],
                    "head_sha": body["head_sha"], "external_id": body["external_id"],
                    "status": "completed", "app": {"slug": "tfgate"},
                    "output": {"title": body["output"]["title"], "summary": body["output"]["summary"]}
                }));
                ResponseTemplate::new(201).set_body_json(json!({"id": id, "name": body["name"]}))
            })
        };
        Mock::given(method("POST"))
            .and(path_regex(CHECK_RUNS))
            .respond_with(record)
            .with_priority(4)
            .mount(&self.server)
            .await;
        let (state, runs) = (self.state.clone(), created.0.clone());
        let list = move |req: &Request| {
            let sha = req.url.path().split('/').nth(5).unwrap_or("").to_string();
            let on_commit: Vec<Value> = runs
                .lock()
                .unwrap()
                .iter()
                .filter(|r| r["head_sha"] == sha.as_str())
                .cloned()
                .collect();
            let mut st = state.lock().unwrap();
            // A check run is listed with the conclusion its last request set (a PATCH may
            // have completed it); without one it is still `in_progress`.
            let on_commit: Vec<Value> = on_commit
                .into_iter()
                .map(|mut run| {
                    let id = run["id"].as_i64().unwrap_or(0);
                    if let Some((index, _)) = st.check_run_annotations.get(&id) {
                        let conclusion = st.check_runs_created[*index].1.clone();
                        let done = !conclusion.is_empty();
                        run["conclusion"] = if done { json!(conclusion) } else { Value::Null };
                        run["status"] = json!(if done { "completed" } else { "in_progress" });
                    }
                    run
                })
                .collect();
            faults::respond(&mut st, req, |_| {
                ResponseTemplate::new(200)
                    .set_body_json(json!({"total_count": on_commit.len(), "check_runs": on_commit}))
            })
        };
        Mock::given(method("GET"))
            .and(path_regex(CHECK_RUNS_OF_COMMIT))
            .respond_with(list)
            .with_priority(4)
            .mount(&self.server)
            .await;
        created
    }
}
