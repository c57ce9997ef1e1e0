//! Runs: one Terraform plan or apply of one root, with its sealed plan file and raw log.

use anyhow::{Context, Result};
use serde::Serialize;

use super::{now_ms, Db};
use crate::run_planner::record::RunStatus;

#[derive(Debug, Clone)]
pub struct NewRun<'a> {
    pub job_id: Option<i64>,
    pub repo: &'a str,
    pub pr: i64,
    pub project: &'a str,
    pub dir: &'a str,
    pub workspace: &'a str,
    pub command: &'a str,
    pub actor: &'a str,
    pub head_sha: &'a str,
    /// The allowlisted Terraform flags the run was asked with (`-replace=…`), as Terraform gets them.
    pub terraform_args: &'a [String],
}

#[derive(Debug, Clone)]
pub struct RunRow {
    pub id: i64,
    pub project: String,
    pub dir: String,
    pub workspace: String,
    pub command: String,
    pub head_sha: String,
    /// `None` for a status this version does not know.
    pub status: Option<RunStatus>,
    /// The run's record (`PlanRecord` or `ApplyRecord` JSON; see `run_planner::record`).
    pub outcome: Option<String>,
    /// Who asked for the run (a plan's author).
    pub actor: String,
    /// The Terraform flags it ran with; `None` when unknown (runs recorded before flags were).
    pub terraform_args: Option<Vec<String>>,
}

pub async fn create(db: &Db, r: &NewRun<'_>) -> Result<i64> {
    sqlx::query_scalar(
        "INSERT INTO runs (job_id, repo, pr, project, dir, workspace, command, actor, head_sha, status, created_at, terraform_args) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'running', $10, $11) RETURNING id",
    )
    .bind(r.job_id)
    .bind(r.repo)
    .bind(r.pr)
    .bind(r.project)
    .bind(r.dir)
    .bind(r.workspace)
    .bind(r.command)
    .bind(r.actor)
    .bind(r.head_sha)
    .bind(now_ms())
    .bind(serde_json::to_string(r.terraform_args).expect("a list of strings serialises"))
    .fetch_one(&db.pool)
    .await
    .context("recording a run")
}

/// Finish a run: status, the sealed plan file (plans), the sealed raw log, the outcome JSON.
pub async fn finish(
    db: &Db,
    id: i64,
    status: RunStatus,
    plan_blob: Option<&[u8]>,
    raw_log: Option<&[u8]>,
    outcome: Option<&str>,
) -> Result<()> {
    sqlx::query(
        "UPDATE runs SET status = $1, plan_blob = COALESCE($2, plan_blob), raw_log = COALESCE($3, raw_log), \
         outcome = COALESCE($4, outcome), finished_at = $5 WHERE id = $6",
    )
    .bind(status.as_str())
    .bind(plan_blob)
    .bind(raw_log)
    .bind(outcome)
    .bind(now_ms())
    .bind(id)
    .execute(&db.pool)
    .await
    .context("finishing a run")?;
    release_root(db, id).await
}

/// The root the run held is free again; a lock released meanwhile goes now.
async fn release_root(db: &Db, run_id: i64) -> Result<()> {
    sqlx::query("DELETE FROM root_runs WHERE run_id = $1")
        .bind(run_id)
        .execute(&db.pool)
        .await
        .context("releasing a run's root")?;
    sqlx::query(
        "DELETE FROM locks WHERE release_pending = 1 \
         AND EXISTS (SELECT 1 FROM runs r WHERE r.id = $1 AND r.repo = locks.repo \
             AND r.project = locks.project AND r.workspace = locks.workspace) \
         AND NOT EXISTS (SELECT 1 FROM root_runs c WHERE c.repo = locks.repo \
             AND c.project = locks.project AND c.workspace = locks.workspace)",
    )
    .bind(run_id)
    .execute(&db.pool)
    .await
    .context("releasing a lock whose release waited for the run")?;
    Ok(())
}

/// Forget a run that never started (its root was busy).
pub async fn discard(db: &Db, id: i64) -> Result<()> {
    sqlx::query("DELETE FROM runs WHERE id = $1 AND status = 'running'")
        .bind(id)
        .execute(&db.pool)
        .await
        .context("discarding a run")?;
    Ok(())
}

