//! What one answer from GitHub means and what to do next: pure decisions, no I/O.
//!
//! An answer is a success, transient (5xx, no answer in time, a broken connection), rate
//! limited (GitHub named when to come back) or permanent (any other 4xx). Transient calls are
//! retried after a fixed backoff; rate-limited ones after the time GitHub asked for; a call
//! that still fails goes up as a [`GitHubError`] the job runner reads.

use std::time::{Duration, SystemTime};

/// What one attempt at a call came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome<'a> {
    /// GitHub answered with a status (headers as sent, `message` the error body's message).
    Answered(Answer<'a>),
    /// No answer within the deadline: the request may have reached GitHub.
    TimedOut,
    /// The connection broke after the request may have been sent.
    NetworkError,
    /// The connection was refused, or the request could not be authenticated: it surely did
    /// not reach GitHub.
    NotSent,
    /// tfgate could not even build the request (a bug, not GitHub's doing).
    Unsendable,
}

/// The parts of GitHub's answer the classifier reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Answer<'a> {
    pub status: u16,
    /// `retry-after`: seconds to wait.
    pub retry_after: Option<&'a str>,
    /// `x-ratelimit-remaining`.
    pub ratelimit_remaining: Option<&'a str>,
    /// `x-ratelimit-reset`: when the primary limit resets, in Unix seconds.
    pub ratelimit_reset: Option<&'a str>,
    /// The `message` of GitHub's error body (empty when there is none).
    pub message: &'a str,
}

/// What an attempt's outcome means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Success,
    /// Worth trying again soon.
    Transient,
    /// GitHub asked for no calls before `until`.
    RateLimited {
        until: SystemTime,
    },
    /// Trying again will not help.
    Permanent,
}

/// How long to wait after a secondary rate limit that names no time (GitHub's advice).
pub const SECONDARY_LIMIT_WAIT: Duration = Duration::from_secs(60);

/// The verdict on one outcome, at `now`.
pub fn classify(outcome: &Outcome<'_>, now: SystemTime) -> Verdict {
    let answer = match outcome {
        Outcome::Answered(answer) => answer,
        Outcome::TimedOut | Outcome::NetworkError | Outcome::NotSent => return Verdict::Transient,
        Outcome::Unsendable => return Verdict::Permanent,
    };
    match answer.status {
        200..=399 => Verdict::Success,
        403 | 429 => match rate_limit_until(answer, now) {
            Some(until) => Verdict::RateLimited { until },
            None if answer.status == 429 => Verdict::RateLimited {
                until: now + SECONDARY_LIMIT_WAIT,
            },
            None => Verdict::Permanent,
        },
        408 | 500..=599 => Verdict::Transient,
        _ => Verdict::Permanent,
    }
}

/// When a 403/429 may be retried, if it is a rate limit: the primary limit's reset, else
/// `retry-after`, else [`SECONDARY_LIMIT_WAIT`] when the message names a secondary limit.
fn rate_limit_until(answer: &Answer<'_>, now: SystemTime) -> Option<SystemTime> {
    let seconds = |v: Option<&str>| v.and_then(|s| s.trim().parse::<u64>().ok());
    if answer.ratelimit_remaining.map(str::trim) == Some("0") {
        let reset = seconds(answer.ratelimit_reset)
            .map(|s| SystemTime::UNIX_EPOCH + Duration::from_secs(s));
        return Some(reset.map_or(now + SECONDARY_LIMIT_WAIT, |r| r.max(now)));
    }
    if let Some(wait) = seconds(answer.retry_after) {
        return Some(now + Duration::from_secs(wait));
    }
    let message = answer.message.to_ascii_lowercase();
    (message.contains("secondary rate limit") || message.contains("abuse detection"))
        .then(|| now + SECONDARY_LIMIT_WAIT)
}

/// Whether a failed attempt surely changed nothing at GitHub (so a write may simply be sent
/// again): it never got there, or GitHub refused it for a rate limit.
pub fn surely_not_written(outcome: &Outcome<'_>, verdict: Verdict) -> bool {
    matches!(outcome, Outcome::NotSent | Outcome::Unsendable)
        || matches!(verdict, Verdict::RateLimited { .. })
}

