//! The audit log: every policy decision and every state-changing command.

use anyhow::{Context, Result};
use serde::Serialize;

use super::{now_ms, Db};

#[derive(Debug, Clone, Default)]
pub struct AuditEvent {
    pub actor: String,
    pub repo: Option<String>,
    pub pr: Option<i64>,
    pub action: String,
    pub rule: Option<String>,
    pub result: String,
    pub detail: Option<String>,
}

pub async fn record(db: &Db, e: &AuditEvent) -> Result<()> {
    sqlx::query(
        "INSERT INTO audit_events (at, actor, repo, pr, action, rule, result, detail) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(now_ms())
    .bind(&e.actor)
    .bind(e.repo.as_deref())
    .bind(e.pr)
    .bind(&e.action)
    .bind(e.rule.as_deref())
    .bind(&e.result)
    .bind(e.detail.as_deref())
    .execute(&db.pool)
    .await
    .context("writing audit event")?;
    Ok(())
}

/// Whether any event of `repo` was recorded under `rule`.
pub async fn has_rule(db: &Db, repo: &str, rule: &str) -> Result<bool> {
    let n: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM (SELECT 1 FROM audit_events \
         WHERE repo = $1 AND rule = $2 LIMIT 1) AS seen",
    )
    .bind(repo)
    .bind(rule)
    .fetch_one(&db.pool)
    .await
    .context("reading the audit log")?;
    Ok(n > 0)
}

/// The most recent audit events, newest first.
pub async fn recent(db: &Db, limit: i64) -> Result<Vec<AuditEvent>> {
    type Row = (
        String,
        Option<String>,
        Option<i64>,
        String,
        Option<String>,
        String,
        Option<String>,
    );
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT actor, repo, pr, action, rule, result, detail FROM audit_events \
             ORDER BY id DESC LIMIT $1",
    )
    .bind(limit)
    .fetch_all(&db.pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(
            |(actor, repo, pr, action, rule, result, detail)| AuditEvent {
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

/// The audit events `tfgate audit` and the web UI list, newest first.
pub async fn list(db: &Db, filter: &AuditFilter) -> Result<Vec<AuditRow>> {
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
