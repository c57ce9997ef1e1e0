//! Shared server state: configuration, database, metrics, intake writer, GitHub App.

use std::sync::{Arc, RwLock};

use anyhow::{Context, Result};
use secrecy::SecretString;
use tokio::sync::Notify;

use crate::config::Config;
use crate::db::Db;
use crate::github::{AppCredentials, GitHubApp};
use crate::metrics::Metrics;
use crate::policy_repo::store::PolicyStore;
use crate::render::Renderer;
use crate::webhook::intake::IntakeWriter;

pub struct AppState {
    pub config: Config,
    pub db: Db,
    pub metrics: Arc<Metrics>,
    pub intake: IntakeWriter,
    /// Notified when jobs are enqueued, so idle embedded workers start at once.
    pub wake: Arc<Notify>,
    /// Admin policies from the server's policy directory (reloaded on SIGHUP).
    pub policies: PolicyStore,
    /// Seals plan files and raw logs at rest.
    pub seal_key: Arc<crate::crypto::SealKey>,
    /// The comment templates (defaults plus `template_dir` overrides), compiled once.
    pub renderer: Arc<Renderer>,
    /// Terraform and OpenTofu releases installed on demand (`DATA_DIR/tools`).
    pub releases: Arc<crate::tool_release::ReleaseSource>,
    aws_base: tokio::sync::OnceCell<aws_config::SdkConfig>,
    github: RwLock<Option<Arc<GitHubApp>>>,
    secrets: RwLock<Arc<[SecretString]>>,
    /// The one-time setup token and the setup forms' states.
    pub setup: crate::github::manifest::SetupGuard,
    /// The last start-up/periodic checks (the doctor fills them), for `/readyz`.
    readiness: RwLock<Option<Arc<crate::model::readiness::Report>>>,
}

impl AppState {
    /// Open the database (migrating it) and load App credentials if any are configured.
    /// On PostgreSQL a configured sealing key is required, and on every backend the key must
    /// be the one the database was first used with (see [`crate::crypto::key_check`]).
    pub async fn build(config: Config) -> Result<Arc<AppState>> {
        crate::crypto::key_check::require_configured_key(
            config.is_postgres(),
            config.encryption_key.is_some(),
        )?;
        std::fs::create_dir_all(&config.data_dir)
            .with_context(|| format!("creating data directory {}", config.data_dir.display()))?;
        let db = Db::open(&config.database_url).await?;
        let state = Self::with_db(config, db)?;
        state.check_seal_key().await?;
        state.share_app_credentials().await?;
        Ok(state)
    }

    /// Stores the key's fingerprint at first start; refuses a key the database does not know.
    pub async fn check_seal_key(&self) -> Result<()> {
        use crate::crypto::key_check::{judge_key, KeyCheck, KEY_CHECK_SETTING};
        use crate::db::server_settings;
        let current = self.seal_key.fingerprint();
        let stored = server_settings::get(&self.db, KEY_CHECK_SETTING).await?;
        if judge_key(stored.as_deref(), &current)? == KeyCheck::FirstUse {
            let stored =
                server_settings::insert_if_absent(&self.db, KEY_CHECK_SETTING, &current).await?;
            judge_key(Some(&stored), &current)?;
        }
        Ok(())
    }

    /// Makes the manifest flow's credentials the same on every process: a process without
    /// configured credentials takes the database's; credentials only in this machine's file
    /// (from before they were kept in the database) are copied there.
    pub async fn share_app_credentials(&self) -> Result<()> {
        use crate::github::credentials_store;
        if crate::config::app_key(&self.config)?.is_some() {
            return Ok(());
        }
        if self.github().is_none() {
            self.adopt_stored_app().await?;
        } else if credentials_store::load(&self.db, &self.seal_key)
            .await?
            .is_none()
        {
            if let Some(creds) = AppCredentials::load(&self.config.data_dir)? {
                credentials_store::save(&self.db, &self.seal_key, &creds).await?;
            }
        }
        Ok(())
    }

    /// Installs the App credentials sealed in the database, when this process has none yet;
    /// true when it now has an App.
    pub async fn adopt_stored_app(&self) -> Result<bool> {
        if self.github().is_some() {
            return Ok(true);
        }
        match crate::github::credentials_store::load(&self.db, &self.seal_key).await? {
            Some(creds) => {
                self.install_app(&creds)?;
                tracing::info!(
                    app_id = creds.id,
                    "GitHub App credentials loaded from the database"
                );
                Ok(true)
            }
            None => Ok(false),
        }
    }

