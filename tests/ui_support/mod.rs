//! What the web UI's tests need besides the harness: GitHub's OAuth web flow and the REST
//! calls made with a person's token (on the harness's fake GitHub, in GitHub's wire format),
//! the real router on a TCP port, and headless Chromium driven through chromedriver.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use serde_json::json;
use wiremock::matchers::{header_regex, method, path, path_regex};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

pub const CLIENT_ID: &str = "Iv1.tfgatetest0001";
pub const CLIENT_SECRET: &str = "test-oauth-client-secret";

/// Who is signed in at "github.com" in the browser, what each person can read, which teams
/// they are in.
#[derive(Clone, Default)]
pub struct People(Arc<Mutex<PeopleState>>);

#[derive(Default)]
struct PeopleState {
    at_github: String,
    readable: BTreeSet<(String, String)>,
    teams: BTreeSet<(String, String)>,
}

impl People {
    /// The person the next sign-in authorizes as.
    pub fn sign_in_at_github(&self, login: &str) {
        self.0.lock().unwrap().at_github = login.into();
    }
    pub fn in_team(&self, login: &str, team: &str) {
        let mut s = self.0.lock().unwrap();
        s.teams.insert((team.to_ascii_lowercase(), login.into()));
    }
    pub fn can_read(&self, login: &str, repo: &str) {
        let mut s = self.0.lock().unwrap();
        s.readable.insert((login.into(), repo.to_ascii_lowercase()));
    }
}

fn token_login(req: &Request) -> Option<String> {
    let auth = req.headers.get("authorization")?.to_str().ok()?;
    auth.strip_prefix("Bearer gho_").map(str::to_string)
}

/// `GET /login/oauth/authorize`: the person approves; GitHub redirects back with a code.
struct Authorize(People);
impl Respond for Authorize {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let q: std::collections::HashMap<String, String> =
            req.url.query_pairs().into_owned().collect();
        if q.get("client_id").map(String::as_str) != Some(CLIENT_ID) {
            return ResponseTemplate::new(404);
        }
        let login = self.0 .0.lock().unwrap().at_github.clone();
        let mut back = url::Url::parse(&q["redirect_uri"]).unwrap();
        back.query_pairs_mut()
            .append_pair("code", &format!("code-{login}"))
            .append_pair("state", &q["state"]);
        ResponseTemplate::new(302).insert_header("location", back.as_str())
    }
}

/// `POST /login/oauth/access_token` (form body, JSON answer as with `Accept: application/json`).
struct AccessToken;
impl Respond for AccessToken {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let form: std::collections::HashMap<String, String> =
            url::form_urlencoded::parse(&req.body)
                .into_owned()
                .collect();
        if form.get("client_id").map(String::as_str) != Some(CLIENT_ID)
            || form.get("client_secret").map(String::as_str) != Some(CLIENT_SECRET)
        {
            return ResponseTemplate::new(200).set_body_json(json!({"error": "incorrect_client_credentials", "error_description": "The client_id and/or client_secret passed are incorrect."}));
        }
        match form.get("code").and_then(|c| c.strip_prefix("code-")) {
            Some(login) => ResponseTemplate::new(200).set_body_json(
                json!({"access_token": format!("gho_{login}"), "token_type": "bearer", "scope": ""}),
            ),
            None => ResponseTemplate::new(200).set_body_json(json!({"error": "bad_verification_code", "error_description": "The code passed is incorrect or expired."})),
        }
    }
}

/// `GET /user`, `GET /repos/{owner}/{repo}` and team memberships, with a person's token.
struct UserApi(People);
impl Respond for UserApi {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let Some(login) = token_login(req) else {
            return ResponseTemplate::new(401).set_body_json(json!({"message": "Bad credentials"}));
        };
        let s = self.0 .0.lock().unwrap();
        let p = req.url.path();
        let not_found =
            || ResponseTemplate::new(404).set_body_json(json!({"message": "Not Found"}));
        if p == "/user" {
            return ResponseTemplate::new(200)
                .set_body_json(json!({"login": login, "id": 1000 + login.len(), "type": "User"}));
        }
        if let Some(repo) = p.strip_prefix("/repos/") {
            let readable = s
                .readable
                .contains(&(login.clone(), repo.to_ascii_lowercase()));
            return if readable {
                ResponseTemplate::new(200)
                    .set_body_json(json!({"id": 1, "full_name": repo, "private": true}))
            } else {
                not_found()
            };
        }
        // /orgs/{org}/teams/{slug}/memberships/{username}
        let parts: Vec<&str> = p.split('/').collect();
        if let [_, "orgs", org, "teams", slug, "memberships", user] = parts[..] {
            let team = format!("{org}/{slug}").to_ascii_lowercase();
            if s.teams.contains(&(team, user.to_string())) && user == login {
                return ResponseTemplate::new(200)
                    .set_body_json(json!({"state": "active", "role": "member", "url": ""}));
            }
        }
        not_found()
    }
}

