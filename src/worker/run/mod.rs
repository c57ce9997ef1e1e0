//! `run` jobs: Terraform plan/apply of a PR's roots, in order, at the commit that was
//! authorised. Effects only: the checkout, STS, the sandboxed Terraform, sealing and storing,
//! posting. Whether and what to run is `run_planner`; what the PR sees is `render`.

use std::sync::Arc;

use crate::github::InstallationClient;
use anyhow::anyhow;

use super::layout::{policy_at_default_branch, policy_for_pr};
use super::notice_outbox::{record_in_outbox, record_notice, NoticeTarget, OutboxEntry};
use super::{github_error, installation_client, payload};
use crate::db::publications::{self, RESULT_KEY};
use crate::db::runs;
use crate::github::api;
use crate::jobs::{ClaimedJob, JobError, NewJob, RunCommand, RunJob};
use crate::model::short_sha;
use crate::model::view::{CommentMeta, Notice, NoticeBody, RunInterrupted};
use crate::policy::{RepoPolicy, ResolvedProject};
use crate::redact::{Placeholders, RedactionConfig, Redactor};
use crate::render::from_outcome::RootIdent;
use crate::render::Renderer;
use crate::run_planner::outbox::{result_marker_root, RunResult};
use crate::run_planner::record::{ApplyRecord, RunStatus};
use crate::run_planner::start::{after_interruption, run_start, AfterInterruption, RunStart};
use crate::state::AppState;

mod apply;
pub(super) mod drift_detection;
mod failure_facts;
mod module_auth;
mod plan;
mod plan_policy;
mod prepare;
mod split;
mod tool;

pub async fn handle(state: &Arc<AppState>, job: &ClaimedJob) -> Result<(), JobError> {
    let run: RunJob = payload(job)?;
    if publications::of_job(&state.db, job.id)
        .await
        .map_err(JobError::Transient)?
        .is_some()
    {
        // A retry of a job that had recorded its result: that is published on its own.
        return Ok(());
    }
    let (_, gh) = installation_client(state, &run.repo)?;
    let renderer = state.renderer.clone();
    if job.reclaimed {
        let interrupted = report_interrupted(state, job, &run).await?;
        if after_interruption(run.command, interrupted) == AfterInterruption::EndInterrupted {
            return Err(JobError::Interrupted(anyhow!(
                "{interrupted} apply run(s) left running by a worker that died"
            )));
        }
    }
    let set = state.policies.current();
    let Some(policy) = set.for_repo(&run.repo.full_name()) else {
        tracing::warn!(repo = %run.repo.full_name(), "policy removed before the run; nothing done");
        return Ok(());
    };
    // Read again although the comment job read the PR: freshness is the point. The run binds
    // to the authorised commit, and a head that moved since means nothing runs (`run_start`).
    let pr = api::get_pull_request(&gh, &run.repo, run.number)
        .await
        .map_err(github_error)?;
    // Layout projects as the default branch has them now, for the same reason (the PR was
    // told of problems when the command was authorized; a project gone since is reported
    // below). The PR just read names the default branch.
    let (policy, _) = match pr
        .base
        .repo
        .as_ref()
        .and_then(|r| r.default_branch.as_deref())
    {
        Some(branch) => policy_at_default_branch(&gh, &run.repo, policy, branch).await?,
        None => policy_for_pr(&gh, &run.repo, policy).await?,
    };
    let start = run_start(&run, &pr.head.sha, |name| policy.project(name).is_some());
    let ctx = RunCtx {
        state,
        gh: &gh,
        renderer: renderer.as_ref(),
        run: &run,
        job,
        policy: &policy,
        head: &run.head_sha,
    };
    let projects = match run.batch {
        Some(batch) => ctx.start_part(batch, start).await?,
        None => announce_start(state, job, &run, &pr, start).await?,
    };
    let Some(projects) = projects else {
        return Ok(());
    };
    let projects: Vec<&ResolvedProject> =
        projects.iter().filter_map(|n| policy.project(n)).collect();
    if projects.is_empty() {
        return Ok(());
    }
    if ctx.split_into_parts(&projects).await? {
        return Ok(());
    }
    match run.command {
        RunCommand::Plan => ctx.plan_roots(&projects).await,
        RunCommand::Apply => ctx.apply_roots(&projects).await,
    }
}

/// Tell the PR when the head moved (nothing runs) or declared projects are gone; returns the
/// projects to run.
async fn announce_start(
    state: &AppState,
    job: &ClaimedJob,
    run: &RunJob,
    pr: &api::PullRequestInfo,
    start: RunStart,
) -> Result<Option<Vec<String>>, JobError> {
    match start {
        RunStart::HeadMoved {
            authorised,
            current,
        } => {
            let body = NoticeBody::HeadMoved {
                authorised_sha_short: short_sha(&authorised).to_string(),
                head_sha_short: short_sha(&current).to_string(),
                command: run.command.name().to_string(),
            };
            post_notice(state, job, run, &current, body).await?;
            Ok(None)
        }
        RunStart::Run { projects, gone } => {
            if !gone.is_empty() {
                // Layout projects come from the default branch.
                let default_branch = pr.base.repo.as_ref().and_then(|r| r.default_branch.clone());
                let body = NoticeBody::ProjectsGone {
                    base_ref: default_branch.unwrap_or_else(|| pr.base.name.clone()),
                    projects: gone,
                };
                post_notice(state, job, run, &run.head_sha, body).await?;
            }
            Ok(Some(projects))
        }
    }
}

