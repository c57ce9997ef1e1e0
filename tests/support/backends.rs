//! The two database backends every scenario runs on, a fresh database per test, and the
//! `scenario!` macro that defines a test once per backend.

use tfgate::db::Db;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// The PostgreSQL server for tests, if one is configured. With `TFGATE_REQUIRE_POSTGRES=1`
/// (the README test command sets it) a missing server fails the test instead of skipping.
pub fn postgres_admin_url() -> Option<String> {
    match std::env::var("TFGATE_TEST_DATABASE_URL") {
        Ok(u) if !u.is_empty() => Some(u),
        _ => {
            if std::env::var("TFGATE_REQUIRE_POSTGRES").as_deref() == Ok("1") {
                panic!("TFGATE_TEST_DATABASE_URL is not set but TFGATE_REQUIRE_POSTGRES=1");
            }
            eprintln!("note: TFGATE_TEST_DATABASE_URL unset; PostgreSQL variant skipped");
            None
        }
    }
}

/// A fresh, empty database URL for one test.
pub async fn fresh_database(backend: Backend, dir: &std::path::Path) -> Option<String> {
    match backend {
        Backend::Sqlite => Some(format!("sqlite://{}?mode=rwc", dir.join("t.db").display())),
        Backend::Postgres => {
            let admin = postgres_admin_url()?;
            let name = format!("tfgate_t_{}", uuid::Uuid::new_v4().simple());
            let db = Db::connect(&admin)
                .await
                .expect("connect to test PostgreSQL");
            sqlx::query(&format!("CREATE DATABASE {name}"))
                .execute(&db.pool)
                .await
                .expect("create test database");
            db.pool.close().await;
            let base = admin.rsplit_once('/').map(|(b, _)| b).unwrap_or(&admin);
            Some(format!("{base}/{name}"))
        }
    }
}

/// Define a scenario test twice: on SQLite and on PostgreSQL.
#[macro_export]
macro_rules! scenario {
    ($name:ident, policy = $policy:expr, |$h:ident| $body:block) => {
        mod $name {
            use super::*;
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                let $h = $crate::support::Harness::start_with_policy(
                    $crate::support::Backend::Sqlite,
                    Some($policy),
                )
                .await
                .unwrap();
                $body
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                let Some($h) = $crate::support::Harness::start_with_policy(
                    $crate::support::Backend::Postgres,
                    Some($policy),
                )
                .await
                else {
                    return;
                };
                $body
            }
        }
    };
    ($name:ident, |$h:ident| $body:block) => {
        mod $name {
            use super::*;
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                let $h = $crate::support::Harness::start($crate::support::Backend::Sqlite)
                    .await
                    .unwrap();
                $body
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                let Some($h) =
                    $crate::support::Harness::start($crate::support::Backend::Postgres).await
                else {
                    return;
                };
                $body
            }
        }
    };
}
