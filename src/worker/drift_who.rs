//! "Who changed it" for a drift check: each resource changed outside Terraform is looked up in
//! CloudTrail (`LookupEvents` by resource name, since the root's last apply) under the
//! CloudTrail read role of the project's account, at the shared LookupEvents rate. What is
//! taken as the change and what of its principal is shown is decided in
//! [`crate::drift::who_changed`]; this module only asks.

use std::time::Duration;

use crate::aws::{lookup_events, lookup_events_limiter, throttle_backoff, LookupError};
use crate::drift::scheduled_report::ResourceFinding;
use crate::drift::who_changed::{
    latest_outside_change, lookup_window, OwnSessions, WhoChanged, MAX_RESOURCES_PER_ROOT,
};
use crate::enrich::{LookupAttribute, LookupEventRecord, LookupQuery, UnixSeconds, MAX_RESULTS};
use crate::policy::{RepoPolicy, ResolvedProject};
use crate::state::AppState;
use crate::worker::cloudtrail_poll::{account_of, read_role_client};

/// LookupEvents pages read per resource name (50 events each).
const MAX_PAGES: usize = 4;
/// Throttled answers waited out per resource name before giving it up.
const MAX_THROTTLED: u32 = 3;

/// The inputs of one root's look-ups.
pub struct WhoLookup<'a> {
    pub policy: &'a RepoPolicy,
    pub project: &'a ResolvedProject,
    /// The drift check's run (its read session is `tfgate-<run>-read`).
    pub run_id: i64,
    /// When the root's last apply started, if tfgate ever applied it.
    pub last_apply: Option<UnixSeconds>,
}

/// Fills `who` of each finding (redacted by `redact`). Does nothing when the policy gives no
/// CloudTrail read role for the account of the project's roles.
pub async fn fill(
    state: &AppState,
    lookup: &WhoLookup<'_>,
    findings: &mut [ResourceFinding],
    redact: &mut (dyn FnMut(&str) -> String + Send),
) {
    if findings.is_empty() {
        return;
    }
    let p = lookup.project;
    let role = p.apply_role.as_deref().unwrap_or(&p.plan_role);
    let (Some(ct), Some(account)) = (&lookup.policy.cloudtrail, account_of(role)) else {
        return;
    };
    let Some(read_role) = ct.read_roles.get(&account) else {
        return;
    };
    let show_principals = lookup
        .policy
        .drift_detection
        .as_ref()
        .is_some_and(|d| d.show_principals);
    let own = OwnSessions {
        role_arns: [Some(p.plan_role.clone()), p.apply_role.clone()]
            .into_iter()
            .flatten()
            .collect(),
    };
    let session = format!("tfgate-{}-read", lookup.run_id);
    let answers = match read_role_client(state, read_role, &session).await {
        Ok((_, client)) => {
            let limiter = lookup_events_limiter(&account, &state.config.aws_region);
            let now = UnixSeconds(chrono::Utc::now().timestamp());
            let (start, end) = lookup_window(lookup.last_apply, now);
            let mut answers = Vec::new();
            for f in findings.iter().take(MAX_RESOURCES_PER_ROOT) {
                let mut who = WhoChanged::NotFound;
                for name in &f.lookup_names {
                    let query = LookupQuery {
                        attribute: LookupAttribute::ResourceName,
                        value: name.clone(),
                        start_time: start,
                        end_time: end,
                        max_results: MAX_RESULTS,
                    };
                    match events_of(&client, &limiter, &query).await {
                        Ok(events) => {
                            if let Some(change) =
                                latest_outside_change(&events, &own, show_principals)
                            {
                                who = WhoChanged::Found(change);
                                break;
                            }
                        }
                        Err(e) => {
                            tracing::warn!(project = %p.spec.id.0, error = %e, "drift: CloudTrail lookup failed");
                            who = WhoChanged::Unavailable;
                            break;
                        }
                    }
                }
                answers.push(who);
            }
            answers
        }
        Err(e) => {
            tracing::warn!(project = %p.spec.id.0, error = %format!("{e:#}"), "drift: no CloudTrail read role session");
            vec![WhoChanged::Unavailable; findings.len().min(MAX_RESOURCES_PER_ROOT)]
        }
    };
    for (i, f) in findings.iter_mut().enumerate() {
        let who = answers.get(i).unwrap_or(&WhoChanged::NotLookedUp);
        f.who = Some(who.line(redact));
    }
}

/// Every event of `query`, up to [`MAX_PAGES`] pages, waiting out throttling a few times.
async fn events_of(
    client: &aws_sdk_cloudtrail::Client,
    limiter: &crate::aws::RateLimiter,
    query: &LookupQuery,
) -> Result<Vec<LookupEventRecord>, LookupError> {
    let mut events = Vec::new();
    let (mut token, mut pages, mut throttled) = (None, 0, 0);
    while pages < MAX_PAGES {
        limiter.acquire().await;
        match lookup_events(client, query, token.clone()).await {
            Ok((page, next)) => {
                pages += 1;
                events.extend(page);
                match next {
                    Some(next) => token = Some(next),
                    None => break,
                }
            }
            Err(LookupError::Throttled) if throttled < MAX_THROTTLED => {
                throttled += 1;
                tokio::time::sleep(throttle_backoff(throttled).min(Duration::from_secs(4))).await;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(events)
}
