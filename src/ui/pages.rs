//! The overview, the run list and the run page (with the redacted log for admins and the
//! audited "show raw").

use std::collections::BTreeSet;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, Uri};
use axum::response::Response;
use axum::Form;
use serde::Deserialize;
use serde_json::json;

use super::rows::{self, run_view, DAY_MS};
use super::{charts, frame_of, internal, not_found, render, session_or_answer, Frame};
use crate::crypto::{open, run_aad, BlobPurpose};
use crate::db::runs::{RunFilter, RunListRow};
use crate::db::{locks, now_ms, publications, runs as run_rows};
use crate::redact::{Placeholders, RedactionConfig, Redactor};
use crate::run_planner::outbox::RunResult;
use crate::state::AppState;

fn repos_of<'a>(names: impl Iterator<Item = &'a str>) -> BTreeSet<String> {
    names.map(str::to_string).collect()
}

/// The stored result (the rendered models) of a run job, if it was recorded.
async fn result_of_job(state: &AppState, job_id: Option<i64>) -> anyhow::Result<Option<RunResult>> {
    let Some(job_id) = job_id else {
        return Ok(None);
    };
    match publications::row_of_job(&state.db, job_id).await? {
        Some(row) => Ok(Some(RunResult::open_sealed(&state.seal_key, &row.result)?)),
        None => Ok(None),
    }
}

type OverviewData = (
    Vec<RunListRow>,
    Vec<crate::db::locks::LockRow>,
    Vec<(String, i64, String)>,
    Vec<(String, i64, String)>,
    i64,
);

async fn overview_data(state: &AppState, now: i64) -> anyhow::Result<OverviewData> {
    let filter = RunFilter {
        limit: 200,
        ..RunFilter::default()
    };
    let recent = run_rows::list(&state.db, &filter).await?;
    let locks = locks::list(&state.db).await?;
    let month = run_rows::run_statuses_since(&state.db, now - 30 * DAY_MS).await?;
    let applies = publications::apply_results_since(&state.db, now - 30 * DAY_MS).await?;
    let depth = crate::db::jobs::queue_depth(&state.db).await?;
    Ok((recent, locks, month, applies, depth))
}

/// Apply results the frame may see, opened: `(created ms, comment)`.
fn apply_comments(
    state: &AppState,
    frame: &Frame,
    applies: &[(String, i64, String)],
) -> Vec<(i64, crate::model::view::ApplyComment)> {
    applies
        .iter()
        .filter(|(repo, _, _)| frame.sees(Some(repo)))
        .filter_map(
            |(_, at, sealed)| match RunResult::open_sealed(&state.seal_key, sealed) {
                Ok(RunResult::Apply { comment, .. }) => Some((*at, comment)),
                _ => None,
            },
        )
        .collect()
}

pub async fn overview(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    let session = or_answer!(session_or_answer(&state, &headers, &uri, true).await);
    let now = now_ms();
    let (recent, locks, month, applies, depth) = match overview_data(&state, now).await {
        Ok(all) => all,
        Err(e) => return internal(&e),
    };
    let repos = repos_of(
        recent
            .iter()
            .map(|r| r.repo.as_str())
            .chain(locks.iter().map(|l| l.repo.as_str()))
            .chain(month.iter().map(|m| m.0.as_str()))
            .chain(applies.iter().map(|a| a.0.as_str())),
    );
    let frame = frame_of(&state, session, &repos).await;
    let visible: Vec<&RunListRow> = recent
        .iter()
        .filter(|r| frame.sees(Some(&r.repo)))
        .collect();
    let running: Vec<_> = visible
        .iter()
        .filter(|r| r.status == "running")
        .map(|r| run_view(r, now))
        .collect();
    let recent: Vec<_> = visible.iter().take(20).map(|r| run_view(r, now)).collect();
    let locks: Vec<_> = locks
        .iter()
        .filter(|l| frame.sees(Some(&l.repo)))
        .map(|l| rows::lock_view(l, frame.acts_on(&l.repo)))
        .collect();
    let month: Vec<(i64, String)> = month
        .into_iter()
        .filter(|(repo, _, _)| frame.sees(Some(repo)))
        .map(|(_, at, status)| (at, status))
        .collect();
    let opened = apply_comments(&state, &frame, &applies);
    let by_category = rows::failures_by_category(opened.iter().map(|(_, c)| c));
    let week_by_category = rows::failures_by_category(
        opened
            .iter()
            .filter(|(at, _)| *at >= now - 7 * DAY_MS)
            .map(|(_, c)| c),
    );
    let ctx = json!({
        "queue_depth": depth,
        "running": running,
        "recent": recent,
        "locks": locks,
        "failures_7d": week_by_category.values().sum::<u32>(),
        "failures_7d_by_category": week_by_category,
        "runs_chart": charts::runs_per_day(&rows::runs_per_day(&month, now, 30)),
        "failures_chart": charts::failures_by_category(&by_category),
    });
    render("overview.html", &frame, ctx)
}

#[derive(Deserialize, Default)]
pub struct RunsQuery {
    #[serde(default)]
    repo: String,
    #[serde(default)]
    pr: String,
}

