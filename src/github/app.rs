//! App credentials and per-installation clients.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use anyhow::{Context, Result};
use octocrab::models::{AppId, InstallationId};
use octocrab::Octocrab;
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

use super::http::{CallPolicy, InstallationClient};
use super::rate_limit_gate::RateLimitGate;
use super::retry::Admission;
use crate::model::RepoRef;
use crate::policy::GitHubPermission;

/// What the App-manifest flow writes into the data directory (mode 0600).
#[derive(Clone, Serialize, Deserialize)]
pub struct AppCredentials {
    pub id: u64,
    pub slug: String,
    #[serde(default)]
    pub html_url: Option<String>,
    pub webhook_secret: Option<String>,
    pub pem: String,
    /// The App's OAuth client (for `/ui` sign-in), as the manifest conversion returns it.
    #[serde(default)]
    pub client_id: Option<String>,
    #[serde(default)]
    pub client_secret: Option<String>,
}

impl std::fmt::Debug for AppCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppCredentials")
            .field("id", &self.id)
            .field("slug", &self.slug)
            .finish_non_exhaustive()
    }
}

pub const CREDENTIALS_FILE: &str = "github-app.json";

/// GitHub's answer to an installation-token request (only the token is read).
#[derive(Deserialize)]
struct AccessToken {
    token: String,
}

impl AppCredentials {
    pub fn path(data_dir: &Path) -> PathBuf {
        data_dir.join(CREDENTIALS_FILE)
    }

    pub fn load(data_dir: &Path) -> Result<Option<AppCredentials>> {
        let path = Self::path(data_dir);
        if !path.exists() {
            return Ok(None);
        }
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        Ok(Some(
            serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?,
        ))
    }

    /// Write with mode 0600 (created that way: never world-readable, not even briefly).
    pub fn save(&self, data_dir: &Path) -> Result<PathBuf> {
        std::fs::create_dir_all(data_dir)?;
        let path = Self::path(data_dir);
        write_private(&path, serde_json::to_string_pretty(self)?.as_bytes())?;
        Ok(path)
    }
}

/// Write a file readable only by its owner.
pub fn write_private(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let tmp = path.with_extension("tmp");
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)
        .with_context(|| format!("creating {}", tmp.display()))?;
    f.write_all(bytes)?;
    f.sync_all()?;
    std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// An authenticated GitHub App.
pub struct GitHubApp {
    pub app_id: u64,
    pub slug: String,
    pub api_url: String,
    app_client: Octocrab,
    installations: Mutex<HashMap<i64, Arc<InstallationClient>>>,
    /// When GitHub asked each installation to wait; shared by every worker of the process.
    gate: Arc<RateLimitGate>,
    /// Deadline and retries of every call.
    policy: Arc<CallPolicy>,
    /// Tokens handed out by [`GitHubApp::installation_token`], with when each was issued.
    tokens: Mutex<HashMap<i64, (SecretString, std::time::Instant)>>,
    /// Repository permissions looked up, per (repository, user), with when.
    permissions: Mutex<HashMap<(String, String), (GitHubPermission, std::time::Instant)>>,
}

/// How long a looked-up repository permission is reused: long enough that a burst of
/// comments costs one call, short enough that a revoked permission takes effect soon.
const PERMISSION_REUSE: std::time::Duration = std::time::Duration::from_secs(60);

/// GitHub's installation tokens expire one hour after they are issued; one is handed out again
/// for 50 minutes, so a run that starts with it has at least 10 left to download the tarball.
const TOKEN_REUSE: std::time::Duration = std::time::Duration::from_secs(50 * 60);

impl GitHubApp {
    pub fn new(app_id: u64, slug: String, pem: &SecretString, api_url: &str) -> Result<GitHubApp> {
        let key = jsonwebtoken::EncodingKey::from_rsa_pem(pem.expose_secret().as_bytes())
            .context("the GitHub App private key is not a valid RSA PEM key")?;
        let app_client = Octocrab::builder()
            .base_uri(api_url)
            .context("invalid GitHub API URL")?
            .app(AppId(app_id), key)
            // octocrab's own installation-token request carries a JSON body but no
            // Content-Type; GitHub's spec requires application/json (found by the Prism test).
            .add_header(http::header::CONTENT_TYPE, "application/json".to_string())
            .add_header(
                http::header::ACCEPT,
                "application/vnd.github+json".to_string(),
            )
            .add_header(
                http::header::HeaderName::from_static("x-github-api-version"),
                "2022-11-28".to_string(),
            )
            // octocrab's retry resends a POST with an empty body (its body is read once);
            // tfgate retries itself, with the same body (`github/http.rs`).
            .add_retry_config(octocrab::service::middleware::retry::RetryConfig::None)
            .build()
            .context("building the GitHub client")?;
        Ok(GitHubApp {
            app_id,
            slug,
            api_url: api_url.to_string(),
            app_client,
            installations: Mutex::new(HashMap::new()),
            gate: Arc::new(RateLimitGate::default()),
            policy: Arc::new(CallPolicy::default()),
            tokens: Mutex::new(HashMap::new()),
            permissions: Mutex::new(HashMap::new()),
        })
    }

