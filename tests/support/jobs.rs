//! Driving the queue as a worker would: every queued job at once (or all but some kinds), for
//! scenarios whose jobs fail on purpose with retries, and waiting for the queue to empty.

use tfgate::db::jobs as queue;
use tfgate::jobs::runner::JobHandler;
use tfgate::jobs::JobError;
use tfgate::worker::JobRouter;

use super::Harness;

/// Run every job as a worker would, retrying transient failures at once (their backoff is
/// skipped by making them due); returns how many handler calls failed transiently.
pub async fn run_jobs_with_retries(h: &Harness) -> usize {
    let router = JobRouter::new(h.state.clone());
    let db = &h.state.db;
    let mut transient = 0;
    for _ in 0..200 {
        let Some(job) = queue::claim(db, "test-worker", 30_000).await.unwrap() else {
            let due = sqlx::query("UPDATE jobs SET run_at = 0 WHERE status = 'queued'")
                .execute(&db.pool)
                .await
                .unwrap();
            if due.rows_affected() == 0 {
                return transient;
            }
            continue;
        };
        match router.handle(&job).await {
            Ok(()) => assert!(queue::complete(db, &job).await.unwrap()),
            Err(JobError::Transient(e)) => {
                transient += 1;
                let error = format!("{e:#}");
                assert_eq!(
                    queue::fail(db, &job, true, &error).await.unwrap(),
                    "retrying"
                );
            }
            Err(JobError::Interrupted(e)) => {
                let error = format!("{e:#}");
                assert!(queue::end_interrupted(db, &job, &error).await.unwrap());
            }
            Err(e) => panic!("job {} ({}) failed: {e}", job.id, job.kind),
        }
    }
    panic!("jobs still queued after 200 claims");
}

impl Harness {
    /// Run queued jobs until none is left; returns how many ran.
    pub async fn run_jobs(&self) -> usize {
        let dispatcher = JobRouter::new(self.state.clone());
        let mut n = 0;
        while let Some(job) = queue::claim(&self.state.db, "test-worker", 30_000)
            .await
            .unwrap()
        {
            match dispatcher.handle(&job).await {
                Ok(()) => {
                    queue::complete(&self.state.db, &job).await.unwrap();
                }
                Err(tfgate::jobs::JobError::Interrupted(e)) => {
                    let error = format!("{e:#}");
                    queue::end_interrupted(&self.state.db, &job, &error)
                        .await
                        .unwrap();
                }
                Err(e) => panic!("job {} ({}) failed: {e}", job.id, job.kind),
            }
            n += 1;
        }
        n
    }

    /// Run queued jobs, but drop (complete without running) those of the given kinds: policy
    /// scenarios stop where Terraform would start.
    pub async fn run_jobs_except(&self, skip: &[&str]) -> usize {
        let dispatcher = JobRouter::new(self.state.clone());
        let mut n = 0;
        while let Some(job) = queue::claim(&self.state.db, "test-worker", 30_000)
            .await
            .unwrap()
        {
            if !skip.contains(&job.kind.as_str()) {
                if let Err(e) = dispatcher.handle(&job).await {
                    panic!("job {} ({}) failed: {e}", job.id, job.kind);
                }
                n += 1;
            }
            queue::complete(&self.state.db, &job).await.unwrap();
        }
        n
    }

    /// Wait (up to 300 s) until no job is queued or running.
    pub async fn wait_idle(&self) {
        for _ in 0..30_000 {
            let busy: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM jobs WHERE status IN ('queued', 'running')",
            )
            .fetch_one(&self.state.db.pool)
            .await
            .unwrap();
            if busy == 0 {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        panic!("jobs still running after 300 s");
    }

    /// How many jobs of a kind were enqueued.
    pub async fn jobs_of(&self, kind: &str) -> i64 {
        sqlx::query_scalar("SELECT COUNT(*) FROM jobs WHERE kind = $1")
            .bind(kind)
            .fetch_one(&self.state.db.pool)
            .await
            .unwrap()
    }

    pub async fn job_count(&self) -> i64 {
        sqlx::query_scalar("SELECT COUNT(*) FROM jobs")
            .fetch_one(&self.state.db.pool)
            .await
            .unwrap()
    }
}

impl Harness {
    /// Run queued jobs with `workers` concurrent workers (as `serve --workers N` would) until
    /// none is queued or running; returns how many ran.
    pub async fn run_jobs_concurrently(&self, workers: usize) -> usize {
        let ran = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let tasks: Vec<_> = (0..workers)
            .map(|w| {
                let state = self.state.clone();
                let ran = ran.clone();
                tokio::spawn(
                    async move { work_until_idle(state, &format!("worker-{w}"), &ran).await },
                )
            })
            .collect();
        for t in tasks {
            t.await.unwrap();
        }
        ran.load(std::sync::atomic::Ordering::SeqCst)
    }
}

async fn work_until_idle(
    state: std::sync::Arc<tfgate::state::AppState>,
    owner: &str,
    ran: &std::sync::atomic::AtomicUsize,
) {
    let router = JobRouter::new(state.clone());
    let db = &state.db;
    loop {
        let Some(job) = queue::claim(db, owner, 30_000).await.unwrap() else {
            let busy: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM jobs WHERE status IN ('queued', 'running')",
            )
            .fetch_one(&db.pool)
            .await
            .unwrap();
            if busy == 0 {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            continue;
        };
        match router.handle(&job).await {
            Ok(()) => {
                queue::complete(db, &job).await.unwrap();
            }
            Err(JobError::Transient(e)) => {
                // e.g. another publish is creating the batch's comment: due again at once.
                queue::fail(db, &job, true, &format!("{e:#}"))
                    .await
                    .unwrap();
                sqlx::query("UPDATE jobs SET run_at = 0 WHERE id = $1")
                    .bind(job.id)
                    .execute(&db.pool)
                    .await
                    .unwrap();
            }
            Err(e) => panic!("job {} ({}) failed: {e}", job.id, job.kind),
        }
        ran.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}
