//! Owners' approvals of failed plan policy sets (`/approve-policies`), one per plan run and set.

use anyhow::{Context, Result};

use super::{now_ms, Db};
use crate::model::PolicyApproval;

/// What one approval is about.
#[derive(Debug, Clone)]
pub struct NewApproval<'a> {
    pub plan_run_id: i64,
    pub set: &'a str,
    pub approver: &'a str,
    pub repo: &'a str,
    pub pr: i64,
    pub project: &'a str,
    pub head_sha: &'a str,
}

/// Record an approval; the first approval of a set on a plan run is kept.
pub async fn record(db: &Db, a: &NewApproval<'_>) -> Result<()> {
    sqlx::query(
        "INSERT INTO policy_approvals \
         (plan_run_id, set_name, approver, repo, pr, project, head_sha, approved_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
         ON CONFLICT (plan_run_id, set_name) DO NOTHING",
    )
    .bind(a.plan_run_id)
    .bind(a.set)
    .bind(a.approver)
    .bind(a.repo)
    .bind(a.pr)
    .bind(a.project)
    .bind(a.head_sha)
    .bind(now_ms())
    .execute(&db.pool)
    .await
    .context("recording a policy approval")?;
    Ok(())
}

/// The approvals of one plan run, by set name.
pub async fn of_plan_run(db: &Db, plan_run_id: i64) -> Result<Vec<PolicyApproval>> {
    let rows: Vec<(String, String)> = sqlx::query_as(
        "SELECT set_name, approver FROM policy_approvals WHERE plan_run_id = $1 \
         ORDER BY set_name",
    )
    .bind(plan_run_id)
    .fetch_all(&db.pool)
    .await
    .context("reading policy approvals")?;
    Ok(rows
        .into_iter()
        .map(|(set, approver)| PolicyApproval { set, approver })
        .collect())
}