/// Post one notice about the whole job (through the outbox).
async fn post_notice(
    state: &AppState,
    job: &ClaimedJob,
    run: &RunJob,
    head: &str,
    body: NoticeBody,
) -> Result<(), JobError> {
    let notice = Notice {
        meta: meta(run, "all", 0, head),
        body,
    };
    record_notice(state, &notice_target(job, run, head), &notice).await
}

/// Where a run job's notices go.
fn notice_target<'a>(job: &'a ClaimedJob, run: &'a RunJob, head: &'a str) -> NoticeTarget<'a> {
    NoticeTarget {
        job,
        repo: &run.repo,
        number: run.number,
        head_sha: head,
    }
}

/// Mark runs the dead worker left `running` as interrupted and tell the PR what completed.
/// Returns how many there were.
async fn report_interrupted(
    state: &AppState,
    job: &ClaimedJob,
    run: &RunJob,
) -> Result<usize, JobError> {
    let left = runs::running_for_job(&state.db, job.id)
        .await
        .map_err(JobError::Transient)?;
    let redactor =
        Redactor::new(&RedactionConfig::default()).map_err(|e| JobError::Permanent(e.into()))?;
    for r in &left {
        runs::finish(&state.db, r.id, RunStatus::Interrupted, None, None, None)
            .await
            .map_err(JobError::Transient)?;
        let completed = r
            .outcome
            .as_deref()
            .map(ApplyRecord::decode)
            .unwrap_or_default()
            .completed;
        let mut ph = Placeholders::new();
        let notice = Notice {
            meta: meta(run, &r.project, r.id, &r.head_sha),
            body: NoticeBody::Interrupted(RunInterrupted {
                project: r.project.clone(),
                dir: r.dir.clone(),
                workspace: r.workspace.clone(),
                completed: completed
                    .iter()
                    .map(|a| redactor.redact_address(a, &mut ph))
                    .collect(),
            }),
        };
        record_notice(state, &notice_target(job, run, &r.head_sha), &notice).await?;
    }
    Ok(left.len())
}

/// What every step of one run job needs.
struct RunCtx<'a> {
    state: &'a Arc<AppState>,
    gh: &'a InstallationClient,
    renderer: &'a Renderer,
    run: &'a RunJob,
    job: &'a ClaimedJob,
    policy: &'a RepoPolicy,
    /// The authorised commit: what is checked out, planned and applied.
    head: &'a str,
}

impl RunCtx<'_> {
    fn meta(&self, marker_root: &str, run_id: i64) -> CommentMeta {
        meta(self.run, marker_root, run_id, self.head)
    }

    /// Tell the PR `notice` about `marker_root` (through the outbox).
    async fn notify(&self, notice: Notice) -> Result<(), JobError> {
        let target = notice_target(self.job, self.run, self.head);
        record_notice(self.state, &target, &notice).await
    }

    /// The meta of the job's result comment (its marker is the job's own).
    fn result_meta(&self, last_run: i64) -> CommentMeta {
        self.meta(&result_marker_root(self.job.id), last_run)
    }

    /// Record the job's result in the outbox and queue its `publish` job, in one transaction;
    /// nothing here talks to GitHub.
    async fn record_result(&self, result: &RunResult) -> Result<(), JobError> {
        self.record_outbox_result(RESULT_KEY, None, result, None)
            .await
    }

    /// Record one root's result of a part of plan batch `batch` under `key`, with the part
    /// that plans the next roots (`then`) in the same transaction.
    async fn record_part_result(
        &self,
        batch: i64,
        key: &str,
        result: &RunResult,
        then: Option<&NewJob>,
    ) -> Result<(), JobError> {
        self.record_outbox_result(key, Some(batch), result, then)
            .await
    }

    async fn record_outbox_result(
        &self,
        key: &str,
        batch_id: Option<i64>,
        result: &RunResult,
        then: Option<&NewJob>,
    ) -> Result<(), JobError> {
        let json = serde_json::to_string(result).expect("a run result serialises");
        let entry = OutboxEntry {
            key,
            command: result.command(),
            head_sha: self.head,
            json: &json,
            batch_id,
            then,
        };
        record_in_outbox(
            self.state,
            self.job,
            &self.run.repo,
            self.run.number,
            &entry,
        )
        .await
    }
}

fn meta(run: &RunJob, marker_root: &str, run_id: i64, head: &str) -> CommentMeta {
    CommentMeta {
        pr: run.number as u64,
        marker_root: marker_root.to_string(),
        run_id: run_id.to_string(),
        head_sha_short: Some(short_sha(head).to_string()),
        command_by: Some(run.actor.clone()),
        check_run_url: None,
    }
}

fn root_ident(p: &ResolvedProject) -> RootIdent {
    RootIdent {
        project: p.spec.id.0.clone(),
        dir: p.spec.dir.clone(),
        workspace: p.spec.workspace.clone(),
    }
}

fn render_err(e: crate::render::RenderError) -> JobError {
    JobError::Permanent(anyhow!("rendering a comment: {e}"))
}

/// A short line for the PR from an internal error: its first line, never a cause chain.
fn public_line(e: &anyhow::Error) -> String {
    let s = e.to_string();
    let first = s.lines().next().unwrap_or("internal error");
    if first.contains("arn:") || first.contains("://") {
        "internal error; an admin can read the server log".into()
    } else {
        first.chars().take(160).collect()
    }
}
