//! Fault injection for the fake GitHub: the next request matching a method and a path
//! fragment is answered with a fault (before or after the real effect) or answered late, and
//! every request is recorded with its body and when it arrived.

use std::time::{Duration, Instant};

use wiremock::{Request, ResponseTemplate};

use super::{FakeGitHub, GitHubState};

/// What the fake does to a request instead of answering it normally.
#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
    /// Answer `code` with `headers` and the JSON `body`. With `after_write` the real effect
    /// happens first (e.g. the comment is stored), as when GitHub fails after doing the work.
    Status {
        code: u16,
        headers: Vec<(String, String)>,
        body: String,
        after_write: bool,
    },
    /// Do the real effect, then answer only after this long (the client times out first).
    Delay(Duration),
}

impl Fault {
    /// A bare 502 from GitHub's front end, before or after the real effect.
    pub fn bad_gateway(after_write: bool) -> Fault {
        Fault::Status {
            code: 502,
            headers: vec![],
            body: r#"{"message":"Server Error"}"#.into(),
            after_write,
        }
    }

    /// A 403 secondary rate limit asking to come back after `retry_after` seconds.
    pub fn secondary_rate_limit(retry_after: u64) -> Fault {
        Fault::Status {
            code: 403,
            headers: vec![("retry-after".into(), retry_after.to_string())],
            body: r#"{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits","status":"403"}"#.into(),
            after_write: false,
        }
    }

    /// A 422 (GitHub refused the request; the client does not send it again).
    pub fn unprocessable() -> Fault {
        Fault::Status {
            code: 422,
            headers: vec![],
            body: r#"{"message":"Validation Failed"}"#.into(),
            after_write: false,
        }
    }

    /// A 500 with no effect.
    pub fn server_error() -> Fault {
        Fault::Status {
            code: 500,
            headers: vec![],
            body: r#"{"message":"Server Error"}"#.into(),
            after_write: false,
        }
    }
}

/// A fault waiting for its request.
#[derive(Debug, Clone)]
pub struct PendingFault {
    pub method: String,
    pub path_contains: String,
    pub fault: Fault,
}

/// A request the fake received.
#[derive(Debug, Clone)]
pub struct SeenRequest {
    pub method: String,
    pub path: String,
    pub body: String,
    pub at: Instant,
    /// The fault it was answered with, if any.
    pub fault: Option<Fault>,
}

impl SeenRequest {
    pub fn is(&self, method: &str, path_contains: &str) -> bool {
        self.method == method && self.path.contains(path_contains)
    }
}

/// Answer `req`: with the first pending fault that matches it (used up), else with `real`.
pub fn respond(
    st: &mut GitHubState,
    req: &Request,
    real: impl FnOnce(&mut GitHubState) -> ResponseTemplate,
) -> ResponseTemplate {
    let method = req.method.to_string();
    let path = req.url.path().to_string();
    let fault = st
        .faults
        .iter()
        .position(|f| f.method == method && path.contains(&f.path_contains))
        .map(|i| st.faults.remove(i).fault);
    st.requests.push(SeenRequest {
        method,
        path,
        body: String::from_utf8_lossy(&req.body).into_owned(),
        at: Instant::now(),
        fault: fault.clone(),
    });
    match fault {
        None => real(st),
        Some(Fault::Delay(delay)) => real(st).set_delay(delay),
        Some(Fault::Status {
            code,
            headers,
            body,
            after_write,
        }) => {
            if after_write {
                real(st);
            }
            let mut answer = ResponseTemplate::new(code)
                .insert_header("content-type", "application/json; charset=utf-8")
                .set_body_string(body);
            for (name, value) in headers {
                answer = answer.insert_header(name.as_str(), value.as_str());
            }
            answer
        }
    }
}

impl FakeGitHub {
    /// Answer the next `method` request whose path contains `path_contains` with `fault`.
    pub fn fail_next(&self, method: &str, path_contains: &str, fault: Fault) {
        self.with(|g| {
            g.faults.push(PendingFault {
                method: method.into(),
                path_contains: path_contains.into(),
                fault,
            })
        });
    }

    /// Every annotation sent to the check runs named `name`, in order, with their conclusions.
    pub fn check_run_annotations(&self, name: &str) -> (Vec<serde_json::Value>, Vec<String>) {
        let st = self.state.lock().unwrap();
        let mut ids: Vec<(&i64, &(usize, Vec<serde_json::Value>))> =
            st.check_run_annotations.iter().collect();
        ids.sort_by_key(|(_, (index, _))| *index);
        let mut annotations = Vec::new();
        let mut conclusions = Vec::new();
        for (_, (index, sent)) in ids {
            if st.check_runs_created[*index].0 == name {
                annotations.extend(sent.iter().cloned());
                conclusions.push(st.check_runs_created[*index].1.clone());
            }
        }
        (annotations, conclusions)
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<SeenRequest> {
        self.with(|g| g.requests.clone())
    }

    /// The requests matching `method` and `path_contains`, in order.
    pub fn requests_to(&self, method: &str, path_contains: &str) -> Vec<SeenRequest> {
        self.with(|g| {
            g.requests
                .iter()
                .filter(|r| r.is(method, path_contains))
                .cloned()
                .collect()
        })
    }
}
