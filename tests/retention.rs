//! Retention on SQLite and PostgreSQL: old finished jobs and old deliveries go, plan files and
//! logs of old runs are dropped, and nothing still needed (queued or running work, recent
//! deliveries a redelivery must still match, run rows) is touched.

mod support;

use support::*;
use tfgate::db::retention::{cutoff_ms, prune, Pruned};
use tfgate::db::{deliveries::delivery_exists, now_ms, Db};

const DAY: i64 = 24 * 60 * 60 * 1000;

struct Rows<'a>(&'a Db);

impl Rows<'_> {
    /// A delivery received `received` and its one job, last updated `updated`.
    async fn delivery_with_job(&self, id: &str, received: i64, status: &str, updated: i64) -> i64 {
        sqlx::query(
            "INSERT INTO deliveries (id, event, action, repo, installation_id, received_at) \
             VALUES ($1, 'issue_comment', 'created', 'o/r', 1, $2)",
        )
        .bind(id)
        .bind(received)
        .execute(&self.0.pool)
        .await
        .unwrap();
        sqlx::query_scalar(
            "INSERT INTO jobs (kind, delivery_id, repo, pr, payload, status, attempts, \
               max_attempts, run_at, created_at, updated_at) \
             VALUES ('comment', $1, 'o/r', 1, '{}', $2, 1, 5, $3, $3, $4) RETURNING id",
        )
        .bind(id)
        .bind(status)
        .bind(received)
        .bind(updated)
        .fetch_one(&self.0.pool)
        .await
        .unwrap()
    }

    /// A run of `job`, finished at `finished` (`None`: still running), with a plan and a log.
    async fn run(&self, job: i64, finished: Option<i64>) -> i64 {
        sqlx::query_scalar(
            "INSERT INTO runs (job_id, repo, pr, project, dir, workspace, command, actor, \
               head_sha, status, plan_blob, raw_log, created_at, finished_at) \
             VALUES ($1, 'o/r', 1, 'p', '.', 'default', 'plan', 'a', 'abc', $2, $3, $3, 0, $4) \
             RETURNING id",
        )
        .bind(job)
        .bind(if finished.is_some() {
            "succeeded"
        } else {
            "running"
        })
        .bind(b"sealed".to_vec())
        .bind(finished)
        .fetch_one(&self.0.pool)
        .await
        .unwrap()
    }

    async fn job_exists(&self, id: i64) -> bool {
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM jobs WHERE id = $1")
            .bind(id)
            .fetch_one(&self.0.pool)
            .await
            .unwrap();
        n == 1
    }

    /// (job_id, has plan, has log) of a run.
    async fn run_row(&self, id: i64) -> (Option<i64>, bool, bool) {
        let (job, plan, log): (Option<i64>, i64, i64) = sqlx::query_as(
            "SELECT job_id, CASE WHEN plan_blob IS NULL THEN 0 ELSE 1 END, \
               CASE WHEN raw_log IS NULL THEN 0 ELSE 1 END FROM runs WHERE id = $1",
        )
        .bind(id)
        .fetch_one(&self.0.pool)
        .await
        .unwrap();
        (job, plan == 1, log == 1)
    }
}

/// The jobs and runs [`Rows::seed`] wrote.
struct Seeded {
    old_done: i64,
    old_run: i64,
    old_queued: i64,
    old_running: i64,
    stuck_run: i64,
    late_dead: i64,
    recent_done: i64,
    recent_run: i64,
}

impl Rows<'_> {
    /// Deliveries and jobs old and recent, finished and not, some with runs, and more than one
    /// batch of old finished work.
    async fn seed(&self, old: i64, recent: i64) -> Seeded {
        let old_done = self
            .delivery_with_job("old-done", old, "succeeded", old)
            .await;
        let old_run = self.run(old_done, Some(old)).await;
        let old_queued = self
            .delivery_with_job("old-queued", old, "queued", old)
            .await;
        let old_running = self
            .delivery_with_job("old-running", old, "running", old)
            .await;
        let stuck_run = self.run(old_running, None).await;
        let late_dead = self
            .delivery_with_job("old-dead-late", old, "dead", recent)
            .await;
        let recent_done = self
            .delivery_with_job("recent-done", recent, "succeeded", recent)
            .await;
        let recent_run = self.run(recent_done, Some(recent)).await;
        // More than one batch of old finished work.
        for i in 0..1_100 {
            self.delivery_with_job(&format!("bulk-{i}"), old, "failed", old)
                .await;
        }
        Seeded {
            old_done,
            old_run,
            old_queued,
            old_running,
            stuck_run,
            late_dead,
            recent_done,
            recent_run,
        }
    }

    /// Handled comments (one old, one recent) and publications.
    async fn comments_and_publications(&self, old: i64, recent: i64) {
        // Handled comments: one old, one recent.
        for (comment_id, at) in [(1, old), (2, recent)] {
            sqlx::query(
                "INSERT INTO handled_comments (repo, comment_id, actor, job_id, commands, at) \
                 VALUES ('o/r', $1, 'alice', 1, 1, $2)",
            )
            .bind(comment_id)
            .bind(at)
            .execute(&self.0.pool)
            .await
            .unwrap();
        }

        // Publications: published long ago (pruned), published recently, never published (kept).
        for (job_id, published) in [(1, Some(old)), (2, Some(recent)), (3, None)] {
            sqlx::query(
                "INSERT INTO publications (job_id, repo, pr, command, head_sha, result, created_at, \
                 published_at) VALUES ($1, 'o/r', 1, 'plan', 'abc', '{}', $2, $3)",
            )
            .bind(job_id)
            .bind(old)
            .bind(published)
            .execute(&self.0.pool)
            .await
            .unwrap();
        }
    }
}

