use super::*;
use serde_json::json;

const SSO: &str =
    include_str!("../../tests/fixtures/cloudtrail/ec2-authorize-ingress-sso-session.json");
const IAM_USER: &str =
    include_str!("../../tests/fixtures/cloudtrail/ec2-modify-rules-iam-user.json");
const TFGATE: &str =
    include_str!("../../tests/fixtures/cloudtrail/ec2-authorize-ingress-tfgate-apply.json");
const READ: &str = include_str!("../../tests/fixtures/cloudtrail/ec2-describeinstances-ok.json");
const DENIED: &str = include_str!("../../tests/fixtures/cloudtrail/ec2-runinstances-denied.json");

fn event(record: &str) -> LookupEventRecord {
    LookupEventRecord {
        event_id: "e".into(),
        cloud_trail_event: record.into(),
        ..LookupEventRecord::default()
    }
}

fn own() -> OwnSessions {
    OwnSessions {
        role_arns: vec!["arn:aws:iam::123456789012:role/tfgate-apply".into()],
    }
}

fn keep(s: &str) -> String {
    s.to_string()
}

#[test]
fn resource_names_prefer_the_id_then_the_arn() {
    let cases = [
        (
            json!({"id": "sg-1", "arn": "arn:aws:ec2:x", "name": "web"}),
            vec!["sg-1", "arn:aws:ec2:x"],
        ),
        (
            json!({"id": "my-bucket", "bucket": "my-bucket", "arn": "arn:aws:s3:::my-bucket"}),
            vec!["my-bucket", "arn:aws:s3:::my-bucket"],
        ),
        (json!({"id": "", "name": "web"}), vec!["web"]),
        (json!({"id": 7, "name": "  "}), vec![]),
        (json!("not an object"), vec![]),
    ];
    for (state, want) in cases {
        assert_eq!(resource_names(Some(&state)), want, "{state}");
    }
    assert!(resource_names(None).is_empty());
}

#[test]
fn the_window_starts_at_the_last_apply_within_ninety_days() {
    let now = UnixSeconds(1_800_000_000);
    let day = 24 * 3600;
    assert_eq!(
        lookup_window(Some(UnixSeconds(now.0 - day)), now).0,
        UnixSeconds(now.0 - day)
    );
    let oldest = UnixSeconds(now.0 - LOOKBACK_LIMIT_SECONDS);
    assert_eq!(lookup_window(None, now), (oldest, now));
    assert_eq!(
        lookup_window(Some(UnixSeconds(now.0 - 200 * day)), now).0,
        oldest
    );
    // A clock gone wrong (an apply "in the future") falls back to the whole history.
    assert_eq!(lookup_window(Some(UnixSeconds(now.0 + 60)), now).0, oldest);
}

#[test]
fn the_latest_outside_write_wins_and_tfgates_own_apply_is_not_it() {
    // tfgate's apply (10:00) is newer than the SSO edit (09:12), which is newer than bob's.
    let events = [
        event(IAM_USER),
        event(TFGATE),
        event(SSO),
        event(READ),
        event(DENIED),
    ];
    let change = latest_outside_change(&events, &own(), false).unwrap();
    assert_eq!(change.event_name, "AuthorizeSecurityGroupIngress");
    assert_eq!(change.time, "2024-08-03T09:12:30Z");
    assert_eq!(
        change.principal,
        Principal::AssumedRole {
            session: "alice@example.com".into(),
            named: false
        }
    );
}

#[test]
fn an_e_mail_session_name_is_redacted_unless_the_policy_allows_naming_people() {
    use crate::redact::{Placeholders, RedactionConfig, Redactor};
    let redactor = Redactor::new(&RedactionConfig::default()).unwrap();
    let mut ph = Placeholders::new();
    let mut redact = |s: &str| redactor.redact(s, &mut ph);
    let hidden = latest_outside_change(&[event(SSO)], &own(), false).unwrap();
    let line = WhoChanged::Found(hidden).line(&mut redact);
    assert!(
        line.starts_with("changed by an assumed role, session `<email-1>`:"),
        "{line}"
    );
    let shown = latest_outside_change(&[event(SSO)], &own(), true).unwrap();
    let line = WhoChanged::Found(shown).line(&mut redact);
    assert!(
        line.starts_with("changed by an assumed role, session `alice@example.com`:"),
        "{line}"
    );
    // A session that is not an e-mail address always passes through redaction.
    let ci = Principal::AssumedRole {
        session: "ci-10.1.2.3".into(),
        named: false,
    };
    let found = WhoChanged::Found(ChangeEvent {
        event_name: "PutX".into(),
        time: "t".into(),
        principal: ci,
    });
    assert!(!found.line(&mut redact).contains("10.1.2.3"));
}

#[test]
fn a_tfgate_named_session_of_another_role_counts_as_outside() {
    // Anyone can name a session `tfgate-7`; only the project's own roles are tfgate.
    let forged = TFGATE.replace("role/tfgate-apply\"", "role/intruder\"");
    let change = latest_outside_change(&[event(&forged)], &own(), false).unwrap();
    assert_eq!(
        change.principal,
        Principal::AssumedRole {
            session: "tfgate-7".into(),
            named: false
        }
    );
    assert!(latest_outside_change(&[event(TFGATE)], &own(), false).is_none());
}

