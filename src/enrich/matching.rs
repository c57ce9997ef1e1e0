//! Finding a failure's denied call among LookupEvents results.
//!
//! Order: the record whose `requestID` equals the error's request id; else a denial record
//! (`errorCode` ∈ denial codes) of the run's session (`userIdentity.arn` ends with
//! `/<session>`, or `Username` = session), preferring the failed operation's `eventName`,
//! nearest in time to the failure.

use super::denied::{
    clean_action, is_denial_code, normalize_error_code, DeniedCall, EnrichmentSource,
};
use super::event::{CloudTrailRecord, LookupEventRecord};
use super::failure::FailureToEnrich;
use super::resource::{from_denial_message, from_request_parameters};
use super::service_prefix::iam_action;
use crate::classify::{classify, ClassifyContext};

/// The failure's denied call among `events`, if one matches.
pub fn match_events(
    events: &[LookupEventRecord],
    failure: &FailureToEnrich,
    session_name: &str,
) -> Option<DeniedCall> {
    let parsed: Vec<(&LookupEventRecord, CloudTrailRecord)> = events
        .iter()
        .filter_map(|e| Some((e, CloudTrailRecord::parse(&e.cloud_trail_event)?)))
        .collect();

    if let Some(request_id) = failure.request_id.as_deref().map(str::trim) {
        let by_id = parsed.iter().find(|(_, r)| {
            r.request_id
                .as_deref()
                .is_some_and(|id| id.trim().eq_ignore_ascii_case(request_id))
        });
        if let Some((event, record)) = by_id {
            if let Some(call) = denied_call_from_record(event, record) {
                return Some(call);
            }
        }
    }

    let session_name = session_name.trim();
    if session_name.is_empty() {
        return None;
    }
    let candidates: Vec<&(&LookupEventRecord, CloudTrailRecord)> = parsed
        .iter()
        .filter(|(e, r)| {
            r.error_code.as_deref().is_some_and(is_denial_code)
                && (r.session_name() == Some(session_name)
                    || e.username.as_deref() == Some(session_name))
        })
        .collect();
    let operation = failure.operation_name();
    let same_operation: Vec<_> = candidates
        .iter()
        .copied()
        .filter(|(e, r)| {
            let name = r.event_name.as_deref().unwrap_or(&e.event_name);
            operation.is_some_and(|op| op == name)
        })
        .collect();
    // With a request id the exact record may simply be late: then only the failed operation's
    // own denials are trusted, not another call's denial from the same session.
    let pool = if !same_operation.is_empty() || failure.request_id.is_some() {
        same_operation
    } else {
        candidates
    };
    let at = failure.failed_at_time();
    let nearest = pool.into_iter().min_by_key(|(e, r)| {
        let time = r.time().or(e.event_time);
        match (time, at) {
            (Some(t), Some(at)) => t.distance(at),
            // Without a failure time: latest first.
            (Some(t), None) => u64::MAX / 2 - t.0.clamp(0, i64::MAX / 4) as u64,
            (None, _) => u64::MAX,
        }
    })?;
    denied_call_from_record(nearest.0, &nearest.1)
}

