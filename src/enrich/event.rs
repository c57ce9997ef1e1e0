//! A LookupEvents result and the fields of its `CloudTrailEvent` JSON string that matter here.
//!
//! Record fields: <https://docs.aws.amazon.com/awscloudtrail/latest/userguide/cloudtrail-event-reference-record-contents.html>.
//! `errorCode`/`errorMessage` exist only on failed calls.

use super::time::UnixSeconds;
use serde::{Deserialize, Serialize};

/// One entry of LookupEvents' `Events[]`.
#[derive(Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct LookupEventRecord {
    pub event_id: String,
    pub event_name: String,
    pub event_source: String,
    pub event_time: Option<UnixSeconds>,
    /// For assumed roles: the role session name.
    pub username: Option<String>,
    pub access_key_id: Option<String>,
    /// The full CloudTrail record, a JSON **string**.
    pub cloud_trail_event: String,
}

impl std::fmt::Debug for LookupEventRecord {
    /// Names only: the record itself holds ARNs, account ids and IPs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LookupEventRecord")
            .field("event_id", &self.event_id)
            .field("event_name", &self.event_name)
            .field("event_source", &self.event_source)
            .field("event_time", &self.event_time)
            .field("cloud_trail_event_len", &self.cloud_trail_event.len())
            .finish_non_exhaustive()
    }
}

/// The parts of a CloudTrail record used for matching. Never shown as they are.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CloudTrailRecord {
    pub event_version: Option<String>,
    pub event_source: Option<String>,
    pub event_name: Option<String>,
    pub event_time: Option<String>,
    pub error_code: Option<String>,
    pub error_message: Option<String>,
    #[serde(rename = "requestID")]
    pub request_id: Option<String>,
    pub user_identity: Option<UserIdentity>,
    pub request_parameters: Option<serde_json::Value>,
    /// `true` for read-only calls (a boolean in records; kept loose, see [`Self::read_only`]).
    #[serde(rename = "readOnly")]
    pub read_only_raw: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct UserIdentity {
    /// `arn:aws:sts::ACCT:assumed-role/ROLE/SESSION` for assumed roles.
    pub arn: Option<String>,
    pub access_key_id: Option<String>,
    /// `AssumedRole`, `IAMUser`, `Root`, `AWSService`, `FederatedUser`, …
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// An IAM user's name (`IAMUser` only).
    pub user_name: Option<String>,
    /// The service that made the call (`AWSService`, and calls made on a principal's behalf).
    pub invoked_by: Option<String>,
    pub session_context: Option<SessionContext>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SessionContext {
    pub session_issuer: Option<SessionIssuer>,
}

/// The role (or user) a session was issued from.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SessionIssuer {
    pub arn: Option<String>,
}

impl CloudTrailRecord {
    /// Parses the `CloudTrailEvent` string; `None` for invalid JSON or an unsupported major
    /// `eventVersion` (only 1.x is documented).
    pub fn parse(cloud_trail_event: &str) -> Option<CloudTrailRecord> {
        let record: CloudTrailRecord = serde_json::from_str(cloud_trail_event).ok()?;
        match record.event_version.as_deref() {
            None => Some(record),
            Some(v) if v.split('.').next() == Some("1") => Some(record),
            Some(_) => None,
        }
    }

    /// The role session of `userIdentity.arn` (`…/assumed-role/ROLE/SESSION` → `SESSION`).
    pub fn session_name(&self) -> Option<&str> {
        let arn = self.user_identity.as_ref()?.arn.as_deref()?;
        let (_, resource) = arn.split_once(":assumed-role/")?;
        let (_role, session) = resource.split_once('/')?;
        (!session.is_empty()).then_some(session)
    }

    /// `readOnly` as a boolean (`true`/`false`, or the strings LookupEvents uses).
    pub fn read_only(&self) -> Option<bool> {
        match self.read_only_raw.as_ref()? {
            serde_json::Value::Bool(b) => Some(*b),
            serde_json::Value::String(s) if s.eq_ignore_ascii_case("true") => Some(true),
            serde_json::Value::String(s) if s.eq_ignore_ascii_case("false") => Some(false),
            _ => None,
        }
    }

    pub fn time(&self) -> Option<UnixSeconds> {
        UnixSeconds::parse_rfc3339(self.event_time.as_deref()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EC2: &str = include_str!("../../tests/fixtures/cloudtrail/ec2-runinstances-denied.json");
    const OK: &str = include_str!("../../tests/fixtures/cloudtrail/ec2-describeinstances-ok.json");

    #[test]
    fn parses_a_real_shaped_denied_record() {
        let r = CloudTrailRecord::parse(EC2).unwrap();
        assert_eq!(r.event_source.as_deref(), Some("ec2.amazonaws.com"));
        assert_eq!(r.event_name.as_deref(), Some("RunInstances"));
        assert_eq!(
            r.error_code.as_deref(),
            Some("Client.UnauthorizedOperation")
        );
        assert_eq!(
            r.request_id.as_deref(),
            Some("b663854b-0f2c-4d5e-9a51-6c1d2e3f4a5b")
        );
        assert_eq!(r.session_name(), Some("tfgate-run-42"));
        assert_eq!(r.time().unwrap().to_rfc3339(), "2024-08-01T11:30:23Z");
        assert!(r.request_parameters.is_some());
    }

    #[test]
    fn successful_calls_have_no_error_code() {
        let r = CloudTrailRecord::parse(OK).unwrap();
        assert_eq!(r.error_code, None);
        assert_eq!(r.error_message, None);
    }

    #[test]
    fn rejects_bad_json_and_unknown_major_versions() {
        assert_eq!(CloudTrailRecord::parse("{not json"), None);
        assert_eq!(CloudTrailRecord::parse(r#"{"eventVersion":"2.0"}"#), None);
        assert!(CloudTrailRecord::parse(r#"{"eventVersion":"1.11"}"#).is_some());
    }

    #[test]
    fn session_name_needs_an_assumed_role_arn() {
        let user = r#"{"userIdentity":{"arn":"arn:aws:iam::123456789012:user/alice"}}"#;
        assert_eq!(CloudTrailRecord::parse(user).unwrap().session_name(), None);
        let empty = r#"{"userIdentity":{"arn":"arn:aws:sts::1:assumed-role/r/"}}"#;
        assert_eq!(CloudTrailRecord::parse(empty).unwrap().session_name(), None);
    }

    #[test]
    fn debug_of_a_lookup_record_hides_the_record() {
        let rec = LookupEventRecord {
            event_id: "e".into(),
            cloud_trail_event: EC2.into(),
            ..LookupEventRecord::default()
        };
        let shown = format!("{rec:?}");
        assert!(!shown.contains("arn:"), "{shown}");
        assert!(!shown.contains("123456789012"), "{shown}");
    }
}