/// Record progress of a running apply (resources completed so far), for crash reports.
pub async fn set_progress(db: &Db, id: i64, outcome: &str) -> Result<()> {
    sqlx::query("UPDATE runs SET outcome = $1 WHERE id = $2 AND status = 'running'")
        .bind(outcome)
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(())
}

type Row = (
    i64,
    String,
    String,
    String,
    String,
    String,
    String,
    Option<String>,
    String,
    Option<String>,
);

/// The columns of a [`Row`], in order.
const ROW_COLUMNS: &str =
    "id, project, dir, workspace, command, head_sha, status, outcome, actor, terraform_args";

fn to_run(r: Row) -> RunRow {
    RunRow {
        id: r.0,
        project: r.1,
        dir: r.2,
        workspace: r.3,
        command: r.4,
        head_sha: r.5,
        status: RunStatus::parse(&r.6),
        outcome: r.7,
        actor: r.8,
        terraform_args: r.9.and_then(|t| serde_json::from_str(&t).ok()),
    }
}

/// The latest run of a command for a root of a PR.
pub async fn latest(
    db: &Db,
    repo: &str,
    pr: i64,
    project: &str,
    workspace: &str,
    command: &str,
) -> Result<Option<RunRow>> {
    let row: Option<Row> = sqlx::query_as(&format!(
        "SELECT {ROW_COLUMNS} FROM runs \
         WHERE repo = $1 AND pr = $2 AND project = $3 AND workspace = $4 AND command = $5 \
         ORDER BY id DESC LIMIT 1"
    ))
    .bind(repo)
    .bind(pr)
    .bind(project)
    .bind(workspace)
    .bind(command)
    .fetch_optional(&db.pool)
    .await?;
    Ok(row.map(to_run))
}

/// When the latest apply of a root started (ms since the epoch), over every PR.
pub async fn last_apply_started(
    db: &Db,
    repo: &str,
    project: &str,
    workspace: &str,
) -> Result<Option<i64>> {
    let row: Option<(i64,)> = sqlx::query_as(
        "SELECT created_at FROM runs WHERE repo = $1 AND project = $2 AND workspace = $3 \
         AND command = 'apply' ORDER BY id DESC LIMIT 1",
    )
    .bind(repo)
    .bind(project)
    .bind(workspace)
    .fetch_optional(&db.pool)
    .await
    .context("reading the last apply of a root")?;
    Ok(row.map(|r| r.0))
}

/// Every run of the PR, oldest first (for views over all of its roots at once).
pub async fn of_pr(db: &Db, repo: &str, pr: i64) -> Result<Vec<RunRow>> {
    let rows: Vec<Row> = sqlx::query_as(&format!(
        "SELECT {ROW_COLUMNS} FROM runs \
         WHERE repo = $1 AND pr = $2 ORDER BY id"
    ))
    .bind(repo)
    .bind(pr)
    .fetch_all(&db.pool)
    .await?;
    Ok(rows.into_iter().map(to_run).collect())
}

/// A plan run of this PR's root, by id (`None` when the id names anything else).
pub async fn plan_of_root(
    db: &Db,
    id: i64,
    repo: &str,
    pr: i64,
    project: &str,
    workspace: &str,
) -> Result<Option<RunRow>> {
    let row: Option<Row> = sqlx::query_as(&format!(
        "SELECT {ROW_COLUMNS} FROM runs \
         WHERE id = $1 AND repo = $2 AND pr = $3 AND project = $4 AND workspace = $5 \
         AND command = 'plan'"
    ))
    .bind(id)
    .bind(repo)
    .bind(pr)
    .bind(project)
    .bind(workspace)
    .fetch_optional(&db.pool)
    .await?;
    Ok(row.map(to_run))
}

/// Runs left `running` by a job whose worker died.
pub async fn running_for_job(db: &Db, job_id: i64) -> Result<Vec<RunRow>> {
    let rows: Vec<Row> = sqlx::query_as(&format!(
        "SELECT {ROW_COLUMNS} FROM runs \
         WHERE job_id = $1 AND status = 'running' ORDER BY id"
    ))
    .bind(job_id)
    .fetch_all(&db.pool)
    .await?;
    Ok(rows.into_iter().map(to_run).collect())
}

