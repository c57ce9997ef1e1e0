//! A `/plan` of independent roots split into parts any worker can take
//! (`run_planner::plan_split` decides the parts): the batch row and its part jobs are written in
//! one transaction, while this job holds its lease; the parts' root results update one comment.

use std::collections::BTreeMap;

use super::RunCtx;
use crate::db::plan_batches::{self, NewBatch};
use crate::jobs::{ClaimedJob, JobError, JobKind, NewJob, RunCommand, RunJob};
use crate::model::short_sha;
use crate::model::view::PlanningRoot;
use crate::policy::{RepoPolicy, ResolvedProject};
use crate::run_planner::enqueue::max_attempts;
use crate::run_planner::plan_split::{parallel_limit, plan_parts};
use crate::run_planner::start::RunStart;
use crate::state::AppState;

/// The parts `projects` plan in: one (plan here, as before) unless independent roots can plan
/// concurrently under the server's and the repository's limits.
fn parts_of(
    state: &AppState,
    policy: &RepoPolicy,
    projects: &[&ResolvedProject],
) -> Vec<Vec<String>> {
    let names: Vec<String> = projects.iter().map(|p| p.spec.id.0.clone()).collect();
    let depends_on = depends_on(policy);
    let limit = parallel_limit(state.config.max_parallel_roots, policy.parallel_plans);
    plan_parts(&names, &depends_on, limit)
}

/// The run job of one part of batch `batch`: `projects` of `run`, in order.
fn part_job(state: &AppState, run: &RunJob, batch: i64, projects: Vec<String>) -> NewJob {
    let part = RunJob {
        projects,
        batch: Some(batch),
        ..run.clone()
    };
    NewJob {
        kind: JobKind::Run,
        payload: serde_json::to_string(&part).expect("a run payload serialises"),
        repo: Some(run.repo.full_name()),
        pr: Some(run.number),
        max_attempts: max_attempts(run.command, state.config.job_max_attempts),
    }
}

/// Every project's `depends_on`, by name.
pub(super) fn depends_on(policy: &RepoPolicy) -> BTreeMap<String, Vec<String>> {
    policy
        .projects
        .iter()
        .map(|p| {
            let deps = p.spec.depends_on.iter().map(|d| d.0.clone()).collect();
            (p.spec.id.0.clone(), deps)
        })
        .collect()
}

/// Record the batch and queue one run job per part. A retry that finds the batch recorded
/// queues nothing again.
async fn split(
    state: &AppState,
    job: &ClaimedJob,
    run: &RunJob,
    roots: &[PlanningRoot],
    parts: Vec<Vec<String>>,
) -> Result<(), JobError> {
    let repo = run.repo.full_name();
    let jobs: Vec<NewJob> = parts
        .into_iter()
        .map(|projects| part_job(state, run, job.id, projects))
        .collect();
    let batch = NewBatch {
        repo: &repo,
        pr: run.number,
        head_sha: &run.head_sha,
        roots,
    };
    let split = plan_batches::split(&state.db, job, &batch, &jobs)
        .await
        .map_err(JobError::Transient)?;
    tracing::info!(
        repo = %repo, pr = run.number, job = job.id, parts = jobs.len(), queued = split,
        "plan split into parts"
    );
    state.wake.notify_waiters();
    Ok(())
}

impl RunCtx<'_> {
    /// The part of batch `batch` that plans `projects` after this part's first root.
    pub(super) fn part_job(&self, batch: i64, projects: Vec<String>) -> NewJob {
        part_job(self.state, self.run, batch, projects)
    }

    /// Split a `/plan` whose roots can plan concurrently into parts (true: queued, nothing
    /// more to do here). A part never splits again.
    pub(super) async fn split_into_parts(
        &self,
        projects: &[&ResolvedProject],
    ) -> Result<bool, JobError> {
        if self.run.command != RunCommand::Plan || self.run.batch.is_some() {
            return Ok(false);
        }
        let parts = parts_of(self.state, self.policy, projects);
        if parts.len() <= 1 {
            return Ok(false);
        }
        let roots: Vec<PlanningRoot> = projects
            .iter()
            .map(|p| PlanningRoot {
                project: p.spec.id.0.clone(),
                dir: p.spec.dir.clone(),
                workspace: p.spec.workspace.clone(),
            })
            .collect();
        split(self.state, self.job, self.run, &roots, parts).await?;
        Ok(true)
    }

    /// A part's start: the split job checked the head and the projects moments ago, but a part
    /// may wait for a worker; a root that can no longer plan gets a note in the batch's
    /// comment (one comment for the whole command, not a notice per part).
    pub(super) async fn start_part(
        &self,
        batch: i64,
        start: RunStart,
    ) -> Result<Option<Vec<String>>, JobError> {
        match start {
            RunStart::HeadMoved { current, .. } => {
                let reason = format!(
                    "the PR head moved to `{}` before it started; comment `/plan` to plan the new head",
                    short_sha(&current)
                );
                for project in &self.run.projects {
                    self.part_root_not_started(batch, project, reason.clone())
                        .await?;
                }
                Ok(None)
            }
            RunStart::Run { projects, gone } => {
                for project in &gone {
                    let reason = "it is no longer a project on the default branch".to_string();
                    self.part_root_not_started(batch, project, reason).await?;
                }
                Ok(Some(projects))
            }
        }
    }
}
