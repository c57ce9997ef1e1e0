//! A small in-memory GitHub served over HTTP by wiremock, so tfgate's real octocrab client and
//! its real request serialisation are exercised. It speaks GitHub's REST shapes for the calls
//! tfgate makes and records what tfgate posted.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use wiremock::matchers::{method, path_regex};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

#[derive(Debug, Clone, PartialEq)]
pub struct Posted {
    pub number: i64,
    pub body: String,
}

#[derive(Default)]
pub struct GitHubState {
    pub comments: Vec<Posted>,
    pub reactions: Vec<(i64, String)>,
    pub token_requests: usize,
    pub next_id: i64,
}

#[derive(Clone)]
pub struct FakeGitHub {
    pub server: Arc<MockServer>,
    pub state: Arc<Mutex<GitHubState>>,
}

struct Handler {
    state: Arc<Mutex<GitHubState>>,
    kind: &'static str,
}

fn seg(req: &Request, i: usize) -> String {
    req.url
        .path_segments()
        .and_then(|mut s| s.nth(i))
        .unwrap_or("")
        .to_string()
}

impl Respond for Handler {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let mut st = self.state.lock().unwrap();
        st.next_id += 1;
        let id = 1000 + st.next_id;
        let body: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
        match self.kind {
            "token" => {
                st.token_requests += 1;
                let expires = chrono_like_in_one_hour();
                ResponseTemplate::new(201).set_body_json(json!({
                    "token": format!("ghs_fake{id}"), "expires_at": expires,
                    "permissions": {}, "repository_selection": "all"
                }))
            }
            "comment" => {
                let number: i64 = seg(req, 4).parse().unwrap_or(0);
                let text = body["body"].as_str().unwrap_or("").to_string();
                st.comments.push(Posted {
                    number,
                    body: text.clone(),
                });
                ResponseTemplate::new(201).set_body_json(json!({
                    "id": id, "body": text,
                    "html_url": format!("https://github.com/o/r/pull/{number}#issuecomment-{id}")
                }))
            }
            "reaction" => {
                let comment: i64 = seg(req, 5).parse().unwrap_or(0);
                let content = body["content"].as_str().unwrap_or("").to_string();
                st.reactions.push((comment, content.clone()));
                ResponseTemplate::new(201).set_body_json(json!({"id": id, "content": content}))
            }
            _ => ResponseTemplate::new(404),
        }
    }
}

fn chrono_like_in_one_hour() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 3600;
    // RFC 3339 in UTC from epoch seconds (civil-from-days).
    let days = (secs / 86400) as i64;
    let rem = secs % 86400;
    let (h, m, s) = (rem / 3600, (rem % 3600) / 60, rem % 60);
    let z = days + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if mo <= 2 { y + 1 } else { y };
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{m:02}:{s:02}Z")
}

impl FakeGitHub {
    pub async fn start() -> FakeGitHub {
        let server = MockServer::start().await;
        let state = Arc::new(Mutex::new(GitHubState::default()));
        let routes: [(&str, &str, &'static str); 3] = [
            ("POST", r"^/app/installations/\d+/access_tokens$", "token"),
            (
                "POST",
                r"^/repos/[^/]+/[^/]+/issues/\d+/comments$",
                "comment",
            ),
            (
                "POST",
                r"^/repos/[^/]+/[^/]+/issues/comments/\d+/reactions$",
                "reaction",
            ),
        ];
        for (verb, path, kind) in routes {
            Mock::given(method(verb))
                .and(path_regex(path))
                .respond_with(Handler {
                    state: state.clone(),
                    kind,
                })
                .mount(&server)
                .await;
        }
        FakeGitHub {
            server: Arc::new(server),
            state,
        }
    }

    pub fn url(&self) -> String {
        self.server.uri()
    }

    pub fn comments(&self) -> Vec<Posted> {
        self.state.lock().unwrap().comments.clone()
    }

    pub fn reactions(&self) -> Vec<(i64, String)> {
        self.state.lock().unwrap().reactions.clone()
    }

    pub fn token_requests(&self) -> usize {
        self.state.lock().unwrap().token_requests
    }
}