pub async fn plan_blob(db: &Db, id: i64) -> Result<Option<Vec<u8>>> {
    Ok(
        sqlx::query_scalar("SELECT plan_blob FROM runs WHERE id = $1")
            .bind(id)
            .fetch_one(&db.pool)
            .await?,
    )
}

pub async fn raw_log(db: &Db, id: i64) -> Result<Option<Vec<u8>>> {
    Ok(sqlx::query_scalar("SELECT raw_log FROM runs WHERE id = $1")
        .bind(id)
        .fetch_optional(&db.pool)
        .await?
        .flatten())
}

/// `(repo, created_at ms, status)` of every run since `since_ms`.
pub async fn run_statuses_since(db: &Db, since_ms: i64) -> Result<Vec<(String, i64, String)>> {
    sqlx::query_as("SELECT repo, created_at, status FROM runs WHERE created_at >= $1")
        .bind(since_ms)
        .fetch_all(&db.pool)
        .await
        .context("reading run statuses")
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunListRow {
    pub id: i64,
    pub repo: String,
    pub pr: i64,
    pub project: String,
    pub workspace: String,
    pub command: String,
    pub status: String,
    pub actor: String,
    pub head_sha: String,
    pub created_ms: i64,
    pub finished_ms: Option<i64>,
    pub job_id: Option<i64>,
}

/// Which runs `tfgate runs` lists.
#[derive(Debug, Clone, Default)]
pub struct RunFilter {
    pub repo: Option<String>,
    pub pr: Option<i64>,
    pub limit: i64,
}

type RunTuple = (
    i64,
    String,
    i64,
    String,
    String,
    String,
    String,
    String,
    String,
    i64,
    Option<i64>,
    Option<i64>,
);

const RUN_COLUMNS: &str = "id, repo, pr, project, workspace, command, status, actor, head_sha, \
     created_at, finished_at, job_id";

fn run_row(t: RunTuple) -> RunListRow {
    let (
        id,
        repo,
        pr,
        project,
        workspace,
        command,
        status,
        actor,
        head_sha,
        created,
        finished,
        job,
    ) = t;
    RunListRow {
        id,
        repo,
        pr,
        project,
        workspace,
        command,
        status,
        actor,
        head_sha,
        created_ms: created,
        finished_ms: finished,
        job_id: job,
    }
}

/// The runs `tfgate runs` and the web UI list, newest first.
pub async fn list(db: &Db, filter: &RunFilter) -> Result<Vec<RunListRow>> {
    let sql = format!(
        "SELECT {RUN_COLUMNS} FROM runs WHERE ($1 IS NULL OR repo = $1) \
         AND ($2 IS NULL OR pr = $2) ORDER BY id DESC LIMIT $3"
    );
    let rows: Vec<RunTuple> = sqlx::query_as(&sql)
        .bind(filter.repo.as_deref())
        .bind(filter.pr)
        .bind(filter.limit)
        .fetch_all(&db.pool)
        .await
        .context("reading runs")?;
    Ok(rows.into_iter().map(run_row).collect())
}

/// One run with its stored record (`PlanRecord` / `ApplyRecord` JSON), as `tfgate run-show`
/// and the web UI show it.
pub async fn show(db: &Db, id: i64) -> Result<Option<(RunListRow, Option<String>)>> {
    let sql = format!("SELECT {RUN_COLUMNS}, outcome FROM runs WHERE id = $1");
    let row: Option<sqlx::any::AnyRow> = sqlx::query(&sql)
        .bind(id)
        .fetch_optional(&db.pool)
        .await
        .context("reading a run")?;
    let Some(row) = row else {
        return Ok(None);
    };
    use sqlx::Row;
    let tuple: RunTuple = (
        row.try_get(0)?,
        row.try_get(1)?,
        row.try_get(2)?,
        row.try_get(3)?,
        row.try_get(4)?,
        row.try_get(5)?,
        row.try_get(6)?,
        row.try_get(7)?,
        row.try_get(8)?,
        row.try_get(9)?,
        row.try_get(10)?,
        row.try_get(11)?,
    );
    let outcome: Option<String> = row.try_get(12)?;
    Ok(Some((run_row(tuple), outcome)))
}
