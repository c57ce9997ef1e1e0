//! Shared-input fingerprints at each root's last successful apply.

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use serde::Serialize;

use super::{now_ms, Db};

/// input name → fingerprint hex, at the root's last successful apply.
pub async fn last_applied(
    db: &Db,
    repo: &str,
    project: &str,
    workspace: &str,
) -> Result<BTreeMap<String, String>> {
    let rows: Vec<(String, String)> = sqlx::query_as(
        "SELECT input, fingerprint FROM input_fingerprints WHERE repo = $1 AND project = $2 AND workspace = $3",
    )
    .bind(repo)
    .bind(project)
    .bind(workspace)
    .fetch_all(&db.pool)
    .await
    .context("reading input fingerprints")?;
    Ok(rows.into_iter().collect())
}

/// Record what a successful apply consumed.
pub async fn record_applied(
    db: &Db,
    repo: &str,
    project: &str,
    workspace: &str,
    run_id: i64,
    fingerprints: &BTreeMap<String, String>,
) -> Result<()> {
    let mut tx = db.pool.begin().await?;
    for (input, fp) in fingerprints {
        sqlx::query("DELETE FROM input_fingerprints WHERE repo = $1 AND project = $2 AND workspace = $3 AND input = $4")
            .bind(repo)
            .bind(project)
            .bind(workspace)
            .bind(input)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "INSERT INTO input_fingerprints (repo, project, workspace, input, fingerprint, run_id, applied_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(repo)
        .bind(project)
        .bind(workspace)
        .bind(input)
        .bind(fp)
        .bind(run_id)
        .bind(now_ms())
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await.context("recording input fingerprints")?;
    Ok(())
}

/// One input's fingerprint at a root's last apply.
#[derive(Debug, Clone, Serialize)]
pub struct AppliedInput {
    pub repo: String,
    pub project: String,
    pub workspace: String,
    pub input: String,
    pub fingerprint: String,
    pub run_id: i64,
    pub applied_ms: i64,
}

pub async fn applied_inputs(db: &Db) -> Result<Vec<AppliedInput>> {
    type Row = (String, String, String, String, String, i64, i64);
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT repo, project, workspace, input, fingerprint, run_id, applied_at \
         FROM input_fingerprints ORDER BY repo, project, workspace, input LIMIT 2000",
    )
    .fetch_all(&db.pool)
    .await
    .context("reading input fingerprints")?;
    Ok(rows
        .into_iter()
        .map(
            |(repo, project, workspace, input, fingerprint, run_id, applied_ms)| AppliedInput {
                repo,
                project,
                workspace,
                input,
                fingerprint,
                run_id,
                applied_ms,
            },
        )
        .collect())
}
