//! Who changed a drifted resource outside Terraform, from CloudTrail. Pure: which names to
//! look a resource up by (`LookupEvents` by `ResourceName`), over which window, which of the
//! events found is the change (the latest successful write that is not one of tfgate's own
//! runs), and what of its principal may be shown: the principal's type and role session name,
//! an IAM user's name only when the policy says `show_principals: true`, never an ARN or an
//! account id.

use serde_json::Value;

use crate::enrich::{CloudTrailRecord, LookupEventRecord, UnixSeconds};
use crate::model::{PrincipalText, WhoChangedText};

/// CloudTrail's event history (what `LookupEvents` reads) covers the last 90 days.
pub const LOOKBACK_LIMIT_SECONDS: i64 = 90 * 24 * 3600;
/// Drifted resources looked up per root; the rest are listed without "who".
pub const MAX_RESOURCES_PER_ROOT: usize = 10;
/// Names tried per resource.
const MAX_NAMES_PER_RESOURCE: usize = 2;

/// The names CloudTrail may file a resource under, most specific first: the provider's `id`
/// (`sg-0abc…`, `i-0abc…`, a bucket name), then `arn`, `name`, `bucket`. Deduplicated, at most
/// two. `state` is the resource's prior state object (the plan's `before`).
pub fn resource_names(state: Option<&Value>) -> Vec<String> {
    let Some(Value::Object(object)) = state else {
        return Vec::new();
    };
    let mut names: Vec<String> = Vec::new();
    for key in ["id", "arn", "name", "bucket"] {
        if let Some(Value::String(s)) = object.get(key) {
            let s = s.trim();
            if !s.is_empty() && s.len() <= 2048 && !names.iter().any(|n| n == s) {
                names.push(s.to_string());
            }
        }
    }
    names.truncate(MAX_NAMES_PER_RESOURCE);
    names
}

/// The lookup window: from the root's last apply (or as far back as CloudTrail keeps events)
/// to `now`.
pub fn lookup_window(
    last_apply: Option<UnixSeconds>,
    now: UnixSeconds,
) -> (UnixSeconds, UnixSeconds) {
    let oldest = now.plus_seconds(-LOOKBACK_LIMIT_SECONDS);
    let start = match last_apply {
        Some(at) if at.0 > oldest.0 && at.0 <= now.0 => at,
        _ => oldest,
    };
    (start, now)
}

/// Who made a call, as far as it may be shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Principal {
    /// A role session (people through SSO, CI systems, other tools). `named`: the session
    /// name is a person's e-mail address and the policy allows naming people, so it is shown
    /// as it is (otherwise redaction masks e-mail addresses, as in every comment).
    AssumedRole {
        session: String,
        named: bool,
    },
    /// An IAM user; the name only when the policy allows it.
    IamUser {
        name: Option<String>,
    },
    /// A federated user (`GetFederationToken`); the name only when allowed.
    FederatedUser {
        name: Option<String>,
    },
    Root,
    /// An AWS service acting itself (`autoscaling.amazonaws.com`).
    AwsService {
        service: String,
    },
    /// Any other `userIdentity.type`.
    Other {
        kind: String,
    },
}

/// The write event taken as the change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeEvent {
    pub event_name: String,
    /// RFC 3339, UTC.
    pub time: String,
    pub principal: Principal,
}

/// What the lookup found for one drifted resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WhoChanged {
    Found(ChangeEvent),
    NotFound,
    /// CloudTrail could not be read (denied, throttled throughout, or failed).
    Unavailable,
    /// More drifted resources than are looked up in one check.
    NotLookedUp,
}

/// The roles tfgate's own runs use in the project's account: their `tfgate-<run id>` sessions
/// are Terraform, not a change outside it.
#[derive(Debug, Clone, Default)]
pub struct OwnSessions {
    pub role_arns: Vec<String>,
}

impl OwnSessions {
    fn is_own(&self, record: &CloudTrailRecord) -> bool {
        let Some(identity) = &record.user_identity else {
            return false;
        };
        let issuer = identity
            .session_context
            .as_ref()
            .and_then(|c| c.session_issuer.as_ref())
            .and_then(|i| i.arn.as_deref());
        let from_own_role = issuer.is_some_and(|arn| self.role_arns.iter().any(|r| r == arn));
        let tfgate_session = record.session_name().is_some_and(|s| {
            s.strip_prefix("tfgate-")
                .is_some_and(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()))
        });
        from_own_role && tfgate_session
    }
}

