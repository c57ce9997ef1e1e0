//! First run like Probot: with no App configured, `/` offers a button that registers a GitHub
//! App through the App-manifest flow; `/setup/callback` exchanges the code for credentials.
//! Only whoever holds the one-time setup token (printed in the server log at start) gets the
//! form, and each form's state is good for one callback within [`SETUP_STATE_TTL`].

use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde::Deserialize;
use serde_json::json;

use super::app::AppCredentials;

/// The App manifest (permissions and events tfgate needs).
pub fn manifest(public_url: &str, name: &str) -> serde_json::Value {
    json!({
        "name": name,
        "url": public_url,
        "hook_attributes": { "url": format!("{public_url}/webhooks"), "active": true },
        "redirect_url": format!("{public_url}/setup/callback"),
        // Where GitHub sends people back after signing in to the web UI (`/ui`).
        "callback_urls": [format!("{public_url}/ui/callback")],
        "public": false,
        "default_permissions": {
            "contents": "read",
            "pull_requests": "write",
            "issues": "write",
            "checks": "write",
            "metadata": "read",
            "members": "read"
        },
        // `installation` events are always delivered to Apps; they cannot be subscribed to.
        "default_events": ["issue_comment", "pull_request", "pull_request_review", "push"]
    })
}

/// HTML-escape text for attribute values and element bodies.
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The setup page: a form that posts the manifest to GitHub.
pub fn setup_page(github_url: &str, public_url: &str, state: &str, org: Option<&str>) -> String {
    let name = format!("tfgate-{}", &state[..6.min(state.len())]);
    let manifest = manifest(public_url, &name).to_string();
    let action = match org {
        Some(org) => format!("{github_url}/organizations/{org}/settings/apps/new?state={state}"),
        None => format!("{github_url}/settings/apps/new?state={state}"),
    };
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>tfgate setup</title></head><body>\
<h1>tfgate is running, but no GitHub App is configured</h1>\
<p>Register a GitHub App for this server. GitHub will ask you to confirm, then send you back \
here; tfgate stores the App's credentials in its data directory (readable only by its user).</p>\
<p>Webhook URL that will be registered: <code>{hook}</code></p>\
<form action=\"{action}\" method=\"post\">\
<input type=\"hidden\" name=\"manifest\" value=\"{manifest}\">\
<button type=\"submit\">Register the GitHub App</button></form>\
<p>For an organization, open <code>/?org=NAME</code>. To configure by hand instead, set \
<code>TFGATE_APP_ID</code>, <code>TFGATE_PRIVATE_KEY_PATH</code> and \
<code>TFGATE_WEBHOOK_SECRET</code>.</p></body></html>",
        hook = html_escape(&format!("{public_url}/webhooks")),
        action = html_escape(&action),
        manifest = html_escape(&manifest),
    )
}

/// The page shown once the App exists.
pub fn installed_page(slug: &str, html_url: Option<&str>) -> String {
    let install = html_url
        .map(|u| format!("{u}/installations/new"))
        .unwrap_or_else(|| format!("https://github.com/apps/{slug}/installations/new"));
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>tfgate</title></head><body>\
<h1>tfgate: GitHub App <code>{slug}</code> is configured</h1>\
<p>Install it on the repositories it should serve: <a href=\"{install}\">{install}</a>.</p>\
<p>Then add a policy file for those repositories in the server's policy directory; tfgate \
ignores repositories without one.</p></body></html>",
        slug = html_escape(slug),
        install = html_escape(&install),
    )
}

/// How long a setup form's state is accepted by the callback.
pub const SETUP_STATE_TTL: Duration = Duration::from_secs(600);
/// Setup forms open at once (older states are forgotten first).
const MAX_SETUP_STATES: usize = 16;

/// The one-time setup token of this process and the states of the setup forms it handed out.
pub struct SetupGuard {
    token: String,
    states: Mutex<Vec<(String, Instant)>>,
}

impl Default for SetupGuard {
    fn default() -> Self {
        Self::new()
    }
}

impl SetupGuard {
    /// A guard with a fresh random token (256 bits from the OS).
    pub fn new() -> Self {
        use rand::RngCore;
        let mut bytes = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        SetupGuard {
            token: hex::encode(bytes),
            states: Mutex::new(Vec::new()),
        }
    }

