//! `tfgate logs RUN_ID`: an admin reads a run's raw Terraform output, stored sealed (it may
//! hold provider text, ARNs and values that are never posted to a PR).

use anyhow::{Context, Result};

use crate::config::Config;
use crate::crypto::{load_or_create_key, open, run_aad, BlobPurpose};
use crate::db::{runs, Db};

pub async fn logs(config: &Config, run_id: i64) -> Result<String> {
    let db = Db::open(&config.database_url).await?;
    let sealed = runs::raw_log(&db, run_id)
        .await?
        .with_context(|| format!("run {run_id} has no stored log"))?;
    let key = load_or_create_key(&config.data_dir, config.encryption_key.as_ref())
        .context("loading the encryption key")?;
    let plain = open(&key, &sealed, &run_aad(run_id, BlobPurpose::RawLog)).map_err(|e| {
        anyhow::anyhow!("the log of run {run_id} cannot be opened with this key: {e}")
    })?;
    Ok(String::from_utf8_lossy(&plain).into_owned())
}