    pub fn with_db(config: Config, db: Db) -> Result<Arc<AppState>> {
        let renderer = Arc::new(renderer_for(&config)?);
        let policies = match &config.policy_repo {
            Some(_) => PolicyStore::from_repository(),
            None => PolicyStore::open(
                &config.policy_dir,
                crate::policy_repo::store::protected_paths(&config),
            )?,
        };
        let seal_key = Arc::new(
            crate::crypto::load_or_create_key(&config.data_dir, config.encryption_key.as_ref())
                .context("loading the encryption key")?,
        );
        let metrics = Arc::new(Metrics::new());
        let wake = Arc::new(Notify::new());
        let intake = IntakeWriter::start(db.clone(), metrics.clone(), wake.clone());
        let (github, file_secret) = load_app(&config)?;
        let mut secrets = config.webhook_secrets.clone();
        if let Some(s) = file_secret {
            secrets.push(SecretString::from(s));
        }
        let releases = Arc::new(release_source(&config)?);
        Ok(Arc::new(AppState {
            releases,
            config,
            db,
            metrics,
            intake,
            wake,
            policies,
            seal_key,
            renderer,
            aws_base: tokio::sync::OnceCell::new(),
            github: RwLock::new(github.map(Arc::new)),
            secrets: RwLock::new(secrets.into()),
            setup: crate::github::manifest::SetupGuard::new(),
            readiness: RwLock::new(None),
        }))
    }

    pub fn aws_settings(&self) -> crate::aws::AwsSettings {
        crate::aws::AwsSettings {
            region: self.config.aws_region.clone(),
            endpoint_url: self.config.aws_endpoint_url.clone(),
        }
    }

    /// The base AWS configuration (standard credential chain), loaded once.
    pub async fn aws_base(&self) -> &aws_config::SdkConfig {
        self.aws_base
            .get_or_init(|| async { crate::aws::load_base_config(&self.aws_settings()).await })
            .await
    }

    /// The secrets a delivery may be signed with (shared, not copied: read on every delivery).
    pub fn webhook_secrets(&self) -> Arc<[SecretString]> {
        Arc::clone(&self.secrets.read().expect("secrets lock"))
    }

    pub fn github(&self) -> Option<Arc<GitHubApp>> {
        self.github.read().expect("github lock").clone()
    }

    /// The bot's `@name`: the App slug once known, else the configured one.
    pub fn app_slug(&self) -> String {
        self.github()
            .map(|g| g.slug.clone())
            .unwrap_or_else(|| self.config.app_slug.clone())
    }

    /// The last readiness report (none before the first checks finished).
    pub fn readiness(&self) -> Option<Arc<crate::model::readiness::Report>> {
        self.readiness.read().expect("readiness lock").clone()
    }

    pub fn set_readiness(&self, report: crate::model::readiness::Report) {
        *self.readiness.write().expect("readiness lock") = Some(Arc::new(report));
    }

    /// Install credentials obtained by the manifest flow, without a restart.
    pub fn install_app(&self, creds: &AppCredentials) -> Result<()> {
        let app = GitHubApp::new(
            creds.id,
            creds.slug.clone(),
            &SecretString::from(creds.pem.clone()),
            &self.config.github_api_url,
        )?
        .with_call_policy(call_policy(&self.config));
        *self.github.write().expect("github lock") = Some(Arc::new(app));
        if let Some(s) = &creds.webhook_secret {
            let mut secrets = self.secrets.write().expect("secrets lock");
            let mut list = secrets.to_vec();
            list.push(SecretString::from(s.clone()));
            *secrets = list.into();
        }
        Ok(())
    }
}

/// The renderer of `config.template_dir`'s overrides over the embedded templates; a broken
/// or missing override directory stops start-up with the file (and line) to fix.
pub fn renderer_for(config: &Config) -> Result<Renderer> {
    Renderer::with_template_dir(config.template_dir.as_deref())
        .context("loading the comment templates (TFGATE_TEMPLATE_DIR)")
}

/// How the App's GitHub calls are made: the configured deadline, the default retries.
fn call_policy(config: &Config) -> crate::github::CallPolicy {
    crate::github::CallPolicy {
        timeout: config.github_timeout,
        ..Default::default()
    }
}

/// App credentials from configuration (id + key file) or from the manifest flow's file.
fn load_app(config: &Config) -> Result<(Option<GitHubApp>, Option<String>)> {
    if let Some((id, pem)) = crate::config::app_key(config)? {
        let app = GitHubApp::new(id, config.app_slug.clone(), &pem, &config.github_api_url)?
            .with_call_policy(call_policy(config));
        return Ok((Some(app), None));
    }
    match AppCredentials::load(&config.data_dir)? {
        Some(creds) => {
            let app = GitHubApp::new(
                creds.id,
                creds.slug.clone(),
                &SecretString::from(creds.pem.clone()),
                &config.github_api_url,
            )?
            .with_call_policy(call_policy(config));
            Ok((Some(app), creds.webhook_secret))
        }
        None => Ok((None, None)),
    }
}

/// The release source of [`AppState::releases`]: the configured keys or the shipped ones.
pub fn release_source(config: &Config) -> Result<crate::tool_release::ReleaseSource> {
    use crate::tool_release::{Keyring, ReleaseSource};
    let keyring = match &config.releases.keys {
        Some(text) => Keyring::from_armored(text).map_err(anyhow::Error::msg)?,
        None => Keyring::shipped(),
    };
    Ok(ReleaseSource::new(
        config.releases.mirror.clone(),
        keyring,
        config.data_dir.join("tools"),
    ))
}