#[test]
fn reads_failures_and_garbage_are_not_changes() {
    let events = [
        event(READ),
        event(DENIED),
        event("{not json"),
        event(r#"{"eventVersion":"2.0"}"#),
    ];
    assert_eq!(latest_outside_change(&events, &own(), true), None);
    // Without `readOnly`, the event name decides.
    let get = r#"{"eventVersion":"1.08","eventName":"GetBucketPolicy","eventTime":"2024-08-01T00:00:00Z"}"#;
    let put = r#"{"eventVersion":"1.08","eventName":"PutBucketPolicy","eventTime":"2024-08-01T00:00:00Z","userIdentity":{"type":"Root"}}"#;
    assert_eq!(latest_outside_change(&[event(get)], &own(), true), None);
    let change = latest_outside_change(&[event(put)], &own(), true).unwrap();
    assert_eq!(change.principal, Principal::Root);
    // LookupEvents' string form of readOnly.
    let string_ro = r#"{"eventVersion":"1.08","eventName":"PutX","readOnly":"true","eventTime":"2024-08-01T00:00:00Z"}"#;
    assert_eq!(
        latest_outside_change(&[event(string_ro)], &own(), true),
        None
    );
}

#[test]
fn an_iam_users_name_is_shown_only_when_the_policy_allows_it() {
    let hidden = latest_outside_change(&[event(IAM_USER)], &own(), false).unwrap();
    assert_eq!(hidden.principal, Principal::IamUser { name: None });
    let line = WhoChanged::Found(hidden).line(&mut keep);
    assert_eq!(
        line,
        "changed by IAM user (name not shown: `show_principals` is off): `ModifySecurityGroupRules` at 2024-08-02T16:40:00Z"
    );
    let shown = latest_outside_change(&[event(IAM_USER)], &own(), true).unwrap();
    assert_eq!(
        shown.principal,
        Principal::IamUser {
            name: Some("bob".into())
        }
    );
}

#[test]
fn lines_never_carry_an_arn_or_an_account_id() {
    let all = [event(SSO), event(IAM_USER)];
    for show in [false, true] {
        let change = latest_outside_change(&all, &own(), show).unwrap();
        let line = WhoChanged::Found(change).line(&mut keep);
        assert!(!line.contains("arn:"), "{line}");
        assert!(!line.contains("123456789012"), "{line}");
        assert!(!line.contains("AWSReservedSSO"), "{line}");
    }
    assert_eq!(
        WhoChanged::Found(latest_outside_change(&[event(SSO)], &own(), false).unwrap())
            .line(&mut keep),
        "changed by an assumed role, session `alice@example.com`: `AuthorizeSecurityGroupIngress` at 2024-08-03T09:12:30Z"
    );
}

#[test]
fn every_principal_kind_and_outcome_has_a_line() {
    let mut redact = |s: &str| s.replace("10.0.0.1", "<ip>");
    let found = |principal| {
        WhoChanged::Found(ChangeEvent {
            event_name: "PutX".into(),
            time: "2024-08-01T00:00:00Z".into(),
            principal,
        })
    };
    let cases = [
        (found(Principal::AssumedRole { session: "ci-10.0.0.1".into(), named: false }), "changed by an assumed role, session `ci-<ip>`: `PutX` at 2024-08-01T00:00:00Z"),
        (found(Principal::FederatedUser { name: Some("carol".into()) }), "changed by federated user `carol`: `PutX` at 2024-08-01T00:00:00Z"),
        (found(Principal::Root), "changed by the account's root user: `PutX` at 2024-08-01T00:00:00Z"),
        (found(Principal::AwsService { service: "autoscaling.amazonaws.com".into() }), "changed by the AWS service `autoscaling.amazonaws.com`: `PutX` at 2024-08-01T00:00:00Z"),
        (found(Principal::Other { kind: "WebIdentityUser".into() }), "changed by a principal of type `WebIdentityUser`: `PutX` at 2024-08-01T00:00:00Z"),
        (WhoChanged::NotFound, "who: not found in CloudTrail"),
        (WhoChanged::Unavailable, "who: CloudTrail could not be read (see the server log)"),
    ];
    for (who, want) in cases {
        assert_eq!(who.line(&mut redact), want);
    }
}

#[test]
fn a_federated_users_name_comes_from_its_arn() {
    let record = r#"{"eventVersion":"1.08","eventName":"PutX","readOnly":false,"eventTime":"2024-08-01T00:00:00Z","userIdentity":{"type":"FederatedUser","arn":"arn:aws:sts::123456789012:federated-user/carol"}}"#;
    let shown = latest_outside_change(&[event(record)], &own(), true).unwrap();
    assert_eq!(
        shown.principal,
        Principal::FederatedUser {
            name: Some("carol".into())
        }
    );
    let hidden = latest_outside_change(&[event(record)], &own(), false).unwrap();
    assert_eq!(hidden.principal, Principal::FederatedUser { name: None });
}
