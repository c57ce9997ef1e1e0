//! `enrich` jobs: name the denied action of a permission failure the error text left unclear,
//! at apply time or at plan time. Each job is one poll: decode the authorization message if
//! there is one, else look the denied call up in CloudTrail under the read role of the
//! account of the role that was denied; the result comment (apply or plan) is
//! updated when every pending failure is confirmed, or when the schedule runs out (with a
//! note). CloudTrail delivers in about 5 minutes, not guaranteed, so polls are spaced out.

use std::sync::Arc;
use std::time::Duration;

use anyhow::anyhow;

use super::{github_error, sealed_payload};
use crate::aws::{
    assume_role, cloudtrail_client, config_with_credentials, decode_authorization_message,
    lookup_events, lookup_events_limiter, AssumeRoleRequest, LookupError,
};
use crate::crypto::seal_job_payload;
use crate::db::jobs as queue;
use crate::enrich::{
    enrichment_view, lookup_plan, match_events, parse_decoded_authorization_message, DeniedCall,
    EnrichmentState,
};
use crate::github::api;
use crate::jobs::{ClaimedJob, JobError, JobKind, NewJob};
use crate::jobs::{EnrichJob, EnrichedComment, PendingFailure};
use crate::model::view::RunNote;
use crate::redact::{RedactionConfig, Redactor};
use crate::state::AppState;

/// The `Username` of a run's session in CloudTrail.
pub fn session_name(run_id: i64) -> String {
    format!("tfgate-{run_id}")
}

/// The 12-digit account of a role ARN.
pub fn account_of(role_arn: &str) -> Option<String> {
    let account = role_arn.split(':').nth(4)?;
    (account.len() == 12 && account.bytes().all(|b| b.is_ascii_digit()))
        .then(|| account.to_string())
}

/// The AWS config of the CloudTrail read role `read_role` (session `session_name`), and a
/// CloudTrail client on it (at `--cloudtrail-endpoint-url` when the server names one).
pub async fn read_role_client(
    state: &AppState,
    read_role: &str,
    session_name: &str,
) -> anyhow::Result<(aws_config::SdkConfig, aws_sdk_cloudtrail::Client)> {
    let base = state.aws_base().await;
    let creds = assume_role(
        base,
        &AssumeRoleRequest {
            role_arn: read_role,
            session_name,
            source_identity: "tfgate",
            tags: &[],
            duration_secs: 900,
            session_policy: None,
        },
    )
    .await
    .map_err(|e| anyhow!("assuming the CloudTrail read role: {e}"))?;
    let config = config_with_credentials(base, &creds);
    let client = match &state.config.cloudtrail_endpoint_url {
        Some(url) => aws_sdk_cloudtrail::Client::from_conf(
            aws_sdk_cloudtrail::config::Builder::from(&config)
                .endpoint_url(url)
                .build(),
        ),
        None => cloudtrail_client(&config),
    };
    Ok((config, client))
}

async fn find(state: &AppState, p: &PendingFailure) -> anyhow::Result<Option<DeniedCall>> {
    let session = format!("{}-read", p.session_name);
    let (config, client) = read_role_client(state, &p.read_role, &session).await?;
    if let Some(encoded) = &p.failure.encoded_message {
        if let Ok(decoded) = decode_authorization_message(&config, encoded).await {
            if let Some(call) = parse_decoded_authorization_message(&decoded) {
                return Ok(Some(call));
            }
        }
    }
    let query =
        lookup_plan(&p.failure, Some(&p.session_name), None).map_err(|e| anyhow!("{e:?}"))?;
    let limiter = lookup_events_limiter(&p.account_id, &state.config.aws_region);
    let mut token = None;
    let (mut pages, mut throttled) = (0, 0);
    while pages < MAX_PAGES_PER_POLL {
        limiter.acquire().await;
        match lookup_events(&client, &query, token.clone()).await {
            Ok((events, next)) => {
                pages += 1;
                if let Some(call) = match_events(&events, &p.failure, &p.session_name) {
                    return Ok(Some(call));
                }
                match next {
                    Some(n) => token = Some(n),
                    None => return Ok(None),
                }
            }
            // The SDK already retried; wait longer, then leave the rest to the next poll.
            Err(LookupError::Throttled) if throttled < THROTTLE_WAITS.len() => {
                tokio::time::sleep(THROTTLE_WAITS[throttled]).await;
                throttled += 1;
            }
            Err(LookupError::Throttled) => return Ok(None),
            Err(e) => return Err(anyhow!("CloudTrail lookup failed: {e}")),
        }
    }
    Ok(None)
}

