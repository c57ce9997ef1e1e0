//! Locks (and releasing one), the queue (cancel, retry), the audit log (and its CSV) and
//! shared inputs.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Form;
use serde::Deserialize;
use serde_json::json;

use super::rows::{self, audit_matches};
use super::{
    forbidden, frame_of, internal, message, not_found, render, secured, session_or_answer,
    signed_in,
};
use crate::cli::operator::{format_time, parse_lock_id, parse_since};
use crate::db::audit::{AuditFilter, AuditRow};
use crate::db::{self, now_ms};
use crate::redact::{Placeholders, RedactionConfig, Redactor};
use crate::state::AppState;

pub async fn locks(State(state): State<Arc<AppState>>, headers: HeaderMap, uri: Uri) -> Response {
    let session = or_answer!(session_or_answer(&state, &headers, &uri, true).await);
    let all = match db::locks::list(&state.db).await {
        Ok(all) => all,
        Err(e) => return internal(&e),
    };
    let repos = all.iter().map(|l| l.repo.clone()).collect();
    let frame = frame_of(&state, session, &repos).await;
    let shown: Vec<_> = all
        .iter()
        .filter(|l| frame.sees(Some(&l.repo)))
        .map(|l| rows::lock_view(l, frame.acts_on(&l.repo)))
        .collect();
    render("locks.html", &frame, json!({ "locks": shown }))
}

#[derive(Deserialize)]
pub struct ReleaseForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    id: String,
}

pub async fn release_lock(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    uri: Uri,
    Form(form): Form<ReleaseForm>,
) -> Response {
    let Ok((repo, project, workspace)) = parse_lock_id(&form.id) else {
        return message(
            StatusCode::BAD_REQUEST,
            "Not a lock",
            "That is not a lock id.",
        );
    };
    let frame = match signed_in(
        &state,
        &headers,
        &uri,
        false,
        &BTreeSet::from([repo.clone()]),
    )
    .await
    {
        Ok(f) => f,
        Err(answer) => return answer,
    };
    or_answer!(frame.check_csrf(&form.csrf));
    if !frame.acts_on(&repo) {
        return forbidden("Only an admin of this repository's policy may release its locks.");
    }
    let released = match db::locks::release_lock(&state.db, &repo, &project, &workspace).await {
        Ok(r) => r,
        Err(e) => return internal(&e),
    };
    let Some((pr, released)) = released else {
        return not_found("That lock is not held any more.");
    };
    let detail = format!("{project} ({workspace}) via the web UI");
    if let Err(answer) = super::record_audit(
        &state,
        &frame,
        Some(&repo),
        Some(pr),
        "lock.release",
        "released",
        detail,
    )
    .await
    {
        return answer;
    }
    let text = if released.kept_until_run_ends > 0 {
        format!(
            "{} is released when the run on it ends (it was held by PR #{pr}).",
            form.id
        )
    } else {
        format!("{} is released (it was held by PR #{pr}).", form.id)
    };
    let all = db::locks::list(&state.db).await.unwrap_or_default();
    let shown: Vec<_> = all
        .iter()
        .filter(|l| frame.sees(Some(&l.repo)))
        .map(|l| rows::lock_view(l, frame.acts_on(&l.repo)))
        .collect();
    render(
        "locks.html",
        &frame,
        json!({ "locks": shown, "notice": text }),
    )
}

fn redactor() -> Option<Redactor> {
    Redactor::new(&RedactionConfig::default()).ok()
}

pub async fn queue(State(state): State<Arc<AppState>>, headers: HeaderMap, uri: Uri) -> Response {
    queue_page(&state, &headers, &uri, None).await
}

