//! Naming the missing permission of a failed apply: the denied IAM action, the deny
//! kind, the resource (type + name, no ARN/account/path) and the minimal statement an admin
//! could add. Pure: the AWS calls live in `crate::aws`.
//!
//! Sources, in order: (a) the SDK error text ([`from_text`]); (b) the encoded authorization
//! message, decoded by `sts:DecodeAuthorizationMessage` ([`parse_decoded_authorization_message`]);
//! (c) CloudTrail `LookupEvents` for the run's session ([`lookup_plan`], [`match_events`]),
//! polled on [`backoff_schedule`] because delivery takes ~5 minutes on average.

mod decoded;
mod denied;
mod event;
mod failure;
mod from_apply;
mod lookup;
mod matching;
mod pending;
mod pr_safe;
mod resource;
mod service_prefix;
mod state;
mod statement;
mod time;
mod view;

pub use decoded::parse_decoded_authorization_message;
pub use denied::{
    is_denial_code, normalize_error_code, DeniedCall, EnrichmentSource, DENIAL_CODES,
};
pub use event::{CloudTrailRecord, LookupEventRecord};
pub use failure::{from_text, needs_cloudtrail, needs_enrichment, should_decode, FailureToEnrich};
pub use from_apply::{
    encoded_message, failures_from_apply, failures_from_plan, permission_failure,
};
pub use lookup::{lookup_plan, LookupAttribute, LookupPlanError, LookupQuery, MAX_RESULTS};
pub use matching::{denied_call_from_record, match_events};
pub use pending::PendingFailure;
pub use pr_safe::{safe_action, safe_code};
pub use resource::{is_pr_safe, RedactedResource};
pub use service_prefix::{iam_action, iam_prefix_for_event_source};
pub use state::{backoff_schedule, EnrichmentState, GaveUpReason};
pub use statement::{admin_hint, minimal_statement, resource_pattern};
pub use time::UnixSeconds;
pub use view::{enrichment_view, CONFIRMED, CONFIRMING, FROM_DECODED, FROM_TEXT};
