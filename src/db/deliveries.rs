//! Webhook deliveries and the jobs they enqueue, written in one transaction so that a
//! delivery is never stored without its job nor a job enqueued twice for one delivery id.

use anyhow::{Context, Result};

use super::{now_ms, Db};
use crate::jobs::NewJob;

/// One verified delivery to store, with the jobs it enqueues.
#[derive(Debug, Clone)]
pub struct NewDelivery {
    pub id: String,
    pub event: String,
    pub action: Option<String>,
    pub repo: Option<String>,
    pub installation_id: Option<i64>,
    pub jobs: Vec<NewJob>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeliveryOutcome {
    /// Stored; these job ids were enqueued.
    Enqueued(Vec<i64>),
    /// The delivery id was seen before: nothing stored or enqueued.
    Duplicate,
}

/// Store a batch of deliveries and their jobs in a single transaction (group commit).
pub async fn record_deliveries(db: &Db, batch: &[NewDelivery]) -> Result<Vec<DeliveryOutcome>> {
    let mut tx = db
        .pool
        .begin()
        .await
        .context("starting intake transaction")?;
    let now = now_ms();
    let mut outcomes = Vec::with_capacity(batch.len());
    for d in batch {
        let inserted = sqlx::query(
            "INSERT INTO deliveries (id, event, action, repo, installation_id, received_at) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING",
        )
        .bind(&d.id)
        .bind(&d.event)
        .bind(d.action.as_deref())
        .bind(d.repo.as_deref())
        .bind(d.installation_id)
        .bind(now)
        .execute(&mut *tx)
        .await
        .context("storing delivery")?
        .rows_affected();
        if inserted == 0 {
            outcomes.push(DeliveryOutcome::Duplicate);
            continue;
        }
        let mut ids = Vec::with_capacity(d.jobs.len());
        for job in &d.jobs {
            ids.push(crate::jobs::queue::insert_job(&mut tx, job, Some(&d.id), now).await?);
        }
        outcomes.push(DeliveryOutcome::Enqueued(ids));
    }
    tx.commit().await.context("committing intake transaction")?;
    Ok(outcomes)
}

/// Whether a delivery id has been stored.
pub async fn delivery_exists(db: &Db, id: &str) -> Result<bool> {
    let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM deliveries WHERE id = $1")
        .bind(id)
        .fetch_one(&db.pool)
        .await?;
    Ok(n > 0)
}