/// LookupEvents pages read per poll (50 events each).
const MAX_PAGES_PER_POLL: usize = 20;
/// Waits after a throttled LookupEvents (beyond the SDK's own retries) within one poll.
const THROTTLE_WAITS: [Duration; 2] = [Duration::from_secs(1), Duration::from_secs(3)];

pub async fn handle(state: &Arc<AppState>, job: &ClaimedJob) -> Result<(), JobError> {
    let mut e: EnrichJob = sealed_payload(&state.seal_key, job)?;
    let poll = poll_pending(state, &mut e).await?;
    e.attempt += 1;
    let schedule = &state.config.enrich_schedule;
    let done = poll.still.is_empty() || e.attempt >= schedule.len();
    let pending_in = |project: &str| !done && poll.still.iter().any(|p| p.root == project);
    e.comment.set_pending(&pending_in);
    if done && (!poll.still.is_empty() || poll.gave_up) {
        e.comment.push_note(RunNote::CloudTrailUnconfirmed);
    }
    if done || poll.found_any {
        update_comment(state, &e).await?;
    }
    if !done {
        let delay = schedule[e.attempt.min(schedule.len() - 1)];
        e.pending = poll.still;
        enqueue(state, &e, delay).await?;
    }
    Ok(())
}

/// What one round of CloudTrail look-ups found.
struct Poll {
    /// Failures not found yet.
    still: Vec<PendingFailure>,
    gave_up: bool,
    found_any: bool,
}

/// Look up every pending failure once; confirmed denials go into the comment's model.
async fn poll_pending(state: &AppState, e: &mut EnrichJob) -> Result<Poll, JobError> {
    // Built-in rules only: the shared-input values are not kept in the job.
    let redactor = Redactor::new(&RedactionConfig::default())
        .map_err(|err| JobError::Permanent(anyhow!("redaction rules: {err}")))?;
    let mut poll = Poll {
        still: Vec::new(),
        gave_up: false,
        found_any: false,
    };
    for p in std::mem::take(&mut e.pending) {
        match find(state, &p).await {
            Ok(Some(call)) => {
                poll.found_any = true;
                let shown = if p.shown_address.is_empty() {
                    &p.failure.address
                } else {
                    &p.shown_address
                };
                let found = EnrichmentState::Found(call);
                let view = enrichment_view(&p.failure, shown, None, &found, &redactor);
                e.comment.confirm(&p.root, &view);
            }
            Ok(None) => poll.still.push(p),
            Err(err) => {
                tracing::warn!(error = %format!("{err:#}"), "enrichment gave up on a failure");
                poll.gave_up = true;
            }
        }
    }
    Ok(poll)
}

/// Re-render the apply comment in place.
async fn update_comment(state: &AppState, e: &EnrichJob) -> Result<(), JobError> {
    let (_, gh) = super::installation_client(state, &e.repo)?;
    let body = match &e.comment {
        EnrichedComment::Apply(c) => state.renderer.render_apply(c),
        EnrichedComment::Plan(c) => state.renderer.render_plan(c),
    }
    .map_err(|err| JobError::Permanent(anyhow!("rendering: {err}")))?;
    api::update_comment(&gh, &e.repo, e.comment_id, &body)
        .await
        .map_err(github_error)?;
    Ok(())
}

/// Queue a poll of `job` in `delay` (its payload sealed: it holds raw failure details).
pub async fn enqueue(state: &AppState, job: &EnrichJob, delay: Duration) -> Result<(), JobError> {
    let next = new_job(state, job);
    queue::enqueue_after(&state.db, &next, delay.as_millis() as i64)
        .await
        .map_err(JobError::Transient)?;
    Ok(())
}

/// The `enrich` job of `job`, its payload sealed.
pub fn new_job(state: &AppState, job: &EnrichJob) -> NewJob {
    let payload = serde_json::to_string(job).expect("enrich payload serialises");
    NewJob {
        kind: JobKind::Enrich,
        payload: seal_job_payload(&state.seal_key, JobKind::Enrich.as_str(), &payload),
        repo: Some(job.repo.full_name()),
        pr: Some(job.number),
        max_attempts: 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn account_of_role_arns() {
        assert_eq!(
            account_of("arn:aws:iam::111111111111:role/x").as_deref(),
            Some("111111111111")
        );
        assert_eq!(
            account_of("arn:aws-cn:iam::222222222222:role/a/b").as_deref(),
            Some("222222222222")
        );
        assert_eq!(account_of("not an arn"), None);
    }
}
