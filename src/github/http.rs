//! The one door to GitHub's REST API for an installation. Every call waits its turn at the
//! installation's rate-limit gate, has a deadline, and is retried as [`super::retry`]
//! decides: always the same request with the same body (octocrab's own retries, which resend
//! a POST with an empty body, are off). Logs name the method and route, never a body or token.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use anyhow::{Context, Result};
use http::{HeaderMap, Method};
use octocrab::Octocrab;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::rate_limit_gate::RateLimitGate;
use super::retry::{self, Admission, Answer, GitHubError, Outcome, RetryPolicy, Step, Verdict};
use crate::config::DEFAULT_GITHUB_TIMEOUT;

/// How calls to GitHub are made: the deadline of one attempt and the retries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallPolicy {
    pub timeout: Duration,
    pub retry: RetryPolicy,
}

impl Default for CallPolicy {
    fn default() -> Self {
        CallPolicy {
            timeout: DEFAULT_GITHUB_TIMEOUT,
            retry: RetryPolicy::default(),
        }
    }
}

/// A client acting as one installation.
pub struct InstallationClient {
    octocrab: Octocrab,
    installation_id: i64,
    gate: Arc<RateLimitGate>,
    policy: Arc<CallPolicy>,
}

/// One request: GET, POST or PATCH of `route` (path and query) with an optional JSON body.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    pub method: &'a Method,
    pub route: &'a str,
    pub body: Option<&'a Value>,
    /// Whether sending it twice does no harm. A call that is not idempotent is sent again
    /// only when the first surely did not reach GitHub, or after `already_done` said no.
    pub idempotent: bool,
}

/// How a call ended well.
#[derive(Debug)]
pub enum Delivered {
    /// GitHub's answer body.
    Answer(String),
    /// A write whose answer was lost turned out done; what `already_done` found.
    AlreadyDone(i64),
}

/// One attempt: GitHub's answer, or why there is none.
enum Attempt {
    Answered {
        status: u16,
        headers: HeaderMap,
        body: String,
    },
    TimedOut,
    NetworkError(String),
    NotSent(String),
    Unsendable(String),
}

#[derive(serde::Deserialize, Default)]
struct ErrorBody {
    #[serde(default)]
    message: String,
}

impl InstallationClient {
    pub fn new(
        octocrab: Octocrab,
        installation_id: i64,
        gate: Arc<RateLimitGate>,
        policy: Arc<CallPolicy>,
    ) -> InstallationClient {
        InstallationClient {
            octocrab,
            installation_id,
            gate,
            policy,
        }
    }

    /// GET `route` (path and query) as JSON.
    pub async fn get<T: DeserializeOwned>(&self, route: &str) -> Result<T> {
        self.json(&Method::GET, route, None).await
    }