/// Read-only calls by name, for records without `readOnly`.
fn reads_by_name(event_name: &str) -> bool {
    [
        "Get", "Describe", "List", "Head", "Lookup", "BatchGet", "Search",
    ]
    .iter()
    .any(|p| event_name.starts_with(p))
}

fn is_successful_write(record: &CloudTrailRecord) -> bool {
    if record.error_code.is_some() {
        return false;
    }
    match record.read_only() {
        Some(read_only) => !read_only,
        None => !reads_by_name(record.event_name.as_deref().unwrap_or("Get")),
    }
}

fn principal(record: &CloudTrailRecord, show_principals: bool) -> Principal {
    let identity = record.user_identity.clone().unwrap_or_default();
    let allowed = |name: Option<String>| name.filter(|_| show_principals);
    match identity.kind.as_deref().unwrap_or("") {
        "AssumedRole" => match record.session_name() {
            Some(session) => Principal::AssumedRole {
                session: session.to_string(),
                named: show_principals && session.contains('@'),
            },
            None => Principal::Other {
                kind: "AssumedRole".into(),
            },
        },
        "IAMUser" => Principal::IamUser {
            name: allowed(identity.user_name),
        },
        "FederatedUser" => Principal::FederatedUser {
            name: allowed(
                identity
                    .arn
                    .as_deref()
                    .and_then(|a| a.split_once(":federated-user/"))
                    .map(|(_, n)| n.to_string()),
            ),
        },
        "Root" => Principal::Root,
        "AWSService" => Principal::AwsService {
            service: identity.invoked_by.unwrap_or_else(|| "unknown".into()),
        },
        other => Principal::Other {
            kind: if other.is_empty() { "unknown" } else { other }.to_string(),
        },
    }
}

/// The latest successful write among `events` that is not one of tfgate's own runs.
pub fn latest_outside_change(
    events: &[LookupEventRecord],
    own: &OwnSessions,
    show_principals: bool,
) -> Option<ChangeEvent> {
    events
        .iter()
        .filter_map(|e| {
            let record = CloudTrailRecord::parse(&e.cloud_trail_event)?;
            let at = record.time().or(e.event_time)?;
            (is_successful_write(&record) && !own.is_own(&record)).then_some((at, record, e))
        })
        .max_by_key(|(at, _, _)| at.0)
        .map(|(at, record, e)| ChangeEvent {
            event_name: record
                .event_name
                .clone()
                .unwrap_or_else(|| e.event_name.clone()),
            time: at.to_rfc3339(),
            principal: principal(&record, show_principals),
        })
}

impl Principal {
    /// What of the principal the report shows; names pass through `redact`.
    fn text(&self, redact: &mut dyn FnMut(&str) -> String) -> PrincipalText {
        let mut person = |name: &Option<String>| name.as_deref().map(&mut *redact);
        match self {
            Principal::AssumedRole { session, named } => PrincipalText::AssumedRole {
                session: if *named {
                    session.clone()
                } else {
                    redact(session)
                },
            },
            Principal::IamUser { name } => PrincipalText::IamUser { name: person(name) },
            Principal::FederatedUser { name } => {
                PrincipalText::FederatedUser { name: person(name) }
            }
            Principal::Root => PrincipalText::Root,
            Principal::AwsService { service } => PrincipalText::AwsService {
                service: redact(service),
            },
            Principal::Other { kind } => PrincipalText::Other {
                identity_type: kind.clone(),
            },
        }
    }
}

impl WhoChanged {
    /// What the report says under the resource (`templates/drift_report.md.j2` words it).
    pub fn text(&self, redact: &mut dyn FnMut(&str) -> String) -> WhoChangedText {
        match self {
            WhoChanged::Found(e) => WhoChangedText::Found {
                principal: e.principal.text(redact),
                event_name: redact(&e.event_name),
                time: e.time.clone(),
            },
            WhoChanged::NotFound => WhoChangedText::NotFound,
            WhoChanged::Unavailable => WhoChangedText::Unavailable,
            WhoChanged::NotLookedUp => WhoChangedText::NotLookedUp {
                limit: MAX_RESOURCES_PER_ROOT,
            },
        }
    }
}

#[cfg(test)]
#[path = "who_changed_tests.rs"]
mod tests;
