//! Project locks: one PR holds a root (project + workspace) from its first plan until merge,
//! close or `/unlock`. A lock always names the PR that holds it.

use anyhow::{Context, Result};

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

/// Release the PR's locks (all, or one project's); returns how many.
pub async fn release(db: &Db, repo: &str, pr: i64, project: Option<&str>) -> Result<u64> {
    let n = match project {
        Some(p) => {
            sqlx::query("DELETE FROM locks WHERE repo = $1 AND pr = $2 AND project = $3")
                .bind(repo)
                .bind(pr)
                .bind(p)
                .execute(&db.pool)
                .await?
        }
        None => {
            sqlx::query("DELETE FROM locks WHERE repo = $1 AND pr = $2")
                .bind(repo)
                .bind(pr)
                .execute(&db.pool)
                .await?
        }
    };
    Ok(n.rows_affected())
}
