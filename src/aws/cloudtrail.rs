//! CloudTrail `LookupEvents`: one page, and the poll loop that pages, backs off on throttling and
//! waits out late delivery.

use super::rate_limit::RateLimiter;
use crate::enrich::{
    match_events, EnrichmentState, FailureToEnrich, GaveUpReason, LookupAttribute,
    LookupEventRecord, LookupQuery, UnixSeconds,
};
use aws_config::SdkConfig;
use aws_sdk_cloudtrail::config::retry::RetryConfig;
use aws_sdk_cloudtrail::error::ProvideErrorMetadata;
use aws_sdk_cloudtrail::primitives::DateTime;
use aws_sdk_cloudtrail::types::{LookupAttribute as SdkAttribute, LookupAttributeKey};
use std::future::Future;
use std::time::Duration;

/// Pages read in one poll before giving the poll up (50 events a page).
pub const MAX_PAGES_PER_POLL: usize = 20;
/// Throttled retries within one poll.
pub const MAX_THROTTLE_RETRIES: u32 = 5;

/// A LookupEvents failure. `Display` is short and never carries provider text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    #[error("CloudTrail throttled the lookup")]
    Throttled,
    /// The read role may not call LookupEvents: retrying will not help.
    #[error("the read role may not look up CloudTrail events")]
    Denied,
    #[error("the CloudTrail lookup failed ({})", code.as_deref().unwrap_or("no error code"))]
    Other { code: Option<String> },
}

/// A CloudTrail client for `config` with the SDK's own retries off: [`poll_until_found`] does
/// the throttling back-off itself, against the shared rate limiter.
pub fn cloudtrail_client(config: &SdkConfig) -> aws_sdk_cloudtrail::Client {
    let conf = aws_sdk_cloudtrail::config::Builder::from(config)
        .retry_config(RetryConfig::disabled())
        .build();
    aws_sdk_cloudtrail::Client::from_conf(conf)
}

fn attribute_key(attribute: LookupAttribute) -> LookupAttributeKey {
    match attribute {
        LookupAttribute::Username => LookupAttributeKey::Username,
        LookupAttribute::AccessKeyId => LookupAttributeKey::AccessKeyId,
        LookupAttribute::EventName => LookupAttributeKey::EventName,
        LookupAttribute::ResourceName => LookupAttributeKey::ResourceName,
    }
}

/// One LookupEvents page. Reuse the same `query` with the returned token.
pub async fn lookup_events(
    client: &aws_sdk_cloudtrail::Client,
    query: &LookupQuery,
    next_token: Option<String>,
) -> Result<(Vec<LookupEventRecord>, Option<String>), LookupError> {
    let attribute = SdkAttribute::builder()
        .attribute_key(attribute_key(query.attribute))
        .attribute_value(&query.value)
        .build()
        .map_err(|_| LookupError::Other { code: None })?;
    let output = client
        .lookup_events()
        .lookup_attributes(attribute)
        .start_time(DateTime::from_secs(query.start_time.0))
        .end_time(DateTime::from_secs(query.end_time.0))
        .max_results(query.max_results)
        .set_next_token(next_token)
        .send()
        .await
        .map_err(|e| match e.code() {
            Some("ThrottlingException" | "Throttling" | "TooManyRequestsException") => {
                LookupError::Throttled
            }
            Some("AccessDeniedException" | "AccessDenied" | "UnrecognizedClientException") => {
                LookupError::Denied
            }
            code => LookupError::Other {
                code: code.map(str::to_string),
            },
        })?;
    let events = output
        .events()
        .iter()
        .map(|e| LookupEventRecord {
            event_id: e.event_id().unwrap_or_default().to_string(),
            event_name: e.event_name().unwrap_or_default().to_string(),
            event_source: e.event_source().unwrap_or_default().to_string(),
            event_time: e.event_time().map(|t| UnixSeconds(t.secs())),
            username: e.username().map(str::to_string),
            access_key_id: e.access_key_id().map(str::to_string),
            cloud_trail_event: e.cloud_trail_event().unwrap_or_default().to_string(),
        })
        .collect();
    let next = output
        .next_token()
        .filter(|t| !t.is_empty())
        .map(str::to_string);
    Ok((events, next))
}

