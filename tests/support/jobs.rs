//! Driving the queue as a worker would, for scenarios whose jobs fail on purpose.

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
