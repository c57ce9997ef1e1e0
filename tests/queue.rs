//! The durable queue under concurrency and failure, on SQLite and PostgreSQL.

mod support;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use support::{fresh_database, Backend};
use tfgate::db::jobs::{self as queue, ClaimedJob, NewJob};
use tfgate::db::Db;
use tfgate::jobs::runner::{run_worker, JobHandler, WorkerOptions};
use tfgate::jobs::{JobError, JobKind};
use tfgate::metrics::Metrics;
use tokio::sync::{watch, Notify};

struct Counting {
    seen: Mutex<HashMap<i64, u32>>,
}

impl JobHandler for Counting {
    async fn handle(&self, job: &ClaimedJob) -> Result<(), JobError> {
        *self.seen.lock().unwrap().entry(job.id).or_default() += 1;
        tokio::time::sleep(Duration::from_millis(1)).await;
        Ok(())
    }
}

fn job(n: i64) -> NewJob {
    NewJob {
        kind: JobKind::Comment,
        payload: format!("{{\"n\":{n}}}"),
        repo: Some("o/r".into()),
        pr: Some(n),
        max_attempts: 3,
    }
}

async fn open(backend: Backend, dir: &std::path::Path) -> Option<String> {
    let url = fresh_database(backend, dir).await?;
    Db::open(&url).await.unwrap();
    Some(url)
}