async fn queue_page(
    state: &AppState,
    headers: &HeaderMap,
    uri: &Uri,
    notice: Option<String>,
) -> Response {
    let session = or_answer!(session_or_answer(state, headers, uri, notice.is_none()).await);
    let jobs = match crate::db::jobs::recent(&state.db, 300).await {
        Ok(jobs) => jobs,
        Err(e) => return internal(&e),
    };
    let wanted = ["queued", "running", "failed", "interrupted"];
    let jobs: Vec<_> = jobs
        .into_iter()
        .filter(|j| wanted.contains(&j.status.as_str()))
        .collect();
    let repos = jobs.iter().filter_map(|j| j.repo.clone()).collect();
    let frame = frame_of(state, session, &repos).await;
    let Some(redactor) = redactor() else {
        return internal(&anyhow::anyhow!(
            "the built-in redaction rules did not load"
        ));
    };
    let mut ph = Placeholders::new();
    let shown: Vec<_> = jobs
        .iter()
        .filter(|j| frame.sees(j.repo.as_deref()))
        .map(|j| {
            let admin = j
                .repo
                .as_deref()
                .map_or(frame.viewer.is_admin(), |r| frame.acts_on(r));
            json!({
                "id": j.id, "kind": j.kind, "repo": j.repo, "pr": j.pr, "status": j.status,
                "attempts": j.attempts,
                // Internal errors can quote provider or GitHub text: redacted like a comment.
                "last_error": j.last_error.as_deref().map(|e| redactor.redact(e, &mut ph)),
                "can_cancel": admin && j.status == "queued",
                "can_retry": admin && j.status == "failed" && j.kind != "run",
            })
        })
        .collect();
    render(
        "queue.html",
        &frame,
        json!({ "jobs": shown, "notice": notice }),
    )
}

pub async fn queue_action(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    uri: Uri,
    Path((id, action)): Path<(i64, String)>,
    Form(form): Form<super::CsrfForm>,
) -> Response {
    let session = or_answer!(session_or_answer(&state, &headers, &uri, false).await);
    let job = match crate::db::jobs::job_repo_and_kind(&state.db, id).await {
        Ok(Some(job)) => job,
        Ok(None) => return not_found("There is no such job."),
        Err(e) => return internal(&e),
    };
    let repos = job.0.iter().cloned().collect();
    let frame = frame_of(&state, session, &repos).await;
    or_answer!(frame.check_csrf(&form.csrf));
    let admin = job
        .0
        .as_deref()
        .map_or(frame.viewer.is_admin(), |r| frame.acts_on(r));
    if !admin {
        return forbidden("Only an admin of this repository's policy may change its jobs.");
    }
    let done = match action.as_str() {
        "cancel" => crate::db::jobs::cancel_queued_job(&state.db, id).await,
        "retry" => crate::db::jobs::retry_failed_job(&state.db, id).await,
        _ => return not_found("There is no such action."),
    };
    let done = match done {
        Ok(done) => done,
        Err(e) => return internal(&e),
    };
    let result = if done { action.as_str() } else { "refused" };
    let detail = format!("job {id} ({}) via the web UI", job.1);
    if let Err(answer) = super::record_audit(
        &state,
        &frame,
        job.0.as_deref(),
        None,
        &format!("job.{action}"),
        result,
        detail,
    )
    .await
    {
        return answer;
    }
    if done {
        state.wake.notify_one();
    }
    let notice = if done {
        format!("Job {id}: {action} done.")
    } else if action == "retry" {
        format!("Job {id} was not retried: only failed jobs that are not Terraform runs are (run the command on the PR again).")
    } else {
        format!("Job {id} was not cancelled: it is no longer queued.")
    };
    queue_page(&state, &headers, &uri, Some(notice)).await
}

#[derive(Deserialize, Default)]
pub struct AuditQuery {
    #[serde(default)]
    repo: String,
    #[serde(default)]
    user: String,
    #[serde(default)]
    command: String,
    #[serde(default)]
    decision: String,
    #[serde(default)]
    since: String,
}

async fn audit_rows(state: &AppState, q: &AuditQuery) -> anyhow::Result<Vec<AuditRow>> {
    let since_ms = match q.since.trim() {
        "" => None,
        s => Some(parse_since(s, now_ms()).map_err(anyhow::Error::msg)?),
    };
    let filter = AuditFilter {
        repo: Some(q.repo.trim().to_string()).filter(|s| !s.is_empty()),
        user: Some(q.user.trim().to_string()).filter(|s| !s.is_empty()),
        since_ms,
        limit: 2000,
    };
    let rows = db::audit::list(&state.db, &filter).await?;
    Ok(rows
        .into_iter()
        .filter(|a| audit_matches(a, q.command.trim(), q.decision.trim()))
        .collect())
}