    /// GET `route`; `None` when GitHub answers 404.
    pub async fn get_optional<T: DeserializeOwned>(&self, route: &str) -> Result<Option<T>> {
        match self.get(route).await {
            Ok(v) => Ok(Some(v)),
            Err(e) if retry::rejected_status(&e) == Some(404) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// POST a JSON body that may safely be sent twice (a reaction, a label).
    pub async fn post<T: DeserializeOwned>(&self, route: &str, body: &Value) -> Result<T> {
        self.json(&Method::POST, route, Some(body)).await
    }

    pub async fn patch<T: DeserializeOwned>(&self, route: &str, body: &Value) -> Result<T> {
        self.json(&Method::PATCH, route, Some(body)).await
    }

    async fn json<T: DeserializeOwned>(
        &self,
        method: &Method,
        route: &str,
        body: Option<&Value>,
    ) -> Result<T> {
        let call = Call {
            method,
            route,
            body,
            idempotent: true,
        };
        match self.deliver(call, || async { Ok(None) }).await? {
            Delivered::Answer(text) => serde_json::from_str(&text).with_context(|| {
                format!("GitHub's answer to {method} {route} is not the expected JSON")
            }),
            Delivered::AlreadyDone(_) => unreachable!("an idempotent call is never checked"),
        }
    }

    /// Send `call` until it succeeds, fails for good, or its retries are spent. Before a call
    /// that is not idempotent is sent again after an answer that may have come after the
    /// write, `already_done` is asked whether the write happened (`Some`: it did).
    pub async fn deliver<F, Fut>(
        &self,
        call: Call<'_>,
        mut already_done: F,
    ) -> Result<Delivered, GitHubError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<Option<i64>>>,
    {
        let mut failures = 0;
        loop {
            self.wait_turn(&call).await?;
            let attempt = self.attempt(&call).await;
            let now = SystemTime::now();
            let (verdict, maybe_written) = judge(&attempt, now);
            match verdict {
                Verdict::Success => return Ok(Delivered::Answer(answer_body(attempt))),
                Verdict::Permanent => return Err(rejected(&call, &attempt)),
                Verdict::RateLimited { until } => self.gate.hold(self.installation_id, until),
                Verdict::Transient => {}
            }
            let step = retry::next_step(&self.policy.retry, failures, verdict, now);
            failures += 1;
            tracing::warn!(
                method = %call.method, route = call.route, attempt = failures,
                outcome = %describe(&attempt), step = ?step, "GitHub call failed"
            );
            if let Step::RetryAfter(pause) = step {
                tokio::time::sleep(pause).await;
            }
            if maybe_written && !call.idempotent {
                match already_done().await {
                    Ok(Some(found)) => return Ok(Delivered::AlreadyDone(found)),
                    Ok(None) => {}
                    Err(e) => {
                        tracing::warn!(method = %call.method, route = call.route, error = %format!("{e:#}"),
                            "could not check whether a write reached GitHub; not sending it again");
                        return Err(gave_up(&call, failures, &attempt, verdict));
                    }
                }
            }
            if step == Step::GiveUp {
                return Err(gave_up(&call, failures, &attempt, verdict));
            }
        }
    }

    /// Wait while GitHub asked this installation to; a wait beyond the cap goes up instead.
    async fn wait_turn(&self, call: &Call<'_>) -> Result<(), GitHubError> {
        let admission = self.gate.admission(
            self.installation_id,
            SystemTime::now(),
            self.policy.retry.max_wait,
        );
        match admission {
            Admission::Go => Ok(()),
            Admission::WaitFor(wait) => {
                tracing::info!(method = %call.method, route = call.route, wait_ms = wait.as_millis() as u64,
                    "waiting as GitHub asked before calling it");
                tokio::time::sleep(wait).await;
                Ok(())
            }
            Admission::Defer { until } => Err(GitHubError::RateLimited {
                method: call.method.to_string(),
                route: call.route.to_string(),
                until,
            }),
        }
    }

    async fn attempt(&self, call: &Call<'_>) -> Attempt {
        let send = async {
            let response = match *call.method {
                Method::GET => self.octocrab._get(call.route).await,
                Method::POST => self.octocrab._post(call.route, call.body).await,
                Method::PATCH => self.octocrab._patch(call.route, call.body).await,
                _ => return Attempt::Unsendable(format!("method {} is not used", call.method)),
            };
            let response = match response {
                Ok(r) => r,
                Err(e) => return failed_send(e),
            };
            let status = response.status().as_u16();
            let headers = response.headers().clone();
            match self.octocrab.body_to_string(response).await {
                Ok(body) => Attempt::Answered {
                    status,
                    headers,
                    body,
                },
                Err(e) => Attempt::NetworkError(format!("reading the answer: {e}")),
            }
        };
        tokio::time::timeout(self.policy.timeout, send)
            .await
            .unwrap_or(Attempt::TimedOut)
    }
}

/// The verdict on an attempt and whether it may have written at GitHub.
fn judge(attempt: &Attempt, now: SystemTime) -> (Verdict, bool) {
    let message;
    let outcome = match attempt {
        Attempt::Answered {
            status,
            headers,
            body,
        } => {
            message = serde_json::from_str::<ErrorBody>(body)
                .unwrap_or_default()
                .message;
            let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
            Outcome::Answered(Answer {
                status: *status,
                retry_after: header("retry-after"),
                ratelimit_remaining: header("x-ratelimit-remaining"),
                ratelimit_reset: header("x-ratelimit-reset"),
                message: &message,
            })
        }
        Attempt::TimedOut => Outcome::TimedOut,
        Attempt::NetworkError(_) => Outcome::NetworkError,
        Attempt::NotSent(_) => Outcome::NotSent,
        Attempt::Unsendable(_) => Outcome::Unsendable,
    };
    let verdict = retry::classify(&outcome, now);
    (verdict, !retry::surely_not_written(&outcome, verdict))
}

/// An octocrab error before any answer: refused connections and failed token requests never
/// reached GitHub's endpoint; other transport errors may have.
fn failed_send(e: octocrab::Error) -> Attempt {
    match &e {
        // Only the installation-token request maps GitHub's answer to an error here.
        octocrab::Error::GitHub { source, .. } => {
            let status = source.status_code.as_u16();
            let what = format!("installation token request answered {status}");
            return match status {
                400..=499 if status != 403 && status != 429 => Attempt::Unsendable(what),
                _ => Attempt::NotSent(what),
            };
        }
        octocrab::Error::Serde { .. }
        | octocrab::Error::Json { .. }
        | octocrab::Error::JWT { .. } => {
            return Attempt::NotSent("installation token request failed".into())
        }
        octocrab::Error::UriParse { .. }
        | octocrab::Error::Uri { .. }
        | octocrab::Error::Http { .. }
        | octocrab::Error::InvalidHeaderValue { .. }
        | octocrab::Error::Encoder { .. } => return Attempt::Unsendable(e.to_string()),
        _ => {}
    }
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&e);
    while let Some(c) = cause {
        if let Some(io) = c.downcast_ref::<std::io::Error>() {
            if io.kind() == std::io::ErrorKind::ConnectionRefused {
                return Attempt::NotSent("connection refused".into());
            }
        }
        cause = c.source();
    }
    Attempt::NetworkError("connection failed".into())
}

fn answer_body(attempt: Attempt) -> String {
    match attempt {
        Attempt::Answered { body, .. } => body,
        _ => String::new(),
    }
}

/// A short description for logs: a status or the kind of failure, never a body.
fn describe(attempt: &Attempt) -> String {
    match attempt {
        Attempt::Answered { status, .. } => format!("status {status}"),
        Attempt::TimedOut => "no answer in time".into(),
        Attempt::NetworkError(what) | Attempt::NotSent(what) | Attempt::Unsendable(what) => {
            what.clone()
        }
    }
}

fn rejected(call: &Call<'_>, attempt: &Attempt) -> GitHubError {
    let status = match attempt {
        Attempt::Answered { status, .. } => *status,
        _ => 0,
    };
    tracing::warn!(method = %call.method, route = call.route, status, "GitHub refused a call");
    GitHubError::Rejected {
        method: call.method.to_string(),
        route: call.route.to_string(),
        status,
    }
}

fn gave_up(call: &Call<'_>, attempts: usize, attempt: &Attempt, verdict: Verdict) -> GitHubError {
    let (method, route) = (call.method.to_string(), call.route.to_string());
    match verdict {
        Verdict::RateLimited { until } => GitHubError::RateLimited {
            method,
            route,
            until,
        },
        _ => GitHubError::Unavailable {
            method,
            route,
            attempts,
            last: describe(attempt),
        },
    }
}
