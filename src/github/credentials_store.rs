//! The manifest flow's App credentials, sealed in the database so that every process (workers
//! on other machines too) uses the same App, not only the machine whose volume has the file.

use anyhow::{Context, Result};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use super::AppCredentials;
use crate::crypto::{open, seal, SealKey};
use crate::db::{server_settings, Db};

/// The `server_settings` name of the sealed credentials.
pub const APP_CREDENTIALS_SETTING: &str = "github_app_credentials";
/// Associated data binding the sealed blob to its purpose.
const AAD: &[u8] = b"tfgate github app credentials v1";

/// Seals `creds` into the database, replacing what was there.
pub async fn save(db: &Db, key: &SealKey, creds: &AppCredentials) -> Result<()> {
    let json = serde_json::to_vec(creds).context("encoding the App credentials")?;
    let sealed = STANDARD.encode(seal(key, &json, AAD));
    server_settings::put(db, APP_CREDENTIALS_SETTING, &sealed).await
}

/// The credentials sealed in the database, if any.
pub async fn load(db: &Db, key: &SealKey) -> Result<Option<AppCredentials>> {
    let Some(text) = server_settings::get(db, APP_CREDENTIALS_SETTING).await? else {
        return Ok(None);
    };
    let sealed = STANDARD
        .decode(text.trim())
        .context("the stored App credentials are not base64")?;
    let json = open(key, &sealed, AAD).context("opening the stored App credentials")?;
    let creds = serde_json::from_slice(&json).context("parsing the stored App credentials")?;
    Ok(Some(creds))
}
