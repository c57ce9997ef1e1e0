//! First run like Probot: with no App configured, `/` offers a button that registers a GitHub
//! App through the App-manifest flow; `/setup/callback` exchanges the code for credentials.

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
        "default_events": ["issue_comment", "pull_request", "pull_request_review"]
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

#[derive(Deserialize)]
struct Conversion {
    id: u64,
    slug: String,
    #[serde(default)]
    html_url: Option<String>,
    #[serde(default)]
    webhook_secret: Option<String>,
    pem: String,
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
        assert_eq!(m["default_permissions"]["pull_requests"], "write");
        assert_eq!(m["default_permissions"]["contents"], "read");
        assert_eq!(m["default_permissions"].as_object().unwrap().len(), 6);
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
