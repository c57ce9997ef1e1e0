//! Webhook deliveries and the jobs they enqueue, written in one transaction so that a
//! delivery is never stored without its job nor a job enqueued twice for one delivery id.

use std::collections::HashSet;

use anyhow::{Context, Result};

use super::jobs::NewJob;
use super::{now_ms, Db};

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
    /// Stored; this many jobs were enqueued.
    Enqueued(usize),
    /// The delivery id was seen before: nothing stored or enqueued.
    Duplicate,
}

/// Store a batch of deliveries and their jobs in a single transaction (group commit): one
/// multi-row insert for the deliveries (`ON CONFLICT DO NOTHING RETURNING id` tells which are
/// new) and one for the jobs of the new ones.
pub async fn record_deliveries(db: &Db, batch: &[&NewDelivery]) -> Result<Vec<DeliveryOutcome>> {
    let now = now_ms();
    // A delivery id twice in one batch: the later copy is a duplicate.
    let mut seen = HashSet::new();
    let firsts: Vec<bool> = batch.iter().map(|d| seen.insert(d.id.as_str())).collect();
    let mut tx = db
        .pool
        .begin()
        .await
        .context("starting intake transaction")?;
    let unique: Vec<&NewDelivery> = batch
        .iter()
        .zip(&firsts)
        .filter(|(_, f)| **f)
        .map(|(d, _)| *d)
        .collect();
    let sql = deliveries_insert_sql(unique.len());
    let mut q = sqlx::query_scalar::<_, String>(&sql);
    for d in &unique {
        q = q
            .bind(&d.id)
            .bind(&d.event)
            .bind(d.action.as_deref())
            .bind(d.repo.as_deref())
            .bind(d.installation_id)
            .bind(now);
    }
    let inserted: HashSet<String> = q
        .fetch_all(&mut *tx)
        .await
        .context("storing deliveries")?
        .into_iter()
        .collect();
    let new_jobs: Vec<(&NewDelivery, &NewJob)> = batch
        .iter()
        .zip(&firsts)
        .filter(|(d, first)| **first && inserted.contains(&d.id))
        .flat_map(|(&d, _)| d.jobs.iter().map(move |j| (d, j)))
        .collect();
    if !new_jobs.is_empty() {
        let sql = jobs_insert_sql(new_jobs.len());
        let mut q = sqlx::query(&sql);
        for (d, j) in &new_jobs {
            q = q
                .bind(j.kind.as_str())
                .bind(&d.id)
                .bind(j.repo.as_deref())
                .bind(j.pr)
                .bind(&j.payload)
                .bind(j.max_attempts)
                .bind(now);
        }
        q.execute(&mut *tx).await.context("enqueueing jobs")?;
    }
    tx.commit().await.context("committing intake transaction")?;
    Ok(batch
        .iter()
        .zip(&firsts)
        .map(|(d, first)| {
            if *first && inserted.contains(&d.id) {
                DeliveryOutcome::Enqueued(d.jobs.len())
            } else {
                DeliveryOutcome::Duplicate
            }
        })
        .collect())
}

/// Multi-row insert of `rows` deliveries (6 parameters each), returning the ids that were new.
fn deliveries_insert_sql(rows: usize) -> String {
    let mut sql = String::from(
        "INSERT INTO deliveries (id, event, action, repo, installation_id, received_at) VALUES ",
    );
    for i in 0..rows {
        let b = i * 6;
        if i > 0 {
            sql.push(',');
        }
        sql.push_str(&format!(
            "(${}, ${}, ${}, ${}, ${}, ${})",
            b + 1,
            b + 2,
            b + 3,
            b + 4,
            b + 5,
            b + 6
        ));
    }
    sql.push_str(" ON CONFLICT (id) DO NOTHING RETURNING id");
    sql
}

/// Multi-row insert of `rows` queued jobs (7 parameters each; the last is the time, used for
/// `run_at`, `created_at` and `updated_at`).
fn jobs_insert_sql(rows: usize) -> String {
    let mut sql = String::from(
        "INSERT INTO jobs (kind, delivery_id, repo, pr, payload, status, attempts, max_attempts, \
         run_at, created_at, updated_at) VALUES ",
    );
    for i in 0..rows {
        let b = i * 7;
        if i > 0 {
            sql.push(',');
        }
        sql.push_str(&format!(
            "(${}, ${}, ${}, ${}, ${}, 'queued', 0, ${}, ${}, ${}, ${})",
            b + 1,
            b + 2,
            b + 3,
            b + 4,
            b + 5,
            b + 6,
            b + 7,
            b + 7,
            b + 7
        ));
    }
    sql
}

/// Whether a delivery id has been stored.
pub async fn delivery_exists(db: &Db, id: &str) -> Result<bool> {
    let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM deliveries WHERE id = $1")
        .bind(id)
        .fetch_one(&db.pool)
        .await?;
    Ok(n > 0)
}