/// How calls are retried in-process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// The pause before each retry of a transient failure; its length is the number of
    /// retries (of any kind) a call gets.
    pub backoff: Vec<Duration>,
    /// The longest GitHub may make a worker wait; beyond it the job is retried later.
    pub max_wait: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            backoff: vec![
                Duration::from_millis(500),
                Duration::from_secs(2),
                Duration::from_secs(8),
            ],
            max_wait: Duration::from_secs(5 * 60),
        }
    }
}

/// What follows a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Try again after this pause.
    RetryAfter(Duration),
    /// Stop here; the error goes up.
    GiveUp,
}

/// The step after the `failures`-th failure (0 for the first) with `verdict`.
pub fn next_step(policy: &RetryPolicy, failures: usize, verdict: Verdict, now: SystemTime) -> Step {
    let Some(pause) = policy.backoff.get(failures) else {
        return Step::GiveUp;
    };
    match verdict {
        Verdict::Transient => Step::RetryAfter(*pause),
        Verdict::RateLimited { until } => {
            let wait = until.duration_since(now).unwrap_or(Duration::ZERO);
            if wait <= policy.max_wait {
                Step::RetryAfter(wait)
            } else {
                Step::GiveUp
            }
        }
        Verdict::Success | Verdict::Permanent => Step::GiveUp,
    }
}

/// Whether the gate lets a call go now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    Go,
    /// Wait this long first (GitHub asked for it).
    WaitFor(Duration),
    /// GitHub asked for a wait longer than a worker is held: retry the job at `until`.
    Defer {
        until: SystemTime,
    },
}

/// A call for an installation GitHub asked to hold until `not_before`, at `now`.
pub fn admit(not_before: Option<SystemTime>, now: SystemTime, max_wait: Duration) -> Admission {
    let Some(until) = not_before else {
        return Admission::Go;
    };
    match until.duration_since(now) {
        Ok(wait) if wait.is_zero() => Admission::Go,
        Ok(wait) if wait <= max_wait => Admission::WaitFor(wait),
        Ok(_) => Admission::Defer { until },
        Err(_) => Admission::Go,
    }
}

/// A GitHub call that failed for good in this process.
#[derive(Debug, thiserror::Error)]
pub enum GitHubError {
    /// GitHub refused the request (a 4xx that is no rate limit): retrying will not help.
    #[error("GitHub answered {status} to {method} {route}")]
    Rejected {
        method: String,
        route: String,
        status: u16,
    },
    /// GitHub failed or did not answer, every attempt.
    #[error("GitHub did not answer {method} {route} after {attempts} attempts ({last})")]
    Unavailable {
        method: String,
        route: String,
        attempts: usize,
        last: String,
    },
    /// GitHub asked for no calls before `until`, longer than a worker waits.
    #[error("GitHub rate limit: {method} {route} waits until {}", unix_text(*.until))]
    RateLimited {
        method: String,
        route: String,
        until: SystemTime,
    },
}

fn unix_text(t: SystemTime) -> String {
    let secs = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    crate::enrich::UnixSeconds(secs).to_rfc3339()
}

/// The GitHub failure in an error's chain, if any.
pub fn github_error(e: &anyhow::Error) -> Option<&GitHubError> {
    e.chain().find_map(|c| c.downcast_ref::<GitHubError>())
}

/// GitHub's status when it refused the call (e.g. 404 for "not there").
pub fn rejected_status(e: &anyhow::Error) -> Option<u16> {
    match github_error(e)? {
        GitHubError::Rejected { status, .. } => Some(*status),
        _ => None,
    }
}

/// Whether retrying the job cannot help: GitHub refused the request.
pub fn is_permanent(e: &anyhow::Error) -> bool {
    rejected_status(e).is_some()
}

/// How long a job that failed with `e` waits before it is tried again, when GitHub named a
/// time (a rate limit); `None` leaves the queue's own backoff.
pub fn retry_delay(e: &anyhow::Error, now: SystemTime) -> Option<Duration> {
    match github_error(e)? {
        GitHubError::RateLimited { until, .. } => {
            Some(until.duration_since(now).unwrap_or(Duration::ZERO))
        }
        _ => None,
    }
}

#[cfg(test)]
#[path = "retry_tests.rs"]
mod tests;