async fn prunes_only_what_is_old_and_finished(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let Some(url) = fresh_database(backend, dir.path()).await else {
        return;
    };
    let db = Db::open(&url).await.unwrap();
    let rows = Rows(&db);
    let now = now_ms();
    let (old, recent) = (now - 40 * DAY, now - DAY);

    let Seeded {
        old_done,
        old_run,
        old_queued,
        old_running,
        stuck_run,
        late_dead,
        recent_done,
        recent_run,
    } = rows.seed(old, recent).await;
    rows.comments_and_publications(old, recent).await;

    let pruned = prune(&db, cutoff_ms(now, 30)).await.unwrap();
    assert_eq!(
        pruned,
        Pruned {
            jobs: 1_101,
            deliveries: 1_104,
            run_blobs: 1,
            handled_comments: 1,
            publications: 1,
        }
    );
    let kept: Vec<i64> = sqlx::query_scalar("SELECT job_id FROM publications ORDER BY job_id")
        .fetch_all(&db.pool)
        .await
        .unwrap();
    assert_eq!(kept, vec![2, 3], "recent and unpublished publications stay");
    let kept: Vec<i64> = sqlx::query_scalar("SELECT comment_id FROM handled_comments")
        .fetch_all(&db.pool)
        .await
        .unwrap();
    assert_eq!(kept, vec![2], "the recent record stays");
    assert!(!rows.job_exists(old_done).await);
    assert!(!delivery_exists(&db, "old-done").await.unwrap());
    assert!(!delivery_exists(&db, "bulk-1099").await.unwrap());
    // The run row stays, without its link to the deleted job, its plan file or its log.
    assert_eq!(rows.run_row(old_run).await, (None, false, false));
    // Waiting or running work and what finished recently are kept; deliveries go by when they
    // were received (a job does not need its delivery row).
    for job in [old_queued, old_running, late_dead, recent_done] {
        assert!(rows.job_exists(job).await, "job {job}");
    }
    for (delivery, kept) in [
        ("old-queued", false),
        ("old-running", false),
        ("old-dead-late", false),
        ("recent-done", true),
    ] {
        assert_eq!(
            delivery_exists(&db, delivery).await.unwrap(),
            kept,
            "{delivery}"
        );
    }
    assert_eq!(
        rows.run_row(stuck_run).await,
        (Some(old_running), true, true)
    );
    assert_eq!(
        rows.run_row(recent_run).await,
        (Some(recent_done), true, true)
    );

    // A second pass finds nothing.
    assert!(prune(&db, cutoff_ms(now, 30)).await.unwrap().is_empty());
}

#[tokio::test]
async fn retention_on_sqlite() {
    prunes_only_what_is_old_and_finished(Backend::Sqlite).await;
}

#[tokio::test]
async fn retention_on_postgres() {
    prunes_only_what_is_old_and_finished(Backend::Postgres).await;
}

// The server's hourly pass, through the real intake: a delivery's job runs, a month and a half
// passes, and the pass forgets both and counts them on `/metrics`; a recent delivery stays.
scenario!(hourly_pass_forgets_old_deliveries_and_counts_them, |h| {
    let (status, _) = h
        .deliver("issue_comment", &pr_comment("/help", "alice"))
        .await;
    assert_eq!(status, 202);
    h.run_jobs().await;
    let old = now_ms() - 45 * DAY;
    for sql in [
        "UPDATE deliveries SET received_at = $1",
        "UPDATE jobs SET created_at = $1, updated_at = $1",
    ] {
        sqlx::query(sql)
            .bind(old)
            .execute(&h.state.db.pool)
            .await
            .unwrap();
    }
    let (status, _) = h
        .deliver("issue_comment", &pr_comment("/help", "bob"))
        .await;
    assert_eq!(status, 202);
    let pruned = tfgate::server::retention_pass(&h.state, 30).await.unwrap();
    assert_eq!((pruned.jobs, pruned.deliveries), (1, 1));
    assert_eq!(h.job_count().await, 1, "the recent delivery's job stays");
    let metrics = h.metrics().await;
    assert!(
        metrics.contains("tfgate_pruned_rows_total{table=\"jobs\"} 1"),
        "{metrics}"
    );
    assert!(metrics.contains("tfgate_pruned_rows_total{table=\"deliveries\"} 1"));
});
