//! `POST /webhooks`: verify, route, store delivery + jobs in one transaction, answer 202.
//! No GitHub, AWS or Terraform work happens here.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;

use crate::db::deliveries::{DeliveryOutcome, NewDelivery};
use crate::jobs::NewJob;
use crate::state::AppState;
use crate::webhook::{event, signature};

#[derive(Serialize)]
struct Reply<'a> {
    outcome: &'a str,
    detail: &'a str,
}

fn reply(status: StatusCode, outcome: &str, detail: &str) -> Response {
    (status, Json(Reply { outcome, detail })).into_response()
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

fn valid_delivery_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 100
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

pub async fn receive(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let event_name = header(&headers, "x-github-event").unwrap_or("");
    let (signed, (status, outcome, detail)) = match check(&state, &headers, event_name, &body) {
        Err(rejected) => (false, rejected),
        Ok(delivery_id) => {
            let answer = store(&state, event_name, delivery_id, &body).await;
            (true, answer.unwrap_or_else(|rejected| rejected))
        }
    };
    state
        .metrics
        .delivery(event::metric_label(event_name, signed), outcome);
    reply(status, outcome, &detail)
}

type Answer = (StatusCode, &'static str, String);

fn bad(status: StatusCode, outcome: &'static str, detail: &str) -> Answer {
    (status, outcome, detail.to_string())
}

/// Headers and signature; returns the delivery id of a request signed with a configured secret.
fn check<'h>(
    state: &AppState,
    headers: &'h HeaderMap,
    event_name: &str,
    body: &[u8],
) -> Result<&'h str, Answer> {
    if event_name.is_empty() {
        return Err(bad(
            StatusCode::BAD_REQUEST,
            "missing_header",
            "missing X-GitHub-Event header",
        ));
    }
    let delivery_id = header(headers, "x-github-delivery").unwrap_or("");
    if delivery_id.is_empty() {
        return Err(bad(
            StatusCode::BAD_REQUEST,
            "missing_header",
            "missing X-GitHub-Delivery header",
        ));
    }
    if !valid_delivery_id(delivery_id) {
        return Err(bad(
            StatusCode::BAD_REQUEST,
            "bad_header",
            "invalid X-GitHub-Delivery header",
        ));
    }
    let content_type = header(headers, "content-type").unwrap_or("");
    if !content_type
        .split(';')
        .next()
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
    {
        return Err(bad(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "bad_content_type",
            "content type must be application/json (set it in the App's webhook settings)",
        ));
    }
    let secrets = state.webhook_secrets();
    if let Err(e) = signature::verify(&secrets, header(headers, "x-hub-signature-256"), body) {
        let status = if e == signature::SignatureError::NoSecret {
            StatusCode::SERVICE_UNAVAILABLE
        } else {
            StatusCode::UNAUTHORIZED
        };
        return Err(bad(status, "bad_signature", &e.to_string()));
    }
    Ok(delivery_id)
}

/// Route a signed delivery and store it with its jobs (one transaction).
async fn store(
    state: &AppState,
    event_name: &str,
    delivery_id: &str,
    body: &[u8],
) -> Result<Answer, Answer> {
    let routed = event::route(event_name, body).map_err(|e| match e {
        event::IntakeError::BadEventName => {
            bad(StatusCode::BAD_REQUEST, "bad_header", &e.to_string())
        }
        // serde's message names the position and the field, never the payload content.
        other => bad(StatusCode::BAD_REQUEST, "malformed", &other.to_string()),
    })?;
    let mut routed = routed;
    let policy_repo = state.config.policy_repo.as_ref();
    if !keep_pushes(&mut routed.jobs, routed.repo.as_deref(), policy_repo) {
        routed.ignored = Some("push to a repository other than TFGATE_POLICY_REPO");
    }
    if routed.jobs.is_empty() {
        let why = routed.ignored.unwrap_or("nothing to do");
        let status = if event_name == "ping" {
            StatusCode::OK
        } else {
            StatusCode::ACCEPTED
        };
        return Ok((status, "ignored", why.to_string()));
    }
    let max_attempts = state.config.job_max_attempts;
    let jobs = routed
        .jobs
        .into_iter()
        .map(|job| NewJob {
            kind: job.kind,
            payload: job.payload,
            repo: routed.repo.clone(),
            pr: job.pr,
            max_attempts,
        })
        .collect();
    let delivery = NewDelivery {
        id: delivery_id.to_string(),
        event: event_name.to_string(),
        action: routed.action,
        repo: routed.repo,
        installation_id: routed.installation_id,
        jobs,
    };
    match state.intake.submit(delivery).await {
        Ok(DeliveryOutcome::Enqueued(ids)) => {
            Ok((StatusCode::ACCEPTED, "enqueued", format!("{ids} job(s)")))
        }
        Ok(DeliveryOutcome::Duplicate) => Ok((
            StatusCode::OK,
            "duplicate",
            "delivery already received".into(),
        )),
        Err(e) => {
            tracing::error!(error = %format!("{e:#}"), delivery = delivery_id, "could not store delivery");
            Err(bad(
                StatusCode::SERVICE_UNAVAILABLE,
                "store_failed",
                "could not store the delivery; GitHub may redeliver it",
            ))
        }
    }
}

/// Push jobs are kept only for the policy repository (`OWNER/NAME`, case-insensitive): false
/// when one was dropped.
fn keep_pushes(
    jobs: &mut Vec<event::RoutedJob>,
    repo: Option<&str>,
    policy_repo: Option<&(String, String)>,
) -> bool {
    let is_policy_repo = match (repo, policy_repo) {
        (Some(repo), Some((owner, name))) => repo.eq_ignore_ascii_case(&format!("{owner}/{name}")),
        _ => false,
    };
    let before = jobs.len();
    jobs.retain(|j| j.kind != crate::jobs::JobKind::Push || is_policy_repo);
    jobs.len() == before
}

#[cfg(test)]
mod push_filter_tests {
    use super::*;
    use crate::jobs::JobKind;

    fn job(kind: JobKind) -> event::RoutedJob {
        event::RoutedJob {
            kind,
            pr: None,
            payload: String::new(),
        }
    }

    #[test]
    fn pushes_are_kept_only_for_the_policy_repository() {
        let admin = ("Acme".to_string(), "tfgate-admin".to_string());
        // (repo, policy repo, job kind, kept)
        let table = [
            (Some("acme/TFGATE-admin"), Some(&admin), JobKind::Push, true),
            (Some("acme/other"), Some(&admin), JobKind::Push, false),
            (Some("acme/tfgate-admin"), None, JobKind::Push, false),
            (None, Some(&admin), JobKind::Push, false),
            (Some("acme/other"), Some(&admin), JobKind::PullRequest, true),
        ];
        for (repo, policy_repo, kind, kept) in table {
            let mut jobs = vec![job(kind)];
            assert_eq!(keep_pushes(&mut jobs, repo, policy_repo), kept, "{repo:?}");
            assert_eq!(jobs.len(), usize::from(kept), "{repo:?}");
        }
    }
}