pub async fn runs(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    uri: Uri,
    Query(q): Query<RunsQuery>,
) -> Response {
    let session = or_answer!(session_or_answer(&state, &headers, &uri, true).await);
    let filter = RunFilter {
        repo: Some(q.repo.trim().to_string()).filter(|r| !r.is_empty()),
        pr: q.pr.trim().parse().ok(),
        limit: 200,
    };
    let list = match run_rows::list(&state.db, &filter).await {
        Ok(list) => list,
        Err(e) => return internal(&e),
    };
    let repos = repos_of(list.iter().map(|r| r.repo.as_str()));
    let frame = frame_of(&state, session, &repos).await;
    let now = now_ms();
    let shown: Vec<_> = list
        .iter()
        .filter(|r| frame.sees(Some(&r.repo)))
        .map(|r| run_view(r, now))
        .collect();
    render(
        "runs.html",
        &frame,
        json!({"runs": shown, "filter": {"repo": q.repo, "pr": q.pr}}),
    )
}

pub async fn run(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    uri: Uri,
    Path(id): Path<i64>,
) -> Response {
    run_page(&state, &headers, &uri, id, None).await
}

/// The run page with the raw log: admins only, CSRF-checked, audited.
pub async fn raw_log(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    uri: Uri,
    Path(id): Path<i64>,
    Form(form): Form<super::CsrfForm>,
) -> Response {
    run_page(&state, &headers, &uri, id, Some(form.csrf)).await
}

async fn run_page(
    state: &AppState,
    headers: &HeaderMap,
    uri: &Uri,
    id: i64,
    raw: Option<String>,
) -> Response {
    let session = or_answer!(session_or_answer(state, headers, uri, raw.is_none()).await);
    let found = match run_rows::show(&state.db, id).await {
        Ok(found) => found,
        Err(e) => return internal(&e),
    };
    let repos = repos_of(found.iter().map(|(r, _)| r.repo.as_str()));
    let frame = frame_of(state, session, &repos).await;
    let Some((run, _record)) = found.filter(|(r, _)| frame.sees(Some(&r.repo))) else {
        return not_found("There is no such run, or you cannot read its repository on GitHub.");
    };
    let can_act = frame.acts_on(&run.repo);
    if let Some(sent) = &raw {
        or_answer!(frame.check_csrf(sent));
        if !can_act {
            return super::forbidden(
                "Only an admin of this repository's policy may read raw logs.",
            );
        }
    }
    match run_context(state, &frame, &run, raw.is_some(), can_act).await {
        Ok(ctx) => render("run.html", &frame, ctx),
        Err(e) => internal(&e),
    }
}

async fn run_context(
    state: &AppState,
    frame: &Frame,
    run: &RunListRow,
    raw: bool,
    can_act: bool,
) -> anyhow::Result<serde_json::Value> {
    let result = result_of_job(state, run.job_id).await?;
    let matches =
        |project: &str, workspace: &str| project == run.project && workspace == run.workspace;
    let (kind, root, drift) = match &result {
        Some(RunResult::Apply { comment, .. }) => {
            let root = comment
                .roots
                .iter()
                .find(|r| matches(&r.project, &r.workspace));
            ("apply", serde_json::to_value(root)?, json!([]))
        }
        Some(RunResult::Plan { comment, .. }) => {
            let root = comment
                .repo_root_summaries
                .iter()
                .find(|r| matches(&r.project, &r.workspace));
            (
                "plan",
                serde_json::to_value(root)?,
                serde_json::to_value(&comment.drift_warnings)?,
            )
        }
        None => ("none", serde_json::Value::Null, json!([])),
    };
    let comment_url = match run.job_id {
        Some(job) => publications::comment_of_job(&state.db, job)
            .await?
            .map(|c| {
                format!(
                    "{}/{}/pull/{}#issuecomment-{c}",
                    frame.github_url, run.repo, run.pr
                )
            }),
        None => None,
    };
    let (log, has_log) = if can_act {
        let text = raw_text(state, run.id).await?;
        let has = text.is_some();
        let shown = match (text, raw) {
            (Some(t), true) => {
                super::record_audit(
                    state,
                    frame,
                    Some(&run.repo),
                    Some(run.pr),
                    "ui.raw_log",
                    "shown",
                    format!("run {}", run.id),
                )
                .await
                .map_err(|_| anyhow::anyhow!("recording the raw-log view"))?;
                Some(t)
            }
            (Some(t), false) => Some(redacted(frame, &run.repo, &t)?),
            (None, _) => None,
        };
        (shown, has)
    } else {
        (None, false)
    };
    Ok(json!({
        "run": run_view(run, now_ms()),
        "kind": kind,
        "root": root,
        "drift_warnings": drift,
        "comment_url": comment_url,
        "can_act": can_act,
        "log": log,
        "has_log": has_log && !raw,
    }))
}

async fn raw_text(state: &AppState, run_id: i64) -> anyhow::Result<Option<String>> {
    let Some(sealed) = run_rows::raw_log(&state.db, run_id).await? else {
        return Ok(None);
    };
    let plain = open(
        &state.seal_key,
        &sealed,
        &run_aad(run_id, BlobPurpose::RawLog),
    )
    .map_err(|e| anyhow::anyhow!("opening a raw log: {e}"))?;
    Ok(Some(String::from_utf8_lossy(&plain).into_owned()))
}

/// The log through the built-in rules, the policy's patterns and its shared-input values.
fn redacted(frame: &Frame, repo: &str, text: &str) -> anyhow::Result<String> {
    let policy = frame.policies.for_repo(repo);
    let redactor = Redactor::new(&RedactionConfig {
        extra_patterns: policy
            .map(|p| p.redact_patterns.clone())
            .unwrap_or_default(),
        // Shared-input values, as in every comment.
        secret_values: policy
            .map(crate::worker::input_drift::values::all_values)
            .unwrap_or_default(),
    })
    .map_err(|e| anyhow::anyhow!("redaction rules: {e}"))?;
    Ok(redactor.redact(&rows::readable_log(text), &mut Placeholders::new()))
}