pub async fn audit_page(
    state: &AppState,
    headers: &HeaderMap,
    uri: &Uri,
    q: AuditQuery,
) -> Response {
    let session = or_answer!(session_or_answer(state, headers, uri, true).await);
    let found = audit_rows(state, &q).await;
    let repos: BTreeSet<String> = found
        .iter()
        .flatten()
        .filter_map(|a| a.repo.clone())
        .collect();
    let frame = frame_of(state, session, &repos).await;
    let (rows, notice) = match found {
        Ok(rows) => (rows, None),
        Err(e) => (vec![], Some(format!("{e}"))),
    };
    let shown: Vec<_> = rows
        .iter()
        .filter(|a| frame.sees(a.repo.as_deref()))
        .take(500)
        .map(rows::audit_view)
        .collect();
    let query = uri.query().unwrap_or("").to_string();
    let filter = json!({"repo": q.repo, "user": q.user, "command": q.command, "decision": q.decision, "since": q.since});
    render(
        "audit.html",
        &frame,
        json!({"rows": shown, "filter": filter, "query": query, "notice": notice}),
    )
}

pub async fn audit(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    uri: Uri,
    Query(q): Query<AuditQuery>,
) -> Response {
    audit_page(&state, &headers, &uri, q).await
}

pub async fn audit_csv(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    uri: Uri,
    Query(q): Query<AuditQuery>,
) -> Response {
    let session = or_answer!(session_or_answer(&state, &headers, &uri, true).await);
    let rows = match audit_rows(&state, &q).await {
        Ok(rows) => rows,
        Err(e) => return message(StatusCode::BAD_REQUEST, "Bad filter", &e.to_string()),
    };
    let repos = rows.iter().filter_map(|a| a.repo.clone()).collect();
    let frame = frame_of(&state, session, &repos).await;
    let shown: Vec<_> = rows
        .into_iter()
        .filter(|a| frame.sees(a.repo.as_deref()))
        .collect();
    secured(
        (
            [
                (header::CONTENT_TYPE, "text/csv; charset=utf-8"),
                (
                    header::CONTENT_DISPOSITION,
                    "attachment; filename=\"tfgate-audit.csv\"",
                ),
            ],
            rows::audit_csv(&shown),
        )
            .into_response(),
    )
}

pub async fn inputs(State(state): State<Arc<AppState>>, headers: HeaderMap, uri: Uri) -> Response {
    let session = or_answer!(session_or_answer(&state, &headers, &uri, true).await);
    let applied = match db::inputs::applied_inputs(&state.db).await {
        Ok(rows) => rows,
        Err(e) => return internal(&e),
    };
    let repos = applied.iter().map(|i| i.repo.clone()).collect();
    let frame = frame_of(&state, session, &repos).await;
    let key = crate::worker::input_drift::values::fingerprint_key(&state);
    let mut live: BTreeMap<(String, String), BTreeMap<String, String>> = BTreeMap::new();
    let mut shown = Vec::new();
    for i in applied.iter().filter(|i| frame.sees(Some(&i.repo))) {
        let now = live
            .entry((i.repo.clone(), i.project.clone()))
            .or_insert_with(|| {
                let Some(policy) = frame.policies.for_repo(&i.repo) else {
                    return BTreeMap::new();
                };
                let Some(project) = policy.project(&i.project) else {
                    return BTreeMap::new();
                };
                crate::worker::input_drift::values::live_inputs(&key, policy, project)
                    .fingerprints
                    .iter()
                    .map(|(name, f)| (name.clone(), f.as_hex().to_string()))
                    .collect()
            });
        let (state_id, text) = match now.get(&i.input) {
            Some(hex) if *hex == i.fingerprint => {
                ("unchanged", "unchanged since the last apply".to_string())
            }
            Some(hex) => (
                "moved",
                format!(
                    "changed since the last apply (now {})",
                    &hex[..12.min(hex.len())]
                ),
            ),
            None => ("unknown", "not set on this server any more".to_string()),
        };
        shown.push(json!({
            "repo": i.repo, "project": i.project, "workspace": i.workspace, "input": i.input,
            "fingerprint": &i.fingerprint[..12.min(i.fingerprint.len())],
            "when": format_time(i.applied_ms), "run_id": i.run_id, "state": state_id, "state_text": text,
        }));
    }
    render("inputs.html", &frame, json!({ "inputs": shown }))
}
