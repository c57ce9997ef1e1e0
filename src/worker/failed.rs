//! A job that failed for good is never silent: the PR that asked for it is told in one line
//! (with the job id an admin looks up), a comment gets a 😕 reaction, and runs the job left
//! running are finished so their roots are free again. Best effort: errors here are logged.

use anyhow::{anyhow, Result};

use super::payload;
use crate::db::runs;
use crate::github::api;
use crate::jobs::{ClaimedJob, JobError, JobKind, RunCommand, RunJob};
use crate::model::view::{CommentMeta, Notice, NoticeBody};
use crate::model::RepoRef;
use crate::run_planner::record::RunStatus;
use crate::state::AppState;
use crate::webhook::event::CommentJob;

pub async fn report(state: &AppState, job: &ClaimedJob, error: &JobError) {
    tracing::error!(job = job.id, kind = %job.kind, error = %error, "job failed for good");
    let told = match JobKind::parse(&job.kind) {
        Some(JobKind::Comment) => comment_failed(state, job).await,
        Some(JobKind::Run) => run_failed(state, job).await,
        _ => Ok(()),
    };
    if let Err(e) = told {
        tracing::warn!(job = job.id, error = %format!("{e:#}"), "could not tell the PR a job failed");
    }
}

async fn comment_failed(state: &AppState, job: &ClaimedJob) -> Result<()> {
    let comment: CommentJob = payload(job).map_err(|e| anyhow!("{e}"))?;
    let what = "its commands could not be handled".to_string();
    tell(state, &comment.repo, comment.number, job.id, what).await?;
    let gh = installation(state, &comment.repo)?;
    api::react_to_comment(&gh, &comment.repo, comment.comment_id, "confused").await
}

async fn run_failed(state: &AppState, job: &ClaimedJob) -> Result<()> {
    let run: RunJob = payload(job).map_err(|e| anyhow!("{e}"))?;
    let status = match run.command {
        RunCommand::Plan => RunStatus::PlanFailed,
        RunCommand::Apply => RunStatus::ApplyFailed,
    };
    for r in runs::running_for_job(&state.db, job.id).await? {
        runs::finish(&state.db, r.id, status, None, None, None).await?;
    }
    let projects: Vec<String> = run.projects.iter().map(|p| format!("`{p}`")).collect();
    let what = format!(
        "the `/{}` of {} stopped with an internal error",
        run.command.name(),
        projects.join(", ")
    );
    tell(state, &run.repo, run.number, job.id, what).await?;
    if let Some(comment_id) = run.comment_id {
        let gh = installation(state, &run.repo)?;
        api::react_to_comment(&gh, &run.repo, comment_id, "confused").await?;
    }
    Ok(())
}

/// Posted directly, not through the outbox: it runs once from the job runner's `on_failed`
/// hook after the job ended, so there is no job left whose lease could carry a publication
/// and no retry that could post it twice. Rendered from `job_failed.md.j2`.
async fn tell(state: &AppState, repo: &RepoRef, pr: i64, job_id: i64, what: String) -> Result<()> {
    let notice = Notice {
        meta: CommentMeta {
            pr: pr as u64,
            marker_root: format!("job-{job_id}"),
            run_id: job_id.to_string(),
            head_sha_short: None,
            command_by: None,
            check_run_url: None,
        },
        body: NoticeBody::JobFailed { what, job_id },
    };
    let body = state.renderer.render_notice(&notice)?;
    let gh = installation(state, repo)?;
    api::create_comment(&gh, repo, pr, &body).await?;
    Ok(())
}

fn installation(
    state: &AppState,
    repo: &RepoRef,
) -> Result<std::sync::Arc<crate::github::InstallationClient>> {
    let (_, gh) = super::installation_client(state, repo).map_err(|e| anyhow!("{e}"))?;
    Ok(gh)
}
