//! Thin AWS effects for enrichment: assuming the per-account read role, decoding
//! authorization messages, and CloudTrail lookups under a shared per-account+region rate limit.
//! All decisions live in `crate::enrich`; nothing here logs credentials or provider text.

mod cloudtrail;
mod config;
mod rate_limit;
mod source_identity;
mod sts;

#[cfg(test)]
mod cloudtrail_tests;
#[cfg(test)]
mod sts_tests;

pub use cloudtrail::{
    cloudtrail_client, lookup_events, poll_until_found, read_all_pages, throttle_backoff,
    LookupError, PageLimits, PollEnd, MAX_PAGES_PER_POLL, MAX_THROTTLE_RETRIES,
};
pub use config::{
    config_with_credentials, load_base_config, static_config, AwsSettings, ENDPOINT_URL_ENV,
};
pub use rate_limit::{lookup_events_limiter, RateLimiter, LOOKUP_EVENTS_PER_SECOND};
pub use source_identity::{is_valid_sts_name, sanitize_sts_name};
pub use sts::{
    assume_role, decode_authorization_message, AssumeRoleRequest, StsError, TempCredentials,
};
