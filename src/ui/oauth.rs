//! Sign-in with GitHub (the App's OAuth web flow) and the calls made with the person's token.
//! Thin: URLs and HTTP only; what the answers mean for access is [`super::access`]'s.

use anyhow::{bail, Context, Result};
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;

use crate::state::AppState;

/// The App's OAuth client.
pub struct OAuthClient {
    pub id: String,
    pub secret: SecretString,
}

/// `TFGATE_OAUTH_CLIENT_ID`/`_SECRET`, else the client the manifest flow stored.
pub async fn client(state: &AppState) -> Result<Option<OAuthClient>> {
    if let (Some(id), Some(secret)) = (
        &state.config.oauth_client_id,
        &state.config.oauth_client_secret,
    ) {
        return Ok(Some(OAuthClient {
            id: id.clone(),
            secret: secret.clone(),
        }));
    }
    let stored = crate::github::credentials_store::load(&state.db, &state.seal_key).await?;
    Ok(stored.and_then(|c| match (c.client_id, c.client_secret) {
        (Some(id), Some(secret)) => Some(OAuthClient {
            id,
            secret: SecretString::from(secret),
        }),
        _ => None,
    }))
}

/// GitHub's authorize page for this sign-in.
pub fn authorize_url(github_url: &str, client_id: &str, redirect_uri: &str, state: &str) -> String {
    let mut url = url::Url::parse(&format!(
        "{}/login/oauth/authorize",
        github_url.trim_end_matches('/')
    ))
    .expect("the GitHub URL was checked at start");
    url.query_pairs_mut()
        .append_pair("client_id", client_id)
        .append_pair("redirect_uri", redirect_uri)
        .append_pair("state", state)
        .append_pair("allow_signup", "false");
    url.into()
}

fn http(state: &AppState) -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(state.config.github_timeout)
        .user_agent("tfgate")
        .build()
        .expect("a reqwest client builds")
}

#[derive(Deserialize)]
struct TokenAnswer {
    access_token: Option<String>,
    error: Option<String>,
}

/// Exchanges the callback's code for the person's token.
pub async fn exchange_code(
    state: &AppState,
    client: &OAuthClient,
    code: &str,
    redirect_uri: &str,
) -> Result<String> {
    let url = format!(
        "{}/login/oauth/access_token",
        state.config.github_url.trim_end_matches('/')
    );
    let answer: TokenAnswer = http(state)
        .post(url)
        .header("Accept", "application/json")
        .form(&[
            ("client_id", client.id.as_str()),
            ("client_secret", client.secret.expose_secret()),
            ("code", code),
            ("redirect_uri", redirect_uri),
        ])
        .send()
        .await
        .context("calling GitHub's token endpoint")?
        .error_for_status()
        .context("GitHub's token endpoint")?
        .json()
        .await
        .context("reading GitHub's token answer")?;
    match (answer.access_token, answer.error) {
        (Some(token), _) if !token.is_empty() => Ok(token),
        (_, Some(error)) => bail!("GitHub refused the sign-in code ({error})"),
        _ => bail!("GitHub's token answer had no token"),
    }
}

/// GitHub's REST API called with the signed-in person's token (every route is in GitHub's
/// OpenAPI description; `tests/github_conformance.rs` checks them against it).
pub struct UserApi {
    http: reqwest::Client,
    api_url: String,
}

impl UserApi {
    pub fn new(api_url: &str, timeout: std::time::Duration) -> UserApi {
        UserApi {
            http: reqwest::Client::builder()
                .timeout(timeout)
                .user_agent("tfgate")
                .build()
                .expect("a reqwest client builds"),
            api_url: api_url.trim_end_matches('/').to_string(),
        }
    }

    pub fn of(state: &AppState) -> UserApi {
        UserApi::new(&state.config.github_api_url, state.config.github_timeout)
    }

    fn get(&self, route: &str, token: &str) -> reqwest::RequestBuilder {
        self.http
            .get(format!("{}{route}", self.api_url))
            .bearer_auth(token)
            .header("Accept", "application/vnd.github+json")
            .header("X-GitHub-Api-Version", "2022-11-28")
    }

    /// `GET /user`: the login of the token's owner.
    pub async fn user_login(&self, token: &str) -> Result<String> {
        #[derive(Deserialize)]
        struct User {
            login: String,
        }
        let user: User = self
            .get("/user", token)
            .send()
            .await
            .context("calling GET /user")?
            .error_for_status()
            .context("GET /user")?
            .json()
            .await
            .context("reading GET /user")?;
        Ok(user.login)
    }

    /// `GET /repos/{owner}/{repo}`: 200 means the person can read it; 404 and 403 mean not.
    pub async fn can_read(&self, token: &str, repo: &str) -> Result<bool> {
        let resp = self
            .get(&format!("/repos/{repo}"), token)
            .send()
            .await
            .context("calling GET /repos/{owner}/{repo}")?;
        match resp.status().as_u16() {
            200 => Ok(true),
            401 => bail!("the GitHub token no longer works; sign in again"),
            403 | 404 => Ok(false),
            other => bail!("GET /repos/{{owner}}/{{repo}} answered {other}"),
        }
    }

    /// `GET /orgs/{org}/teams/{team_slug}/memberships/{username}`: an active member?
    pub async fn team_member(
        &self,
        token: &str,
        org: &str,
        slug: &str,
        login: &str,
    ) -> Result<bool> {
        let route = format!("/orgs/{org}/teams/{slug}/memberships/{login}");
        let resp = self
            .get(&route, token)
            .send()
            .await
            .context("calling GET /orgs/{org}/teams/{team_slug}/memberships/{username}")?;
        match resp.status().as_u16() {
            200 => {
                let body: serde_json::Value = resp.json().await?;
                Ok(body["state"] == "active")
            }
            403 | 404 => Ok(false),
            other => bail!("a team membership answered {other}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_authorize_url_carries_the_client_the_callback_and_the_state() {
        let url = authorize_url(
            "https://github.com/",
            "Iv1.abc",
            "https://tfgate.example/ui/callback",
            "s t",
        );
        assert_eq!(
            url,
            "https://github.com/login/oauth/authorize?client_id=Iv1.abc&redirect_uri=https%3A%2F%2Ftfgate.example%2Fui%2Fcallback&state=s+t&allow_signup=false"
        );
    }
}