    /// The same App with another deadline and retries for its GitHub calls.
    pub fn with_call_policy(mut self, policy: CallPolicy) -> GitHubApp {
        self.policy = Arc::new(policy);
        self
    }

    /// The deadline and retries of the App's GitHub calls.
    pub fn call_policy(&self) -> &CallPolicy {
        &self.policy
    }

    /// A client acting as the installation; its token is fetched on first use and cached.
    /// (Shared behind an `Arc`: cloning an `Octocrab` would copy, not share, its token cache.)
    pub fn installation(&self, installation_id: i64) -> Result<Arc<InstallationClient>> {
        let mut map = self.installations.lock().expect("installation cache lock");
        if let Some(client) = map.get(&installation_id) {
            return Ok(Arc::clone(client));
        }
        let octocrab = self
            .app_client
            .installation(InstallationId(installation_id as u64))
            .context("creating installation client")?;
        let client = Arc::new(InstallationClient::new(
            octocrab,
            installation_id,
            Arc::clone(&self.gate),
            Arc::clone(&self.policy),
        ));
        map.insert(installation_id, Arc::clone(&client));
        Ok(client)
    }

    /// An installation token, for fetching the repository tarball: kept in memory only, and
    /// requested again once it is [`TOKEN_REUSE`] old.
    pub async fn installation_token(&self, installation_id: i64) -> Result<SecretString> {
        if let Some((token, issued)) = self
            .tokens
            .lock()
            .expect("token cache lock")
            .get(&installation_id)
        {
            if issued.elapsed() < TOKEN_REUSE {
                return Ok(token.clone());
            }
        }
        let issued = std::time::Instant::now();
        // As the App (its JWT), but through the installation's gate, retries and deadline.
        let as_app = InstallationClient::new(
            self.app_client.clone(),
            installation_id,
            Arc::clone(&self.gate),
            Arc::clone(&self.policy),
        );
        let route = format!("/app/installations/{installation_id}/access_tokens");
        let answer: AccessToken = as_app
            .post(&route, &serde_json::json!({}))
            .await
            .context("requesting an installation token")?;
        let token = SecretString::from(answer.token);
        self.tokens
            .lock()
            .expect("token cache lock")
            .insert(installation_id, (token.clone(), issued));
        Ok(token)
    }

    /// Wait while GitHub asked `installation_id` to, for a request made outside
    /// [`InstallationClient`] (the tarball download); `Err` when the wait is longer than a
    /// worker is held.
    pub async fn wait_turn(&self, installation_id: i64) -> Result<(), SystemTime> {
        let now = SystemTime::now();
        match self
            .gate
            .admission(installation_id, now, self.policy.retry.max_wait)
        {
            Admission::Go => Ok(()),
            Admission::WaitFor(wait) => {
                tracing::info!(
                    wait_ms = wait.as_millis() as u64,
                    "waiting as GitHub asked before downloading"
                );
                tokio::time::sleep(wait).await;
                Ok(())
            }
            Admission::Defer { until } => Err(until),
        }
    }

    /// GitHub asked `installation_id` to make no request before `until` (shared by every
    /// client of this process).
    pub fn hold(&self, installation_id: i64, until: SystemTime) {
        self.gate.hold(installation_id, until);
    }

    /// The user's permission on the repository, looked up at most once a minute.
    pub async fn user_permission(
        &self,
        gh: &InstallationClient,
        repo: &RepoRef,
        user: &str,
    ) -> Result<GitHubPermission> {
        let key = (repo.full_name(), user.to_string());
        let cached = self
            .permissions
            .lock()
            .expect("permission cache lock")
            .get(&key)
            .copied();
        if let Some((permission, _)) = cached.filter(|(_, at)| at.elapsed() < PERMISSION_REUSE) {
            return Ok(permission);
        }
        let permission = crate::github::facts::user_permission(gh, repo, user).await?;
        let mut map = self.permissions.lock().expect("permission cache lock");
        map.retain(|_, (_, at)| at.elapsed() < PERMISSION_REUSE);
        map.insert(key, (permission, std::time::Instant::now()));
        Ok(permission)
    }

