use super::*;

fn now() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000)
}

fn later(secs: u64) -> SystemTime {
    now() + Duration::from_secs(secs)
}

fn status(status: u16) -> Answer<'static> {
    Answer {
        status,
        ..Answer::default()
    }
}

#[test]
fn answers_are_classified() {
    let reset = "1800000100";
    let cases: Vec<(&str, Outcome<'static>, Verdict)> = vec![
        ("201", Outcome::Answered(status(201)), Verdict::Success),
        ("304", Outcome::Answered(status(304)), Verdict::Success),
        ("502", Outcome::Answered(status(502)), Verdict::Transient),
        ("500", Outcome::Answered(status(500)), Verdict::Transient),
        ("408", Outcome::Answered(status(408)), Verdict::Transient),
        ("timeout", Outcome::TimedOut, Verdict::Transient),
        ("broken", Outcome::NetworkError, Verdict::Transient),
        ("refused", Outcome::NotSent, Verdict::Transient),
        ("unsendable", Outcome::Unsendable, Verdict::Permanent),
        ("400", Outcome::Answered(status(400)), Verdict::Permanent),
        ("404", Outcome::Answered(status(404)), Verdict::Permanent),
        ("422", Outcome::Answered(status(422)), Verdict::Permanent),
        (
            "plain 403",
            Outcome::Answered(status(403)),
            Verdict::Permanent,
        ),
        (
            "primary limit",
            Outcome::Answered(Answer {
                status: 403,
                ratelimit_remaining: Some("0"),
                ratelimit_reset: Some(reset),
                message: "API rate limit exceeded for installation ID 1.",
                ..Answer::default()
            }),
            Verdict::RateLimited { until: later(100) },
        ),
        (
            "primary limit on 429, reset passed",
            Outcome::Answered(Answer {
                status: 429,
                ratelimit_remaining: Some("0"),
                ratelimit_reset: Some("1700000000"),
                ..Answer::default()
            }),
            Verdict::RateLimited { until: now() },
        ),
        (
            "primary limit without reset",
            Outcome::Answered(Answer {
                status: 403,
                ratelimit_remaining: Some("0"),
                ..Answer::default()
            }),
            Verdict::RateLimited { until: later(60) },
        ),
        (
            "secondary limit with retry-after",
            Outcome::Answered(Answer {
                status: 403,
                retry_after: Some("8"),
                message: "You have exceeded a secondary rate limit.",
                ..Answer::default()
            }),
            Verdict::RateLimited { until: later(8) },
        ),
        (
            "secondary limit named only in the message",
            Outcome::Answered(Answer {
                status: 403,
                message: "You have exceeded a Secondary Rate Limit. Please wait.",
                ..Answer::default()
            }),
            Verdict::RateLimited { until: later(60) },
        ),
        (
            "429 with nothing",
            Outcome::Answered(status(429)),
            Verdict::RateLimited { until: later(60) },
        ),
        (
            "remaining left: a plain 403",
            Outcome::Answered(Answer {
                status: 403,
                ratelimit_remaining: Some("4999"),
                ratelimit_reset: Some(reset),
                message: "Resource not accessible by integration",
                ..Answer::default()
            }),
            Verdict::Permanent,
        ),
        (
            "unreadable retry-after on a 403 with a plain message",
            Outcome::Answered(Answer {
                status: 403,
                retry_after: Some("soon"),
                ..Answer::default()
            }),
            Verdict::Permanent,
        ),
    ];
    for (name, outcome, want) in cases {
        assert_eq!(classify(&outcome, now()), want, "{name}");
    }
}

#[test]
fn only_refused_sends_and_rate_limits_are_surely_not_written() {
    let limited = Verdict::RateLimited { until: later(2) };
    let cases = [
        (Outcome::NotSent, Verdict::Transient, true),
        (Outcome::Answered(status(403)), limited, true),
        (Outcome::Answered(status(502)), Verdict::Transient, false),
        (Outcome::TimedOut, Verdict::Transient, false),
        (Outcome::NetworkError, Verdict::Transient, false),
    ];
    for (outcome, verdict, want) in cases {
        assert_eq!(surely_not_written(&outcome, verdict), want, "{outcome:?}");
    }
}

#[test]
fn steps_follow_the_backoff_and_the_wait_github_asked_for() {
    let policy = RetryPolicy::default();
    let ms = Duration::from_millis;
    let cases = [
        (0, Verdict::Transient, Step::RetryAfter(ms(500))),
        (1, Verdict::Transient, Step::RetryAfter(ms(2000))),
        (2, Verdict::Transient, Step::RetryAfter(ms(8000))),
        (3, Verdict::Transient, Step::GiveUp),
        (
            0,
            Verdict::RateLimited { until: later(2) },
            Step::RetryAfter(ms(2000)),
        ),
        (
            1,
            Verdict::RateLimited { until: later(300) },
            Step::RetryAfter(ms(300_000)),
        ),
        (0, Verdict::RateLimited { until: later(301) }, Step::GiveUp),
        (3, Verdict::RateLimited { until: later(1) }, Step::GiveUp),
        (0, Verdict::Permanent, Step::GiveUp),
    ];
    for (failures, verdict, want) in cases {
        assert_eq!(
            next_step(&policy, failures, verdict, now()),
            want,
            "{failures} {verdict:?}"
        );
    }
}

#[test]
fn the_job_runner_reads_the_wait_and_permanence_from_the_chain() {
    let limited = anyhow::Error::new(GitHubError::RateLimited {
        method: "POST".into(),
        route: "/repos/o/r/issues/1/comments".into(),
        until: later(90),
    })
    .context("posting a comment");
    assert_eq!(retry_delay(&limited, now()), Some(Duration::from_secs(90)));
    assert!(!is_permanent(&limited));
    let rejected = anyhow::Error::new(GitHubError::Rejected {
        method: "GET".into(),
        route: "/repos/o/r/pulls/1".into(),
        status: 404,
    })
    .context("reading the pull request");
    assert!(is_permanent(&rejected));
    assert_eq!(rejected_status(&rejected), Some(404));
    assert_eq!(retry_delay(&rejected, now()), None);
    let down = anyhow::Error::new(GitHubError::Unavailable {
        method: "GET".into(),
        route: "/x".into(),
        attempts: 4,
        last: "502".into(),
    });
    assert!(!is_permanent(&down));
    assert_eq!(retry_delay(&down, now()), None);
    assert_eq!(
        format!("{limited:#}"),
        "posting a comment: GitHub rate limit: POST /repos/o/r/issues/1/comments waits until 2027-01-15T08:01:30Z"
    );
}
