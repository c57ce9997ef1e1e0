//! Shared server state: configuration, database, metrics, intake writer, GitHub App.

use std::sync::{Arc, RwLock};

use anyhow::{Context, Result};
use secrecy::SecretString;
use tokio::sync::Notify;

use crate::config::Config;
use crate::db::Db;
use crate::github::{AppCredentials, GitHubApp};
use crate::metrics::Metrics;
use crate::policy::store::PolicyStore;
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
    aws_base: tokio::sync::OnceCell<aws_config::SdkConfig>,
    github: RwLock<Option<Arc<GitHubApp>>>,
    secrets: RwLock<Arc<[SecretString]>>,
    /// The one-time setup token and the setup forms' states.
    pub setup: crate::github::manifest::SetupGuard,
}

impl AppState {
    /// Open the database (migrating it) and load App credentials if any are configured.
    pub async fn build(config: Config) -> Result<Arc<AppState>> {
        std::fs::create_dir_all(&config.data_dir)
            .with_context(|| format!("creating data directory {}", config.data_dir.display()))?;
        let db = Db::open(&config.database_url).await?;
        Self::with_db(config, db)
    }

    pub fn with_db(config: Config, db: Db) -> Result<Arc<AppState>> {
        let renderer = Arc::new(renderer_for(&config)?);
        let policies = PolicyStore::open(&config.policy_dir)?;
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
        Ok(Arc::new(AppState {
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