/// The denied call a failed CloudTrail record describes: the action its `errorMessage` names
/// (it may differ from the call, e.g. `iam:PassRole` during `RunInstances`), else
/// `eventSource` + `eventName`.
pub fn denied_call_from_record(
    event: &LookupEventRecord,
    record: &CloudTrailRecord,
) -> Option<DeniedCall> {
    let code = record.error_code.as_deref()?;
    let message = record.error_message.as_deref().unwrap_or("");
    let classified = classify(message, &ClassifyContext::default());
    let source = record
        .event_source
        .as_deref()
        .unwrap_or(&event.event_source);
    let name = record.event_name.as_deref().unwrap_or(&event.event_name);
    let iam_action = classified
        .iam_action
        .as_deref()
        .and_then(clean_action)
        .or_else(|| iam_action(source, name))?;
    let resource = from_denial_message(message).or_else(|| {
        record
            .request_parameters
            .as_ref()
            .and_then(from_request_parameters)
    });
    let (resource_type, resource_name_redacted) = match resource {
        Some(r) => (Some(r.resource_type), Some(r.name)),
        None => (None, None),
    };
    Some(DeniedCall {
        iam_action,
        error_code: Some(normalize_error_code(code)),
        deny_kind: classified.deny_kind,
        resource_type,
        resource_name_redacted,
        source: EnrichmentSource::CloudTrail,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::DenyKind;
    use crate::enrich::time::UnixSeconds;

    const EC2: &str = include_str!("../../tests/fixtures/cloudtrail/ec2-runinstances-denied.json");
    const IAM: &str = include_str!("../../tests/fixtures/cloudtrail/iam-getrole-slr-denied.json");
    const LOGS: &str =
        include_str!("../../tests/fixtures/cloudtrail/logs-createloggroup-scp-denied.json");
    const OK: &str = include_str!("../../tests/fixtures/cloudtrail/ec2-describeinstances-ok.json");

    /// A LookupEvents entry around a record, with its session as `Username`.
    fn event(record: &str) -> LookupEventRecord {
        let v: serde_json::Value = serde_json::from_str(record).unwrap();
        let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
        LookupEventRecord {
            event_id: s("eventID"),
            event_name: s("eventName"),
            event_source: s("eventSource"),
            event_time: UnixSeconds::parse_rfc3339(&s("eventTime")),
            username: CloudTrailRecord::parse(record)
                .unwrap()
                .session_name()
                .map(String::from),
            access_key_id: None,
            cloud_trail_event: record.to_string(),
        }
    }

    /// The same record with fields replaced.
    fn edited(record: &str, edits: &[(&str, serde_json::Value)]) -> String {
        let mut v: serde_json::Value = serde_json::from_str(record).unwrap();
        for (k, val) in edits {
            v[*k] = val.clone();
        }
        v.to_string()
    }

    fn failure() -> FailureToEnrich {
        FailureToEnrich {
            address: "aws_instance.web".into(),
            aws_code: Some("UnauthorizedOperation".into()),
            failed_at: "2024-08-01T11:30:24Z".into(),
            ..FailureToEnrich::default()
        }
    }

    #[test]
    fn matches_by_request_id_even_from_another_session() {
        let f = FailureToEnrich {
            request_id: Some("B663854B-0f2c-4d5e-9a51-6c1d2e3f4a5b".into()),
            ..failure()
        };
        let events = [event(OK), event(LOGS), event(EC2)];
        let call = match_events(&events, &f, "some-other-session").unwrap();
        assert_eq!(call.iam_action, "ec2:RunInstances");
        assert_eq!(call.error_code.as_deref(), Some("UnauthorizedOperation"));
        assert_eq!(call.deny_kind, Some(DenyKind::Implicit));
        assert_eq!(call.resource_type.as_deref(), Some("instance"));
        assert_eq!(call.resource_name_redacted.as_deref(), Some("*"));
        assert_eq!(call.source, EnrichmentSource::CloudTrail);
        assert!(call.is_pr_safe());
    }

    #[test]
    fn matches_by_session_code_and_nearest_time() {
        let earlier = edited(
            EC2,
            &[
                ("eventTime", "2024-08-01T11:26:00Z".into()),
                ("requestID", "00000000-0000-0000-0000-000000000001".into()),
                ("eventName", "CreateTags".into()),
                (
                    "errorMessage",
                    "You are not authorized to perform this operation.".into(),
                ),
            ],
        );
        let events = [event(&earlier), event(OK), event(LOGS), event(EC2)];
        let call = match_events(&events, &failure(), "tfgate-run-42").unwrap();
        assert_eq!(call.iam_action, "ec2:RunInstances");

        // Failure time near the earlier denial: that one wins, named from eventSource+eventName.
        let f = FailureToEnrich {
            failed_at: "2024-08-01T11:26:01Z".into(),
            ..failure()
        };
        let call = match_events(&events, &f, "tfgate-run-42").unwrap();
        assert_eq!(call.iam_action, "ec2:CreateTags");
        assert_eq!(call.deny_kind, None);
    }

    #[test]
    fn prefers_the_failed_operation() {
        let f = FailureToEnrich {
            operation: Some("logs:CreateLogGroup".into()),
            ..failure()
        };
        let call = match_events(&[event(EC2), event(LOGS)], &f, "tfgate-run-42").unwrap();
        assert_eq!(call.iam_action, "logs:CreateLogGroup");
    }

    #[test]
    fn ignores_other_sessions_and_successful_calls() {
        let events = [event(EC2), event(OK), event(LOGS)];
        assert_eq!(match_events(&events, &failure(), "tfgate-run-43"), None);
        assert_eq!(match_events(&events, &failure(), "tfgate-run-4"), None);
        assert_eq!(
            match_events(&[event(OK)], &failure(), "tfgate-run-42"),
            None
        );
        assert_eq!(match_events(&events, &failure(), ""), None);
    }

    #[test]
    fn a_known_request_id_that_is_not_delivered_yet_does_not_pick_another_call() {
        let f = FailureToEnrich {
            request_id: Some("not-yet-delivered".into()),
            operation: Some("ec2:RunInstances".into()),
            ..failure()
        };
        assert_eq!(match_events(&[event(LOGS)], &f, "tfgate-run-42"), None);
        let call = match_events(&[event(LOGS), event(EC2)], &f, "tfgate-run-42").unwrap();
        assert_eq!(call.iam_action, "ec2:RunInstances");
    }

    #[test]
    fn json_protocol_access_denied_exception_with_scp_arn_suffix() {
        let call = match_events(&[event(LOGS)], &failure(), "tfgate-run-42").unwrap();
        assert_eq!(call.iam_action, "logs:CreateLogGroup");
        assert_eq!(call.error_code.as_deref(), Some("AccessDeniedException"));
        assert_eq!(call.deny_kind, Some(DenyKind::ExplicitScp));
        assert_eq!(call.resource_type.as_deref(), Some("log-group"));
        assert!(call.is_pr_safe(), "{call:?}");
    }

    #[test]
    fn service_linked_role_named_without_path() {
        let f = FailureToEnrich {
            address: "module.eks.aws_eks_node_group.this".into(),
            aws_code: Some("InvalidRequestException".into()),
            permission_missing: true,
            operation: Some("eks:CreateNodegroup".into()),
            text_iam_action: Some("iam:GetRole".into()),
            failed_at: "2024-08-01T11:30:22Z".into(),
            ..FailureToEnrich::default()
        };
        let call = match_events(&[event(IAM)], &f, "tfgate-run-7").unwrap();
        assert_eq!(call.iam_action, "iam:GetRole");
        assert_eq!(call.error_code.as_deref(), Some("AccessDenied"));
        assert_eq!(call.deny_kind, Some(DenyKind::Implicit));
        assert_eq!(call.resource_type.as_deref(), Some("role"));
        assert_eq!(
            call.resource_name_redacted.as_deref(),
            Some("AWSServiceRoleForAmazonEKSNodegroup")
        );
    }

    #[test]
    fn invalid_cloudtrail_event_strings_are_skipped() {
        let mut broken = event(EC2);
        broken.cloud_trail_event = "{\"eventVersion\":".into();
        assert_eq!(match_events(&[broken], &failure(), "tfgate-run-42"), None);
    }
}