    /// `GET /app` with the App's JWT: the App's slug, proving the credentials work.
    pub async fn check_credentials(&self) -> Result<String> {
        let app: serde_json::Value = self
            .app_client
            .get("/app", None::<&()>)
            .await
            .map_err(one_line_error)
            .context("GET /app")?;
        Ok(app["slug"].as_str().unwrap_or("(no slug)").to_string())
    }

    /// The installation of the App on `owner/name` (`GET /repos/{owner}/{repo}/installation`).
    pub async fn repository_installation(&self, owner: &str, name: &str) -> Result<i64> {
        let route = format!("/repos/{owner}/{name}/installation");
        let installation: serde_json::Value = self
            .app_client
            .get(&route, None::<&()>)
            .await
            .map_err(one_line_error)
            .with_context(|| format!("GET {route}"))?;
        installation["id"]
            .as_i64()
            .with_context(|| format!("{route} named no installation id"))
    }

    /// The full names (`owner/name`) of the repositories `installation_id` covers (at most
    /// ten pages of 100).
    pub async fn installation_repositories(&self, installation_id: i64) -> Result<Vec<String>> {
        let client = self
            .app_client
            .installation(InstallationId(installation_id as u64))
            .context("creating installation client")?;
        let mut names = Vec::new();
        for page in 1..=10 {
            let route = format!("/installation/repositories?per_page=100&page={page}");
            let body: serde_json::Value = client
                .get(&route, None::<&()>)
                .await
                .map_err(one_line_error)
                .context("GET /installation/repositories")?;
            let repos = body["repositories"].as_array().cloned().unwrap_or_default();
            names.extend(
                repos
                    .iter()
                    .filter_map(|r| r["full_name"].as_str().map(str::to_string)),
            );
            if repos.len() < 100 {
                break;
            }
        }
        Ok(names)
    }

    /// A new installation token that may only read the contents of `repositories` (names
    /// without owner): for private module repositories. It expires after an hour; it is not
    /// cached.
    pub async fn read_only_token(
        &self,
        installation_id: i64,
        repositories: &[String],
    ) -> Result<SecretString> {
        let route = format!("/app/installations/{installation_id}/access_tokens");
        let body = serde_json::json!({
            "repositories": repositories,
            "permissions": {"contents": "read"},
        });
        let answer: serde_json::Value = self
            .app_client
            .post(&route, Some(&body))
            .await
            .map_err(one_line_error)
            .with_context(|| format!("POST {route}"))?;
        let token = answer["token"]
            .as_str()
            .context("GitHub answered without a token")?;
        Ok(SecretString::from(token.to_string()))
    }

    /// The full names of repositories the App is installed on (at most `max`, first pages).
    pub async fn installed_repositories(&self, max: usize) -> Result<Vec<String>> {
        let installations: serde_json::Value = self
            .app_client
            .get("/app/installations?per_page=100", None::<&()>)
            .await
            .map_err(one_line_error)
            .context("GET /app/installations")?;
        let ids: Vec<u64> = installations
            .as_array()
            .map(|list| list.iter().filter_map(|i| i["id"].as_u64()).collect())
            .unwrap_or_default();
        let mut names = Vec::new();
        for id in ids {
            if names.len() >= max {
                break;
            }
            let client = self
                .app_client
                .installation(InstallationId(id))
                .context("creating installation client")?;
            let page: serde_json::Value = client
                .get("/installation/repositories?per_page=100", None::<&()>)
                .await
                .map_err(one_line_error)
                .context("GET /installation/repositories")?;
            let repos = page["repositories"].as_array().cloned().unwrap_or_default();
            names.extend(
                repos
                    .iter()
                    .filter_map(|r| r["full_name"].as_str().map(str::to_string)),
            );
        }
        names.truncate(max);
        Ok(names)
    }

    /// Forget an installation (uninstalled or suspended).
    pub fn forget_installation(&self, installation_id: i64) {
        self.installations
            .lock()
            .expect("installation cache lock")
            .remove(&installation_id);
        self.tokens
            .lock()
            .expect("token cache lock")
            .remove(&installation_id);
    }
}

/// An octocrab error as one line (its display may carry a multi-line backtrace).
fn one_line_error(e: octocrab::Error) -> anyhow::Error {
    let text = e.to_string();
    anyhow::anyhow!("{}", text.lines().next().unwrap_or("").trim())
}
