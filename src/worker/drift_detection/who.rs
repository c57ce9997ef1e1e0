//! "Who changed it" for a drift check: each resource changed outside Terraform is looked up in
//! CloudTrail (`LookupEvents` by resource name, since the root's last apply) under the
//! CloudTrail read role of the project's account, at the shared LookupEvents rate. What is
//! taken as the change and what of its principal is shown is decided in
//! [`crate::drift_detection::who_changed`]; this module only asks.

use std::time::Duration;

use crate::aws::{lookup_events_limiter, read_all_pages, PageLimits, PollEnd};
use crate::drift_detection::report::ResourceFinding;
use crate::drift_detection::who_changed::{
    latest_outside_change, lookup_window, OwnSessions, WhoChanged, MAX_RESOURCES_PER_ROOT,
};
use crate::enrich::{LookupAttribute, LookupQuery, UnixSeconds, MAX_RESULTS};
use crate::policy::{RepoPolicy, ResolvedProject};
use crate::state::AppState;
use crate::worker::cloudtrail_poll::{account_of, read_role_client};

/// Per resource name: 4 LookupEvents pages (50 events each), 3 throttled answers waited out
/// (1, 2, 4 s) before giving the name up.
const LIMITS: PageLimits = PageLimits {
    pages: 4,
    throttled: 3,
};

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
            let asker = Asker {
                client,
                limiter: lookup_events_limiter(&account, &state.config.aws_region),
                window: lookup_window(
                    lookup.last_apply,
                    UnixSeconds(chrono::Utc::now().timestamp()),
                ),
                own,
                show_principals,
            };
            let mut answers = Vec::new();
            for f in findings.iter().take(MAX_RESOURCES_PER_ROOT) {
                answers.push(asker.who_changed(&f.lookup_names, &p.spec.id.0).await);
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
        f.who = Some(who.text(redact));
    }
}

/// One root's CloudTrail session and what decides the answers.
struct Asker {
    client: aws_sdk_cloudtrail::Client,
    limiter: std::sync::Arc<crate::aws::RateLimiter>,
    window: (UnixSeconds, UnixSeconds),
    own: OwnSessions,
    show_principals: bool,
}

impl Asker {
    /// Looks a resource up by each of its names in turn, until one finds the change.
    async fn who_changed(&self, names: &[String], project: &str) -> WhoChanged {
        for name in names {
            let query = LookupQuery {
                attribute: LookupAttribute::ResourceName,
                value: name.clone(),
                start_time: self.window.0,
                end_time: self.window.1,
                max_results: MAX_RESULTS,
            };
            let sleep = |d: Duration| tokio::time::sleep(d);
            let events =
                match read_all_pages(&self.client, &self.limiter, &query, LIMITS, &sleep).await {
                    PollEnd::Complete(events) => events,
                    PollEnd::Throttled => {
                        tracing::warn!(%project, "drift: CloudTrail kept throttling the lookup");
                        return WhoChanged::Unavailable;
                    }
                    PollEnd::Failed(e) => {
                        tracing::warn!(%project, error = %e, "drift: CloudTrail lookup failed");
                        return WhoChanged::Unavailable;
                    }
                };
            if let Some(change) = latest_outside_change(&events, &self.own, self.show_principals) {
                return WhoChanged::Found(change);
            }
        }
        WhoChanged::NotFound
    }
}
