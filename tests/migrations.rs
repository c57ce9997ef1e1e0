//! Upgrading a database that already holds data: migration 0004 drops the foreign key from jobs
//! to deliveries (SQLite rebuilds `jobs` for it) and must keep every job, its id sequence and the
//! runs' links to their jobs. On SQLite and PostgreSQL.

mod support;

use std::borrow::Cow;

use sqlx::migrate::Migrator;
use support::{fresh_database, Backend};
use tfgate::db::Db;

async fn exec(db: &Db, sql: &str) -> Result<sqlx::any::AnyQueryResult, sqlx::Error> {
    sqlx::query(sql).execute(&db.pool).await
}

async fn upgrade_keeps_jobs_and_run_links(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let Some(url) = fresh_database(backend, dir.path()).await else {
        return;
    };
    let folder = match backend {
        Backend::Sqlite => "migrations/sqlite",
        Backend::Postgres => "migrations/postgres",
    };
    let all = Migrator::new(std::path::Path::new(folder)).await.unwrap();
    let before = Migrator {
        migrations: Cow::Owned(all.migrations.iter().take(3).cloned().collect()),
        ..Migrator::DEFAULT
    };
    let db = Db::connect(&url).await.unwrap();
    before.run(&db.pool).await.unwrap();
    exec(
        &db,
        "INSERT INTO deliveries (id, event, received_at) VALUES ('d1', 'issue_comment', 1)",
    )
    .await
    .unwrap();
    let job_id: i64 = sqlx::query_scalar(
        "INSERT INTO jobs (kind, delivery_id, payload, status, max_attempts, run_at, \
           created_at, updated_at) VALUES ('comment', 'd1', '{}', 'succeeded', 5, 1, 1, 1) \
         RETURNING id",
    )
    .fetch_one(&db.pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO runs (job_id, repo, pr, project, dir, workspace, command, actor, head_sha, \
           status, created_at) VALUES ($1, 'o/r', 1, 'p', '.', 'default', 'plan', 'a', 'abc', \
           'succeeded', 1)",
    )
    .bind(job_id)
    .execute(&db.pool)
    .await
    .unwrap();
    // Before: the delivery cannot go while its job refers to it.
    assert!(exec(&db, "DELETE FROM deliveries WHERE id = 'd1'")
        .await
        .is_err());

    // The rest of the migrations, as `Db::open` applies them at start. On the same `Db`: a
    // second one would race the first one's closing WAL checkpoint (SQLITE_BUSY, seen in CI).
    db.migrate().await.unwrap();
    let job: (i64, Option<String>, String) =
        sqlx::query_as("SELECT id, delivery_id, status FROM jobs")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!(job, (job_id, Some("d1".into()), "succeeded".into()));
    let linked: Option<i64> = sqlx::query_scalar("SELECT job_id FROM runs")
        .fetch_one(&db.pool)
        .await
        .unwrap();
    assert_eq!(linked, Some(job_id));
    // After: the delivery can go, new jobs continue the id sequence, runs still need real jobs.
    exec(&db, "DELETE FROM deliveries WHERE id = 'd1'")
        .await
        .unwrap();
    let next: i64 = sqlx::query_scalar(
        "INSERT INTO jobs (kind, payload, status, max_attempts, run_at, created_at, updated_at) \
         VALUES ('comment', '{}', 'queued', 5, 1, 1, 1) RETURNING id",
    )
    .fetch_one(&db.pool)
    .await
    .unwrap();
    assert!(next > job_id, "{next}");
    assert!(exec(
        &db,
        "INSERT INTO runs (job_id, repo, pr, project, dir, workspace, command, actor, head_sha, \
           status, created_at) VALUES (9999, 'o/r', 1, 'p', '.', 'default', 'plan', 'a', 'abc', \
           'succeeded', 1)"
    )
    .await
    .is_err());
}

#[tokio::test]
async fn upgrade_on_sqlite() {
    upgrade_keeps_jobs_and_run_links(Backend::Sqlite).await;
}

#[tokio::test]
async fn upgrade_on_postgres() {
    upgrade_keeps_jobs_and_run_links(Backend::Postgres).await;
}
