//! Project locks: one PR holds a root (project + workspace) from its first plan until merge,
//! close or `/unlock`. A lock always names the PR that holds it.

use anyhow::{Context, Result};
use serde::Serialize;

use super::{now_ms, Db};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LockOutcome {
    /// This PR holds the lock (newly or already).
    Held,
    /// Another PR holds it.
    HeldBy { pr: i64, actor: String },
}

/// Take the lock for `pr`, or report who holds it.
pub async fn acquire(
    db: &Db,
    repo: &str,
    project: &str,
    workspace: &str,
    pr: i64,
    actor: &str,
) -> Result<LockOutcome> {
    sqlx::query(
        "INSERT INTO locks (repo, project, workspace, pr, acquired_by, acquired_at) \
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (repo, project, workspace) DO NOTHING",
    )
    .bind(repo)
    .bind(project)
    .bind(workspace)
    .bind(pr)
    .bind(actor)
    .bind(now_ms())
    .execute(&db.pool)
    .await
    .context("taking a project lock")?;
    // Asked for again: a release waiting for a run to finish no longer applies.
    sqlx::query(
        "UPDATE locks SET release_pending = 0 \
         WHERE repo = $1 AND project = $2 AND workspace = $3 AND pr = $4",
    )
    .bind(repo)
    .bind(project)
    .bind(workspace)
    .bind(pr)
    .execute(&db.pool)
    .await
    .context("keeping a project lock")?;
    let (holder, by): (i64, String) = sqlx::query_as(
        "SELECT pr, acquired_by FROM locks WHERE repo = $1 AND project = $2 AND workspace = $3",
    )
    .bind(repo)
    .bind(project)
    .bind(workspace)
    .fetch_one(&db.pool)
    .await
    .context("reading a project lock")?;
    Ok(if holder == pr {
        LockOutcome::Held
    } else {
        LockOutcome::HeldBy {
            pr: holder,
            actor: by,
        }
    })
}

/// The PR holding the root's lock, if one does.
pub async fn holder(db: &Db, repo: &str, project: &str, workspace: &str) -> Result<Option<i64>> {
    sqlx::query_scalar("SELECT pr FROM locks WHERE repo = $1 AND project = $2 AND workspace = $3")
        .bind(repo)
        .bind(project)
        .bind(workspace)
        .fetch_optional(&db.pool)
        .await
        .context("reading a project lock")
}

/// What `/unlock` or a closed PR did to the PR's locks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Released {
    /// Locks released now.
    pub released: u64,
    /// Locks of roots with a running plan or apply: released when that run finishes.
    pub kept_until_run_ends: u64,
}

const ROOT_IS_RUNNING: &str = "EXISTS (SELECT 1 FROM root_runs c WHERE c.repo = locks.repo \
     AND c.project = locks.project AND c.workspace = locks.workspace)";

/// Release the PR's locks (all, or one project's). A lock whose root has a running plan or
/// apply is not pulled from under it: it is marked and goes when the run finishes.
pub async fn release(db: &Db, repo: &str, pr: i64, project: Option<&str>) -> Result<Released> {
    let scope = match project {
        Some(_) => "repo = $1 AND pr = $2 AND project = $3",
        None => "repo = $1 AND pr = $2",
    };
    let mark = format!("UPDATE locks SET release_pending = 1 WHERE {scope} AND {ROOT_IS_RUNNING}");
    let delete = format!("DELETE FROM locks WHERE {scope} AND NOT {ROOT_IS_RUNNING}");
    let mut counts = [0u64; 2];
    for (i, sql) in [mark, delete].iter().enumerate() {
        let mut query = sqlx::query(sql).bind(repo).bind(pr);
        if let Some(p) = project {
            query = query.bind(p);
        }
        counts[i] = query
            .execute(&db.pool)
            .await
            .context("releasing locks")?
            .rows_affected();
    }
    Ok(Released {
        released: counts[1],
        kept_until_run_ends: counts[0],
    })
}

/// Whether a run may start on a root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RootClaim {
    /// This run holds the root until it finishes.
    Claimed,
    /// Another run is planning or applying the root.
    Busy { run_id: i64, command: String },
}

/// The root of a run.
#[derive(Debug, Clone, Copy)]
pub struct RootKey<'a> {
    pub repo: &'a str,
    pub project: &'a str,
    pub workspace: &'a str,
}

/// Claim `root` for `run_id` (of `job_id`). A claim whose run is no longer running, or that
/// an earlier attempt of the same job left, is taken over.
pub async fn claim_root(
    db: &Db,
    root: RootKey<'_>,
    run_id: i64,
    job_id: Option<i64>,
    command: &str,
) -> Result<RootClaim> {
    sqlx::query(
        "DELETE FROM root_runs WHERE repo = $1 AND project = $2 AND workspace = $3 \
         AND (job_id = $4 OR NOT EXISTS (SELECT 1 FROM runs r \
              WHERE r.id = root_runs.run_id AND r.status = 'running'))",
    )
    .bind(root.repo)
    .bind(root.project)
    .bind(root.workspace)
    .bind(job_id)
    .execute(&db.pool)
    .await
    .context("clearing a finished run's claim")?;
    sqlx::query(
        "INSERT INTO root_runs (repo, project, workspace, run_id, job_id, command) \
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (repo, project, workspace) DO NOTHING",
    )
    .bind(root.repo)
    .bind(root.project)
    .bind(root.workspace)
    .bind(run_id)
    .bind(job_id)
    .bind(command)
    .execute(&db.pool)
    .await
    .context("claiming a root")?;
    let (holder, held_for): (i64, String) = sqlx::query_as(
        "SELECT run_id, command FROM root_runs WHERE repo = $1 AND project = $2 AND workspace = $3",
    )
    .bind(root.repo)
    .bind(root.project)
    .bind(root.workspace)
    .fetch_one(&db.pool)
    .await
    .context("reading a root's claim")?;
    Ok(if holder == run_id {
        RootClaim::Claimed
    } else {
        RootClaim::Busy {
            run_id: holder,
            command: held_for,
        }
    })
}

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

/// Every lock (`tfgate locks`, the web UI), by repository and root.
pub async fn list(db: &Db) -> Result<Vec<LockRow>> {
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
) -> Result<Option<(i64, Released)>> {
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
    let released = release(db, repo, pr, Some(project)).await?;
    Ok(Some((pr, released)))
}