async fn two_workers_run_each_job_exactly_once(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let Some(url) = open(backend, dir.path()).await else {
        return;
    };
    let db = Db::connect(&url).await.unwrap();
    for n in 0..200 {
        queue::enqueue(&db, &job(n)).await.unwrap();
    }
    let handler = Arc::new(Counting {
        seen: Mutex::new(HashMap::new()),
    });
    let (tx, rx) = watch::channel(false);
    let mut tasks = Vec::new();
    for w in 0..2 {
        // Each worker has its own pool, as two processes would.
        let db = Db::connect(&url).await.unwrap();
        let opts = WorkerOptions {
            name: format!("w{w}"),
            lease: Duration::from_secs(30),
            poll_interval: Duration::from_millis(20),
        };
        tasks.push(tokio::spawn(run_worker(
            db,
            handler.clone(),
            opts,
            Arc::new(Metrics::new()),
            Arc::new(Notify::new()),
            rx.clone(),
        )));
    }
    for _ in 0..600 {
        let done: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM jobs WHERE status = 'succeeded'")
            .fetch_one(&db.pool)
            .await
            .unwrap();
        if done == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tx.send(true).unwrap();
    for t in tasks {
        t.await.unwrap();
    }
    let seen = handler.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 200, "every job ran");
    assert!(seen.values().all(|&c| c == 1), "no job ran twice: {seen:?}");
    let owners: Vec<String> = sqlx::query_scalar("SELECT DISTINCT lease_owner FROM jobs")
        .fetch_all(&db.pool)
        .await
        .unwrap();
    assert_eq!(owners.len(), 2, "both workers took part: {owners:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn race_postgres() {
    two_workers_run_each_job_exactly_once(Backend::Postgres).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn race_sqlite() {
    two_workers_run_each_job_exactly_once(Backend::Sqlite).await;
}

async fn dead_worker_job_is_reclaimed_after_lease(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let Some(url) = open(backend, dir.path()).await else {
        return;
    };
    let db = Db::connect(&url).await.unwrap();
    let id = queue::enqueue(&db, &job(1)).await.unwrap();
    let first = queue::claim(&db, "dies", 300).await.unwrap().unwrap();
    assert_eq!((first.id, first.reclaimed), (id, false));
    // The worker "dies": no heartbeat. Before the lease ends nobody else may take the job.
    assert!(queue::claim(&db, "other", 300).await.unwrap().is_none());
    tokio::time::sleep(Duration::from_millis(400)).await;
    let second = queue::claim(&db, "other", 30_000).await.unwrap().unwrap();
    assert_eq!(second.id, id);
    assert!(
        second.reclaimed,
        "the handler is told the previous worker died"
    );
    assert_eq!((second.attempts, second.interruptions), (2, 1));
    // The dead worker's late completion is refused; the new owner's counts.
    assert!(!queue::complete(&db, &first).await.unwrap());
    assert!(!queue::heartbeat(&db, &first, 1000).await.unwrap());
    // Nor may its late failure put the job back in the queue or fail it.
    assert_eq!(
        queue::fail(&db, &first, true, "late").await.unwrap(),
        "lease_lost"
    );
    assert_eq!(
        queue::fail(&db, &first, false, "late").await.unwrap(),
        "lease_lost"
    );
    assert!(queue::complete(&db, &second).await.unwrap());
}

#[tokio::test]
async fn reclaim_postgres() {
    dead_worker_job_is_reclaimed_after_lease(Backend::Postgres).await;
}

#[tokio::test]
async fn reclaim_sqlite() {
    dead_worker_job_is_reclaimed_after_lease(Backend::Sqlite).await;
}

async fn transient_failures_back_off_then_give_up(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let Some(url) = open(backend, dir.path()).await else {
        return;
    };
    let db = Db::connect(&url).await.unwrap();
    let id = queue::enqueue(&db, &job(1)).await.unwrap();
    let j = queue::claim(&db, "w", 30_000).await.unwrap().unwrap();
    assert_eq!(
        queue::fail(&db, &j, true, "GitHub 502").await.unwrap(),
        "retrying"
    );
    assert!(
        queue::claim(&db, "w", 30_000).await.unwrap().is_none(),
        "backoff delays the retry"
    );
    // Make it due, then exhaust the attempts.
    for attempt in 2..=3 {
        sqlx::query("UPDATE jobs SET run_at = 0 WHERE id = $1")
            .bind(id)
            .execute(&db.pool)
            .await
            .unwrap();
        let j = queue::claim(&db, "w", 30_000).await.unwrap().unwrap();
        assert_eq!(j.attempts, attempt);
        let want = if attempt < 3 { "retrying" } else { "failed" };
        assert_eq!(
            queue::fail(&db, &j, true, "GitHub 502").await.unwrap(),
            want
        );
    }
    let rows = queue::recent(&db, 1).await.unwrap();
    assert_eq!(rows[0].status, "failed");
    assert_eq!(rows[0].last_error.as_deref(), Some("GitHub 502"));
    let id2 = queue::enqueue(&db, &job(2)).await.unwrap();
    let j = queue::claim(&db, "w", 30_000).await.unwrap().unwrap();
    assert_eq!(j.id, id2);
    assert_eq!(
        queue::fail(&db, &j, false, "bad payload").await.unwrap(),
        "failed",
        "permanent errors are not retried"
    );
}

#[tokio::test]
async fn retry_postgres() {
    transient_failures_back_off_then_give_up(Backend::Postgres).await;
}

#[tokio::test]
async fn retry_sqlite() {
    transient_failures_back_off_then_give_up(Backend::Sqlite).await;
}

async fn group_commit_dedupes_within_and_across_batches(backend: Backend) {
    use tfgate::db::deliveries::{record_deliveries, DeliveryOutcome, NewDelivery};
    let dir = tempfile::tempdir().unwrap();
    let Some(url) = open(backend, dir.path()).await else {
        return;
    };
    let db = Db::connect(&url).await.unwrap();
    let d = |id: &str| NewDelivery {
        id: id.into(),
        event: "issue_comment".into(),
        action: Some("created".into()),
        repo: Some("o/r".into()),
        installation_id: Some(1),
        jobs: vec![job(1)],
    };
    let first = record_deliveries(&db, &[&d("b")]).await.unwrap();
    assert_eq!(first, vec![DeliveryOutcome::Enqueued(1)]);
    let second = record_deliveries(&db, &[&d("a"), &d("a"), &d("b"), &d("c")])
        .await
        .unwrap();
    assert_eq!(
        second,
        vec![
            DeliveryOutcome::Enqueued(1),
            DeliveryOutcome::Duplicate,
            DeliveryOutcome::Duplicate,
            DeliveryOutcome::Enqueued(1)
        ]
    );
    let jobs: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM jobs")
        .fetch_one(&db.pool)
        .await
        .unwrap();
    assert_eq!(jobs, 3, "one job per new delivery");
}

#[tokio::test]
async fn group_commit_postgres() {
    group_commit_dedupes_within_and_across_batches(Backend::Postgres).await;
}

#[tokio::test]
async fn group_commit_sqlite() {
    group_commit_dedupes_within_and_across_batches(Backend::Sqlite).await;
}

/// On a SQLite file, intake writes through a connection of its own (`db::sqlite_intake`): the
/// same batches give the same outcomes and the same rows as the pool writer.
#[tokio::test]
async fn sqlite_intake_connection_writes_what_the_pool_writer_writes() {
    use tfgate::db::deliveries::{record_deliveries, NewDelivery};
    use tfgate::db::sqlite_intake::SqliteIntake;
    let d = |id: &str, jobs: Vec<NewJob>| NewDelivery {
        id: id.into(),
        event: "issue_comment".into(),
        action: Some("created".into()),
        repo: Some("o/r".into()),
        installation_id: Some(7),
        jobs,
    };
    let batches = vec![
        vec![d("b", vec![job(1)])],
        vec![
            d("a", vec![job(2), job(3)]),
            d("a", vec![job(4)]),
            d("b", vec![job(5)]),
            d("c", vec![]),
        ],
    ];
    let (pool_dir, own_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let pool_db = Db::connect(&open(Backend::Sqlite, pool_dir.path()).await.unwrap())
        .await
        .unwrap();
    let own_db = Db::connect(&open(Backend::Sqlite, own_dir.path()).await.unwrap())
        .await
        .unwrap();
    let mut intake = SqliteIntake::open(own_db.sqlite_file().unwrap()).unwrap();
    for batch in &batches {
        let refs: Vec<&NewDelivery> = batch.iter().collect();
        let by_pool = record_deliveries(&pool_db, &refs).await.unwrap();
        let by_own = intake.record(&refs, tfgate::db::now_ms()).unwrap();
        assert_eq!(by_own, by_pool);
    }
    type JobRow = (String, String, String, i64, String, String, i64, i64);
    async fn rows(db: &Db) -> Vec<String> {
        let jobs: Vec<JobRow> = sqlx::query_as(
            "SELECT kind, delivery_id, repo, pr, payload, status, attempts, max_attempts \
             FROM jobs ORDER BY id",
        )
        .fetch_all(&db.pool)
        .await
        .unwrap();
        let deliveries: Vec<(String, String, String, String, i64)> = sqlx::query_as(
            "SELECT id, event, action, repo, installation_id FROM deliveries ORDER BY id",
        )
        .fetch_all(&db.pool)
        .await
        .unwrap();
        let mut all: Vec<String> = jobs.iter().map(|r| format!("{r:?}")).collect();
        all.extend(deliveries.iter().map(|r| format!("{r:?}")));
        all
    }
    let written = rows(&own_db).await;
    assert_eq!(written.len(), 3 + 3, "three jobs and three deliveries");
    assert_eq!(written, rows(&pool_db).await);
}
