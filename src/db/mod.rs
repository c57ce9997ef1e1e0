//! Storage: one `AnyPool` over SQLite (default) or PostgreSQL. SQL is written once with `$N`
//! placeholders, which both backends accept; the few statements that differ branch on
//! [`Backend`]. Times are stored as unix epoch milliseconds (`BIGINT`).

pub mod audit;
pub mod checkpoint;
pub mod comments;
pub mod deliveries;
mod held_open;
pub mod inputs;
pub mod jobs;
pub mod locks;
pub mod plan_batches;
pub mod policy_approvals;
pub mod pr_pushes;
pub mod publications;
pub mod retention;
pub mod runs;
pub mod server_settings;
pub mod sqlite_intake;
pub mod stale_plans;
mod wal_read_ahead;

use std::str::FromStr;
use std::time::Duration;

use anyhow::{Context, Result};
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{AnyPool, ConnectOptions, Executor};

use checkpoint::{CheckpointSchedule, Checkpointer};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

#[derive(Clone)]
pub struct Db {
    pub pool: AnyPool,
    pub backend: Backend,
    /// SQLite on a file: its path (webhook intake opens a connection of its own).
    sqlite_file: Option<std::path::PathBuf>,
    /// SQLite on a file: the WAL checkpointer runs while any clone of this is alive.
    _checkpointer: Option<std::sync::Arc<Checkpointer>>,
}

static SQLITE_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

impl Db {
    /// Connect; for SQLite the file (and its directory) is created, WAL is switched on.
    pub async fn connect(url: &str) -> Result<Db> {
        Db::connect_with_checkpoints(url, CheckpointSchedule::DEFAULT).await
    }

    /// [`Db::connect`], with SQLite's WAL checkpointed by `schedule` ([`checkpoint`]).
    pub async fn connect_with_checkpoints(url: &str, schedule: CheckpointSchedule) -> Result<Db> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Backend::Postgres
        } else if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else {
            anyhow::bail!("DATABASE_URL must start with sqlite: or postgres://");
        };
        if backend == Backend::Sqlite {
            if let Some(dir) = sqlite_parent_dir(url) {
                std::fs::create_dir_all(&dir)
                    .with_context(|| format!("creating database directory {dir}"))?;
            }
        }
        let options = AnyConnectOptions::from_str(url)
            .context("parsing DATABASE_URL")?
            .log_statements(tracing::log::LevelFilter::Trace)
            .log_slow_statements(tracing::log::LevelFilter::Warn, Duration::from_secs(2));
        let pool = AnyPoolOptions::new()
            // SQLite has one writer; with several connections, writers wait in SQLite's
            // sleeping busy handler (up to 100 ms a nap). One connection makes them queue in
            // process instead.
            .max_connections(match backend {
                Backend::Sqlite => 1,
                Backend::Postgres => 16,
            })
            .acquire_timeout(Duration::from_secs(10))
            .after_connect(move |conn, _meta| {
                Box::pin(async move {
                    if backend == Backend::Sqlite {
                        conn.execute("PRAGMA busy_timeout = 10000").await?;
                        conn.execute("PRAGMA foreign_keys = ON").await?;
                        conn.execute("PRAGMA synchronous = NORMAL").await?;
                        // Checkpoints run on their own connection ([`checkpoint`]).
                        conn.execute("PRAGMA wal_autocheckpoint = 0").await?;
                    }
                    Ok(())
                })
            })
            .connect_with(options)
            .await
            .context("connecting to the database")?;
        let sqlite_file = (backend == Backend::Sqlite)
            .then(|| sqlite_file_path(url))
            .flatten();
        if backend == Backend::Sqlite {
            sqlx::query("PRAGMA journal_mode = WAL")
                .execute(&pool)
                .await
                .context("switching SQLite to WAL")?;
        }
        let checkpointer = match &sqlite_file {
            Some(path) => Some(std::sync::Arc::new(Checkpointer::start(path, schedule)?)),
            None => None,
        };
        Ok(Db {
            pool,
            backend,
            sqlite_file,
            _checkpointer: checkpointer,
        })
    }

    /// Apply pending migrations of this backend.
    pub async fn migrate(&self) -> Result<()> {
        let migrator = match self.backend {
            Backend::Sqlite => &SQLITE_MIGRATIONS,
            Backend::Postgres => &POSTGRES_MIGRATIONS,
        };
        migrator
            .run(&self.pool)
            .await
            .context("applying database migrations")
    }

    /// Connect and migrate.
    pub async fn open(url: &str) -> Result<Db> {
        let db = Db::connect(url).await?;
        db.migrate().await?;
        Ok(db)
    }

    /// The SQLite database file, when the backend is SQLite on a file.
    pub fn sqlite_file(&self) -> Option<&std::path::Path> {
        self.sqlite_file.as_deref()
    }

    /// Migrations this database has applied and migrations this binary knows.
    pub async fn migration_counts(&self) -> Result<(usize, usize)> {
        let known = match self.backend {
            Backend::Sqlite => SQLITE_MIGRATIONS.iter().count(),
            Backend::Postgres => POSTGRES_MIGRATIONS.iter().count(),
        };
        self.ping().await?;
        // No table yet: nothing applied.
        let applied: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM _sqlx_migrations WHERE success")
                .fetch_one(&self.pool)
                .await
                .unwrap_or(0);
        Ok((applied as usize, known))
    }

    /// `SELECT 1`, for `/healthz`.
    pub async fn ping(&self) -> Result<()> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }
}

/// The file of a `sqlite:` URL; `None` for PostgreSQL and in-memory SQLite.
pub fn sqlite_file_path(url: &str) -> Option<std::path::PathBuf> {
    if !url.starts_with("sqlite:") {
        return None;
    }
    let path = url
        .trim_start_matches("sqlite://")
        .trim_start_matches("sqlite:");
    let path = path.split('?').next().unwrap_or("");
    let in_memory = path.is_empty() || path == ":memory:" || url.contains("mode=memory");
    (!in_memory).then(|| std::path::PathBuf::from(path))
}

fn sqlite_parent_dir(url: &str) -> Option<String> {
    let path = sqlite_file_path(url)?;
    let parent = path.parent()?;
    let s = parent.to_string_lossy().to_string();
    (!s.is_empty()).then_some(s)
}

/// Current time in unix epoch milliseconds.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

#[cfg(test)]
mod query_plans;

/// An in-memory SQLite database with every migration applied, for tests of statements.
#[cfg(test)]
pub(crate) fn migrated_sqlite() -> rusqlite::Connection {
    let conn = rusqlite::Connection::open_in_memory().unwrap();
    for m in SQLITE_MIGRATIONS.iter() {
        conn.execute_batch(&m.sql)
            .unwrap_or_else(|e| panic!("migration {}: {e}", m.version));
    }
    conn
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_parent_dir_is_found() {
        assert_eq!(
            sqlite_parent_dir("sqlite://data/x/tfgate.db?mode=rwc").as_deref(),
            Some("data/x")
        );
        assert_eq!(sqlite_parent_dir("sqlite::memory:"), None);
        assert_eq!(sqlite_parent_dir("sqlite://t.db"), None);
        assert_eq!(
            sqlite_file_path("sqlite:///tmp/x/tfgate.db?mode=rwc"),
            Some("/tmp/x/tfgate.db".into())
        );
        assert_eq!(sqlite_file_path("sqlite::memory:"), None);
        assert_eq!(sqlite_file_path("postgres://tfgate@db/tfgate"), None);
        assert_eq!(
            sqlite_file_path("sqlite://shared?mode=memory&cache=shared"),
            None
        );
    }
}
