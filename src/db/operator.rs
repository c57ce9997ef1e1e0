//! What the operator commands read (`tfgate locks`, `runs`, `run-show`, `audit`): plain
//! queries, no decisions.

use anyhow::{Context, Result};
use serde::Serialize;

use super::Db;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LockRow {
    pub repo: String,
    pub project: String,
    pub workspace: String,
    pub pr: i64,
    pub holder: String,
    pub since_ms: i64,
    /// Released once the run on the root finishes.
    pub release_pending: bool,
}

pub async fn locks(db: &Db) -> Result<Vec<LockRow>> {
    type Row = (String, String, String, i64, String, i64, i64);
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT repo, project, workspace, pr, acquired_by, acquired_at, release_pending \
         FROM locks ORDER BY repo, project, workspace",
    )
    .fetch_all(&db.pool)
    .await
    .context("reading locks")?;
    Ok(rows
        .into_iter()
        .map(
            |(repo, project, workspace, pr, holder, since_ms, pending)| LockRow {
                repo,
                project,
                workspace,
                pr,
                holder,
                since_ms,
                release_pending: pending != 0,
            },
        )
        .collect())
}

/// Releases one root's lock whoever holds it; a root with a running plan or apply keeps it
/// until that run ends. Returns the PR that held it, if a lock was there.
pub async fn release_lock(
    db: &Db,
    repo: &str,
    project: &str,
    workspace: &str,
) -> Result<Option<(i64, super::locks::Released)>> {
    let pr: Option<i64> = sqlx::query_scalar(
        "SELECT pr FROM locks WHERE repo = $1 AND project = $2 AND workspace = $3",
    )
    .bind(repo)
    .bind(project)
    .bind(workspace)
    .fetch_optional(&db.pool)
    .await
    .context("reading a lock")?;
    let Some(pr) = pr else {
        return Ok(None);
    };
    let released = super::locks::release(db, repo, pr, Some(project)).await?;
    Ok(Some((pr, released)))
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

/// Newest first.
pub async fn runs(db: &Db, filter: &RunFilter) -> Result<Vec<RunListRow>> {
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

/// One run with its stored record (`PlanRecord` / `ApplyRecord` JSON).
pub async fn run(db: &Db, id: i64) -> Result<Option<(RunListRow, Option<String>)>> {
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

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AuditRow {
    pub at_ms: i64,
    pub actor: String,
    pub repo: Option<String>,
    pub pr: Option<i64>,
    pub action: String,
    pub rule: Option<String>,
    pub result: String,
    pub detail: Option<String>,
}

/// Which audit events `tfgate audit` lists.
#[derive(Debug, Clone, Default)]
pub struct AuditFilter {
    pub repo: Option<String>,
    pub user: Option<String>,
    pub since_ms: Option<i64>,
    pub limit: i64,
}

/// Newest first.
pub async fn audit(db: &Db, filter: &AuditFilter) -> Result<Vec<AuditRow>> {
    type Row = (
        i64,
        String,
        Option<String>,
        Option<i64>,
        String,
        Option<String>,
        String,
        Option<String>,
    );
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT at, actor, repo, pr, action, rule, result, detail FROM audit_events \
         WHERE ($1 IS NULL OR repo = $1) AND ($2 IS NULL OR actor = $2) \
         AND ($3 IS NULL OR at >= $3) ORDER BY id DESC LIMIT $4",
    )
    .bind(filter.repo.as_deref())
    .bind(filter.user.as_deref())
    .bind(filter.since_ms)
    .bind(filter.limit)
    .fetch_all(&db.pool)
    .await
    .context("reading the audit log")?;
    Ok(rows
        .into_iter()
        .map(
            |(at_ms, actor, repo, pr, action, rule, result, detail)| AuditRow {
                at_ms,
                actor,
                repo,
                pr,
                action,
                rule,
                result,
                detail,
            },
        )
        .collect())
}