/// Wait before retry `attempt` (1-based) after a ThrottlingException: 1 s, 2 s, 4 s, 8 s, 16 s.
pub fn throttle_backoff(attempt: u32) -> Duration {
    Duration::from_secs(1u64 << attempt.saturating_sub(1).min(4))
}

/// How far one read of a query's pages goes.
#[derive(Debug, Clone, Copy)]
pub struct PageLimits {
    /// Pages read before stopping with what was read (50 events a page).
    pub pages: usize,
    /// Throttled answers waited out ([`throttle_backoff`]) before giving up.
    pub throttled: u32,
}

/// Enrichment's poll: [`MAX_PAGES_PER_POLL`] pages, [`MAX_THROTTLE_RETRIES`] throttled waits.
pub const POLL_LIMITS: PageLimits = PageLimits {
    pages: MAX_PAGES_PER_POLL,
    throttled: MAX_THROTTLE_RETRIES,
};

/// What stopped one poll short of reading every page.
pub enum PollEnd {
    Complete(Vec<LookupEventRecord>),
    Throttled,
    Failed(LookupError),
}

/// Every event of `query`, page by page at the shared rate, up to `limits`: the events read
/// (all pages, or as many as `limits.pages` allows), or why it stopped.
pub async fn read_all_pages<S, F>(
    client: &aws_sdk_cloudtrail::Client,
    limiter: &RateLimiter,
    query: &LookupQuery,
    limits: PageLimits,
    sleep: &S,
) -> PollEnd
where
    S: Fn(Duration) -> F,
    F: Future<Output = ()>,
{
    let mut events = Vec::new();
    let mut token = None;
    let mut throttled = 0;
    let mut pages = 0;
    while pages < limits.pages {
        limiter.acquire().await;
        match lookup_events(client, query, token.clone()).await {
            Ok((page, next)) => {
                pages += 1;
                events.extend(page);
                match next {
                    Some(next) => token = Some(next),
                    None => return PollEnd::Complete(events),
                }
            }
            Err(LookupError::Throttled) => {
                throttled += 1;
                if throttled > limits.throttled {
                    return PollEnd::Throttled;
                }
                sleep(throttle_backoff(throttled)).await;
            }
            Err(e) => return PollEnd::Failed(e),
        }
    }
    PollEnd::Complete(events)
}

/// Polls CloudTrail after each wait in `schedule` until the failure's denied call shows up.
/// `sleep` is injected so tests need not wait minutes (`tokio::time::sleep` in production).
/// Gives up with a fixed note when the schedule ends, when every poll was throttled, or at once
/// when the read role is denied.
pub async fn poll_until_found<S, F>(
    client: &aws_sdk_cloudtrail::Client,
    limiter: &RateLimiter,
    query: &LookupQuery,
    failure: &FailureToEnrich,
    session_name: &str,
    schedule: &[Duration],
    sleep: S,
) -> EnrichmentState
where
    S: Fn(Duration) -> F,
    F: Future<Output = ()>,
{
    let mut any_complete_poll = false;
    let mut last_failure = None;
    for wait in schedule {
        sleep(*wait).await;
        match read_all_pages(client, limiter, query, POLL_LIMITS, &sleep).await {
            PollEnd::Complete(events) => {
                any_complete_poll = true;
                if let Some(call) = match_events(&events, failure, session_name) {
                    return EnrichmentState::Found(call);
                }
            }
            PollEnd::Throttled => {}
            PollEnd::Failed(LookupError::Denied) => {
                return EnrichmentState::gave_up(GaveUpReason::LookupFailed)
            }
            PollEnd::Failed(e) => last_failure = Some(e),
        }
    }
    let reason = if any_complete_poll {
        GaveUpReason::NoMatchingEvent
    } else if last_failure.is_some() {
        GaveUpReason::LookupFailed
    } else {
        GaveUpReason::Throttled
    };
    EnrichmentState::gave_up(reason)
}
