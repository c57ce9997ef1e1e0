//! Which CloudTrail `LookupEvents` query finds the denied call of a failure.
//!
//! LookupEvents takes **one** lookup attribute, a time window (inclusive) and `MaxResults` ≤ 50
//! (<https://docs.aws.amazon.com/awscloudtrail/latest/APIReference/API_LookupEvents.html>).

use super::failure::FailureToEnrich;
use super::time::UnixSeconds;
use serde::{Deserialize, Serialize};

/// Minutes before the failure that the window starts (CloudTrail `eventTime` is the request
/// time; long retries make the failure arrive later than the call).
pub const WINDOW_BEFORE_SECONDS: i64 = 5 * 60;
/// Seconds after the failure that the window ends (clock skew).
pub const WINDOW_AFTER_SECONDS: i64 = 60;
/// LookupEvents' maximum page size.
pub const MAX_RESULTS: i32 = 50;

/// The lookup attribute (the SDK's `LookupAttributeKey`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LookupAttribute {
    /// For assumed roles, the role session name.
    Username,
    /// The run's temporary access key id (`ASIA…`).
    AccessKeyId,
    /// The API name (`RunInstances`); results are then filtered by session.
    EventName,
    /// A resource's name or id (`sg-0abc…`, a bucket name): drift's "who changed it".
    ResourceName,
}

impl LookupAttribute {
    /// The wire name of the attribute key.
    pub fn key(self) -> &'static str {
        match self {
            LookupAttribute::Username => "Username",
            LookupAttribute::AccessKeyId => "AccessKeyId",
            LookupAttribute::EventName => "EventName",
            LookupAttribute::ResourceName => "ResourceName",
        }
    }
}

/// One LookupEvents query; reuse it unchanged with each `NextToken`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LookupQuery {
    pub attribute: LookupAttribute,
    pub value: String,
    pub start_time: UnixSeconds,
    pub end_time: UnixSeconds,
    pub max_results: i32,
}

/// Why no query can be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LookupPlanError {
    #[error("the failure time is not an RFC 3339 timestamp")]
    NoFailureTime,
    #[error("the run has neither a session name nor an access key id")]
    NoIdentity,
}

fn non_empty(s: Option<&str>) -> Option<&str> {
    s.map(str::trim).filter(|s| !s.is_empty())
}

/// The query for a failure: `EventName` when the text named the operation (results are then
/// filtered by session in `match_events`), else the run's `Username` (role session name), else
/// its `AccessKeyId`. Window: failure time −5 min … +1 min.
pub fn lookup_plan(
    failure: &FailureToEnrich,
    session_name: Option<&str>,
    access_key_id: Option<&str>,
) -> Result<LookupQuery, LookupPlanError> {
    let at = failure
        .failed_at_time()
        .ok_or(LookupPlanError::NoFailureTime)?;
    let session_name = non_empty(session_name);
    let access_key_id = non_empty(access_key_id);
    if session_name.is_none() && access_key_id.is_none() {
        return Err(LookupPlanError::NoIdentity);
    }
    let (attribute, value) = match (failure.operation_name(), session_name, access_key_id) {
        (Some(op), Some(_), _) => (LookupAttribute::EventName, op.to_string()),
        (_, Some(session), _) => (LookupAttribute::Username, session.to_string()),
        (_, None, Some(key)) => (LookupAttribute::AccessKeyId, key.to_string()),
        (_, None, None) => return Err(LookupPlanError::NoIdentity),
    };
    Ok(LookupQuery {
        attribute,
        value,
        start_time: at.plus_seconds(-WINDOW_BEFORE_SECONDS),
        end_time: at.plus_seconds(WINDOW_AFTER_SECONDS),
        max_results: MAX_RESULTS,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(operation: Option<&str>) -> FailureToEnrich {
        FailureToEnrich {
            address: "aws_instance.web".into(),
            aws_code: Some("UnauthorizedOperation".into()),
            operation: operation.map(String::from),
            failed_at: "2024-08-01T11:30:23Z".into(),
            ..FailureToEnrich::default()
        }
    }

    #[test]
    fn picks_the_attribute() {
        let cases = [
            (
                Some("ec2:RunInstances"),
                Some("tfgate-run-42"),
                Some("ASIAX"),
                LookupAttribute::EventName,
                "RunInstances",
            ),
            (
                None,
                Some("tfgate-run-42"),
                Some("ASIAX"),
                LookupAttribute::Username,
                "tfgate-run-42",
            ),
            (
                None,
                None,
                Some("ASIAX"),
                LookupAttribute::AccessKeyId,
                "ASIAX",
            ),
            // Without a session the EventName results could not be told apart: use the key.
            (
                Some("ec2:RunInstances"),
                None,
                Some("ASIAX"),
                LookupAttribute::AccessKeyId,
                "ASIAX",
            ),
            (
                Some("ec2:RunInstances"),
                Some(" "),
                Some("ASIAX"),
                LookupAttribute::AccessKeyId,
                "ASIAX",
            ),
        ];
        for (op, session, key, attribute, value) in cases {
            let q = lookup_plan(&failure(op), session, key).unwrap();
            assert_eq!(
                (q.attribute, q.value.as_str()),
                (attribute, value),
                "{op:?} {session:?}"
            );
        }
    }

    #[test]
    fn window_is_five_minutes_before_to_one_after() {
        let q = lookup_plan(&failure(None), Some("s"), None).unwrap();
        assert_eq!(q.start_time.to_rfc3339(), "2024-08-01T11:25:23Z");
        assert_eq!(q.end_time.to_rfc3339(), "2024-08-01T11:31:23Z");
        assert_eq!(q.max_results, 50);
    }

    #[test]
    fn refuses_without_time_or_identity() {
        let mut f = failure(None);
        assert_eq!(
            lookup_plan(&f, None, None),
            Err(LookupPlanError::NoIdentity)
        );
        f.failed_at = "soon".into();
        assert_eq!(
            lookup_plan(&f, Some("s"), None),
            Err(LookupPlanError::NoFailureTime)
        );
    }
}
