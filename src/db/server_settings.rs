//! Named values shared by every tfgate process on this database (`server_settings`): the
//! sealing key's fingerprint and the sealed App credentials. Stores text; decides nothing.

use anyhow::{Context, Result};

use super::{now_ms, Db};

/// The value stored under `name`, if any.
pub async fn get(db: &Db, name: &str) -> Result<Option<String>> {
    sqlx::query_scalar("SELECT value FROM server_settings WHERE name = $1")
        .bind(name)
        .fetch_optional(&db.pool)
        .await
        .with_context(|| format!("reading server setting {name}"))
}

/// Stores `value` under `name` unless a value is there already; returns the stored value
/// (the first writer wins when processes start together).
pub async fn insert_if_absent(db: &Db, name: &str, value: &str) -> Result<String> {
    sqlx::query(
        "INSERT INTO server_settings (name, value, updated_at) VALUES ($1, $2, $3) \
         ON CONFLICT (name) DO NOTHING",
    )
    .bind(name)
    .bind(value)
    .bind(now_ms())
    .execute(&db.pool)
    .await
    .with_context(|| format!("storing server setting {name}"))?;
    get(db, name)
        .await?
        .with_context(|| format!("server setting {name} vanished after it was stored"))
}

/// Replaces `expected` with `value` under `name`; false when another process changed it
/// first (so exactly one of several processes acts on a change).
pub async fn compare_and_set(db: &Db, name: &str, expected: &str, value: &str) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE server_settings SET value = $1, updated_at = $2 WHERE name = $3 AND value = $4",
    )
    .bind(value)
    .bind(now_ms())
    .bind(name)
    .bind(expected)
    .execute(&db.pool)
    .await
    .with_context(|| format!("updating server setting {name}"))?;
    Ok(done.rows_affected() == 1)
}

/// Stores `value` under `name`, replacing any previous value.
pub async fn put(db: &Db, name: &str, value: &str) -> Result<()> {
    sqlx::query(
        "INSERT INTO server_settings (name, value, updated_at) VALUES ($1, $2, $3) \
         ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
    )
    .bind(name)
    .bind(value)
    .bind(now_ms())
    .execute(&db.pool)
    .await
    .with_context(|| format!("storing server setting {name}"))?;
    Ok(())
}