/// Mounts the OAuth flow and the person-token routes on `server` (ahead of the harness's
/// own routes, which answer the App's installation token).
pub async fn mount_people(server: &MockServer, people: &People) {
    Mock::given(method("GET"))
        .and(path("/login/oauth/authorize"))
        .respond_with(Authorize(people.clone()))
        .with_priority(1)
        .mount(server)
        .await;
    Mock::given(method("POST"))
        .and(path("/login/oauth/access_token"))
        .respond_with(AccessToken)
        .with_priority(1)
        .mount(server)
        .await;
    Mock::given(method("GET"))
        .and(path_regex(
            r"^/(user|repos/[^/]+/[^/]+|orgs/[^/]+/teams/[^/]+/memberships/[^/]+)$",
        ))
        .and(header_regex("authorization", "^Bearer gho_"))
        .respond_with(UserApi(people.clone()))
        .with_priority(1)
        .mount(server)
        .await;
}

/// A port for the real router: bind it first, so the server's public URL is known.
pub async fn listener() -> (tokio::net::TcpListener, String) {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    (l, url)
}

/// Headless Chromium behind chromedriver.
pub struct Browser {
    pub client: fantoccini::Client,
    driver: std::process::Child,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// `None` (the test is skipped) when Chromium is not installed and `TFGATE_REQUIRE_TOOLS`
    /// is not `1`.
    pub async fn start() -> Option<Browser> {
        let present = std::path::Path::new("/usr/bin/chromium").is_file()
            && std::path::Path::new("/usr/bin/chromedriver").is_file();
        if !present {
            assert!(
                std::env::var("TFGATE_REQUIRE_TOOLS").as_deref() != Ok("1"),
                "chromium/chromedriver missing (scripts/install-deps.sh apt)"
            );
            eprintln!("note: chromium not installed; browser test skipped");
            return None;
        }
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let driver = std::process::Command::new("/usr/bin/chromedriver")
            .arg(format!("--port={port}"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let profile = tempfile::tempdir().unwrap();
        let caps = json!({"goog:chromeOptions": {
            "binary": "/usr/bin/chromium",
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1280,1400",
                format!("--user-data-dir={}", profile.path().display())]
        }});
        let caps: serde_json::Map<String, serde_json::Value> =
            serde_json::from_value(caps).unwrap();
        let mut last = None;
        for _ in 0..100 {
            match fantoccini::ClientBuilder::native()
                .capabilities(caps.clone())
                .connect(&format!("http://127.0.0.1:{port}"))
                .await
            {
                Ok(client) => {
                    return Some(Browser {
                        client,
                        driver,
                        _profile: profile,
                    });
                }
                Err(e) => last = Some(e),
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        panic!("chromedriver did not start: {last:?}");
    }

    /// Opens `url` and returns the page's HTML.
    pub async fn open(&self, url: &str) -> String {
        self.client.goto(url).await.unwrap();
        self.client.source().await.unwrap()
    }

    /// Clicks the button `css` and waits until the browser is at `path` (a form's answer);
    /// returns the page's HTML.
    pub async fn submit(&self, css: &str, path: &str) -> String {
        let button = self
            .client
            .find(fantoccini::Locator::Css(css))
            .await
            .unwrap();
        button.click().await.unwrap();
        for _ in 0..100 {
            let at = self.client.current_url().await.unwrap();
            if at.path() == path {
                // The new document is there once the old button is gone from it.
                return self.client.source().await.unwrap();
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        panic!("the browser never reached {path}");
    }

    /// Appends `PAGE BYTES` (the HTML the browser holds) to `target/ui-screenshots/page-weights.txt`.
    pub fn record_weight(&self, page: &str, html: &str) {
        use std::io::Write;
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/ui-screenshots");
        std::fs::create_dir_all(&dir).unwrap();
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("page-weights.txt"))
            .unwrap();
        writeln!(f, "{page}\t{}", html.len()).unwrap();
    }

    /// Saves a screenshot under `target/ui-screenshots/NAME.png`; returns its path.
    pub async fn screenshot(&self, name: &str) -> std::path::PathBuf {
        let png = self.client.screenshot().await.unwrap();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/ui-screenshots");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(format!("{name}.png"));
        std::fs::write(&file, png).unwrap();
        file
    }

    /// The session cookie the browser holds for the UI.
    pub async fn session_cookie(&self) -> String {
        let c = self
            .client
            .get_named_cookie("tfgate_session")
            .await
            .unwrap();
        format!("tfgate_session={}", c.value())
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
