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
    let session =
        |change: ChangeEvent, redact: &mut dyn FnMut(&str) -> String| match WhoChanged::Found(
            change,
        )
        .text(redact)
        {
            WhoChangedText::Found {
                principal: PrincipalText::AssumedRole { session },
                ..
            } => session,
            other => panic!("{other:?}"),
        };
    let hidden = latest_outside_change(&[event(SSO)], &own(), false).unwrap();
    assert_eq!(session(hidden, &mut redact), "<email-1>");
    let shown = latest_outside_change(&[event(SSO)], &own(), true).unwrap();
    assert_eq!(session(shown, &mut redact), "alice@example.com");
    // A session that is not an e-mail address always passes through redaction.
    let ci = Principal::AssumedRole {
        session: "ci-10.1.2.3".into(),
        named: false,
    };
    let found = ChangeEvent {
        event_name: "PutX".into(),
        time: "t".into(),
        principal: ci,
    };
    assert!(!session(found, &mut redact).contains("10.1.2.3"));
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
    assert_eq!(
        WhoChanged::Found(hidden).text(&mut keep),
        WhoChangedText::Found {
            principal: PrincipalText::IamUser { name: None },
            event_name: "ModifySecurityGroupRules".into(),
            time: "2024-08-02T16:40:00Z".into(),
        }
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
        let line = format!("{:?}", WhoChanged::Found(change).text(&mut keep));
        assert!(!line.contains("arn:"), "{line}");
        assert!(!line.contains("123456789012"), "{line}");
        assert!(!line.contains("AWSReservedSSO"), "{line}");
    }
    assert_eq!(
        WhoChanged::Found(latest_outside_change(&[event(SSO)], &own(), false).unwrap())
            .text(&mut keep),
        WhoChangedText::Found {
            principal: PrincipalText::AssumedRole {
                session: "alice@example.com".into()
            },
            event_name: "AuthorizeSecurityGroupIngress".into(),
            time: "2024-08-03T09:12:30Z".into(),
        }
    );
}

/// Every principal kind and outcome as data; `render::texts` tests word them.
#[test]
fn every_principal_kind_and_outcome_has_a_text() {
    let mut redact = |s: &str| s.replace("10.0.0.1", "<ip>");
    let found = |principal| {
        WhoChanged::Found(ChangeEvent {
            event_name: "PutX-10.0.0.1".into(),
            time: "2024-08-01T00:00:00Z".into(),
            principal,
        })
    };
    let want = |principal| WhoChangedText::Found {
        principal,
        event_name: "PutX-<ip>".into(),
        time: "2024-08-01T00:00:00Z".into(),
    };
    let cases = [
        (
            found(Principal::AssumedRole {
                session: "ci-10.0.0.1".into(),
                named: false,
            }),
            want(PrincipalText::AssumedRole {
                session: "ci-<ip>".into(),
            }),
        ),
        (
            found(Principal::AssumedRole {
                session: "a@10.0.0.1".into(),
                named: true,
            }),
            want(PrincipalText::AssumedRole {
                session: "a@10.0.0.1".into(),
            }),
        ),
        (
            found(Principal::IamUser {
                name: Some("bob-10.0.0.1".into()),
            }),
            want(PrincipalText::IamUser {
                name: Some("bob-<ip>".into()),
            }),
        ),
        (
            found(Principal::FederatedUser {
                name: Some("carol".into()),
            }),
            want(PrincipalText::FederatedUser {
                name: Some("carol".into()),
            }),
        ),
        (
            found(Principal::FederatedUser { name: None }),
            want(PrincipalText::FederatedUser { name: None }),
        ),
        (found(Principal::Root), want(PrincipalText::Root)),
        (
            found(Principal::AwsService {
                service: "autoscaling.amazonaws.com".into(),
            }),
            want(PrincipalText::AwsService {
                service: "autoscaling.amazonaws.com".into(),
            }),
        ),
        (
            found(Principal::Other {
                kind: "WebIdentityUser".into(),
            }),
            want(PrincipalText::Other {
                identity_type: "WebIdentityUser".into(),
            }),
        ),
        (WhoChanged::NotFound, WhoChangedText::NotFound),
        (WhoChanged::Unavailable, WhoChangedText::Unavailable),
        (
            WhoChanged::NotLookedUp,
            WhoChangedText::NotLookedUp {
                limit: MAX_RESOURCES_PER_ROOT,
            },
        ),
    ];
    for (who, want) in cases {
        assert_eq!(who.text(&mut redact), want);
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