    /// The token to print in the server log: `open …/?setup_token=…`.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// Whether `given` is this process's token (compared in constant time).
    pub fn token_matches(&self, given: &str) -> bool {
        use subtle::ConstantTimeEq;
        given.len() == self.token.len() && bool::from(given.as_bytes().ct_eq(self.token.as_bytes()))
    }

    /// A fresh state for one setup form, issued at `now`.
    pub fn issue_state(&self, now: Instant) -> String {
        let state = uuid::Uuid::new_v4().simple().to_string();
        let mut states = self.states.lock().expect("setup states lock");
        states.push((state.clone(), now));
        if states.len() > MAX_SETUP_STATES {
            states.remove(0);
        }
        state
    }

    /// Uses up `state`: true once, and only within [`SETUP_STATE_TTL`] of its issue.
    pub fn take_state(&self, state: &str, now: Instant) -> bool {
        let mut states = self.states.lock().expect("setup states lock");
        states.retain(|(_, issued)| now.saturating_duration_since(*issued) <= SETUP_STATE_TTL);
        match states.iter().position(|(s, _)| s == state) {
            Some(i) => {
                states.remove(i);
                true
            }
            None => false,
        }
    }
}

#[derive(Deserialize)]
struct Conversion {
    id: u64,
    slug: String,
    #[serde(default)]
    html_url: Option<String>,
    #[serde(default)]
    webhook_secret: Option<String>,
    pem: String,
    #[serde(default)]
    client_id: Option<String>,
    #[serde(default)]
    client_secret: Option<String>,
}

/// `POST /app-manifests/{code}/conversions` (no authentication).
pub async fn exchange_code(api_url: &str, code: &str) -> Result<AppCredentials> {
    if code.is_empty()
        || code.len() > 200
        || !code
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        bail!("invalid manifest code");
    }
    let resp = reqwest::Client::new()
        .post(format!("{api_url}/app-manifests/{code}/conversions"))
        .header("Accept", "application/vnd.github+json")
        .header("User-Agent", "tfgate")
        .header("X-GitHub-Api-Version", "2022-11-28")
        .send()
        .await
        .context("calling GitHub to convert the manifest code")?;
    let status = resp.status();
    if !status.is_success() {
        bail!("GitHub answered {status} to the manifest conversion");
    }
    let c: Conversion = resp
        .json()
        .await
        .context("reading the manifest conversion")?;
    Ok(AppCredentials {
        id: c.id,
        slug: c.slug,
        html_url: c.html_url,
        webhook_secret: c.webhook_secret,
        pem: c.pem,
        client_id: c.client_id,
        client_secret: c.client_secret,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_asks_for_exact_permissions() {
        let m = manifest("https://tfgate.example", "tfgate-x");
        assert_eq!(
            m["hook_attributes"]["url"],
            "https://tfgate.example/webhooks"
        );
        assert_eq!(m["redirect_url"], "https://tfgate.example/setup/callback");
        assert_eq!(m["callback_urls"][0], "https://tfgate.example/ui/callback");
        assert_eq!(m["default_permissions"]["pull_requests"], "write");
        assert_eq!(m["default_permissions"]["contents"], "read");
        assert_eq!(m["default_permissions"].as_object().unwrap().len(), 6);
    }

    #[test]
    fn setup_states_are_single_use_and_expire() {
        let guard = SetupGuard::new();
        let t0 = Instant::now();
        let a = guard.issue_state(t0);
        let b = guard.issue_state(t0);
        assert!(guard.take_state(&a, t0 + SETUP_STATE_TTL));
        assert!(!guard.take_state(&a, t0), "used up");
        assert!(!guard.take_state(&b, t0 + SETUP_STATE_TTL + Duration::from_secs(1)));
        assert!(!guard.take_state("forged", t0));
        assert_eq!(guard.token().len(), 64);
        assert!(guard.token_matches(guard.token()));
        assert!(!guard.token_matches(&guard.token()[1..]));
        assert!(!guard.token_matches(""));
        assert_ne!(SetupGuard::new().token(), guard.token());
    }

    #[test]
    fn setup_page_escapes_manifest_into_the_form() {
        let page = setup_page(
            "https://github.com",
            "http://h:1",
            "abcdef123",
            Some("acme"),
        );
        assert!(page
            .contains("https://github.com/organizations/acme/settings/apps/new?state=abcdef123"));
        assert!(page.contains("&quot;redirect_url&quot;:&quot;http://h:1/setup/callback&quot;"));
        assert!(!page.contains("\"redirect_url\""));
    }
}
