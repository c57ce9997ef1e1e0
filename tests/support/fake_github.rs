//! A small in-memory GitHub served over HTTP by wiremock, so tfgate's real octocrab client and
//! its real request serialisation are exercised. It speaks GitHub's REST shapes for the calls
//! tfgate makes and records what tfgate posted. This file holds the state and the routes; the
//! answers are in `fake_github_{access,comments,pr,checks,repo}.rs`, by resource, and fault
//! injection in `fake_github_faults.rs`.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use wiremock::matchers::{method, path, path_regex};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

#[path = "fake_github_access.rs"]
mod access;
#[path = "fake_github_checks.rs"]
mod checks;
#[path = "fake_github_comments.rs"]
mod comments;
#[path = "fake_github_pr.rs"]
mod pr_reads;
#[path = "fake_github_repo.rs"]
mod repo_files;
pub use pr_reads::FakeCommit;

#[path = "fake_github_faults.rs"]
pub mod faults;

#[derive(Debug, Clone, PartialEq)]
pub struct Posted {
    pub number: i64,
    pub body: String,
    pub id: i64,
    /// How often tfgate edited this comment.
    pub edits: usize,
    /// When the fake received it (benchmarks time the comment's arrival).
    pub at: std::time::Instant,
    /// When tfgate last edited it.
    pub edited_at: Option<std::time::Instant>,
}

/// The pull request the fake serves (any number).
#[derive(Debug, Clone)]
pub struct FakePr {
    pub author: String,
    pub head_sha: String,
    pub head_repo: String,
    pub base_ref: String,
    pub mergeable: Option<bool>,
    pub mergeable_state: String,
    pub default_branch: String,
    /// `open` or `closed`.
    pub state: String,
    pub merged: bool,
    /// Commits of the base branch the head lacks (the compare API's `behind_by`).
    pub behind_by: u64,
}

impl Default for FakePr {
    fn default() -> Self {
        FakePr {
            author: "author".into(),
            head_sha: "a".repeat(40),
            head_repo: "Codertocat/Hello-World".into(),
            base_ref: "main".into(),
            mergeable: Some(true),
            mergeable_state: "clean".into(),
            default_branch: "main".into(),
            state: "open".into(),
            merged: false,
            behind_by: 0,
        }
    }
}

#[derive(Debug, Clone)]
pub struct FakeReview {
    pub user: String,
    pub state: String,
    pub commit_id: String,
    pub is_bot: bool,
}

#[derive(Default)]
pub struct GitHubState {
    pub pr: FakePr,
    pub reviews: Vec<FakeReview>,
    /// user → `admin` | `maintain` | `write` | `triage` | `read` | `none`
    pub permissions: std::collections::HashMap<String, String>,
    pub files: Vec<String>,
    /// (team slug, user) pairs with active membership.
    pub team_members: Vec<(String, String)>,
    /// (name, conclusion), made by the `github-actions` app
    pub check_runs: Vec<(String, String)>,
    /// (name, conclusion, app slug)
    pub app_check_runs: Vec<(String, String, String)>,
    /// The PR's commits, oldest first (listed up to 250, as GitHub does; the PR reports how
    /// many there are).
    pub commits: Vec<FakeCommit>,
    /// Mergeability served by the next PR reads, one each (then `pr.mergeable`).
    pub mergeable_reads: std::collections::VecDeque<Option<bool>>,
    /// How often the PR was read.
    pub pr_reads: usize,
    /// `base...head` of every compare request.
    pub compare_requests: Vec<String>,
    /// The repository tarball served for any commit (gzip'd tar with GitHub's top dir); an
    /// empty repository until a test serves one.
    pub tarball: Vec<u8>,
    /// Commit → its own tarball, served instead of `tarball` for that commit.
    pub tarballs: std::collections::HashMap<String, Vec<u8>>,
    /// (git ref, path) → file text, served by the contents API (404 otherwise).
    pub contents: std::collections::HashMap<(String, String), String>,
    /// (git ref, path) of every contents request.
    pub contents_requests: Vec<(String, String)>,
    /// (name, conclusion, head_sha) of check runs created (the conclusion as the last
    /// request set it: empty while a run is `in_progress`).
    pub check_runs_created: Vec<(String, String, String)>,
    /// Check run id → (its index in `check_runs_created`, every annotation sent to it).
    pub check_run_annotations: std::collections::HashMap<i64, (usize, Vec<Value>)>,
    pub comments: Vec<Posted>,
    pub reactions: Vec<(i64, String)>,
    pub token_requests: usize,
    pub next_id: i64,
    /// Faults to answer instead of (or after) the real effect, in order.
    pub faults: Vec<faults::PendingFault>,
    /// Every request received, in order.
    pub requests: Vec<faults::SeenRequest>,
}

#[derive(Clone)]
pub struct FakeGitHub {
    pub server: Arc<MockServer>,
    pub state: Arc<Mutex<GitHubState>>,
}

struct Handler {
    state: Arc<Mutex<GitHubState>>,
    kind: &'static str,
}

fn seg(req: &Request, i: usize) -> String {
    req.url
        .path_segments()
        .and_then(|mut s| s.nth(i))
        .unwrap_or("")
        .to_string()
}

impl Respond for Handler {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let mut st = self.state.lock().unwrap();
        faults::respond(&mut st, req, |st| self.answer(st, req))
    }
}

impl Handler {
    /// The real effect of a request, by the route's kind (one file per resource).
    fn answer(&self, st: &mut GitHubState, req: &Request) -> ResponseTemplate {
        st.next_id += 1;
        let id = 1000 + st.next_id;
        let body: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
        match self.kind {
            "token" => access::token(st, id),
            "permission" => access::permission(st, req),
            "team_membership" => access::team_membership(st, req),
            "comment" => comments::create(st, req, &body, id),
            "patch_comment" => comments::edit(st, req, &body),
            "list_comments" => comments::list(st, req),
            "reaction" => comments::react(st, req, &body, id),
            "get_pr" => pr_reads::pull_request(st, req),
            "files" => pr_reads::files(st, req),
            "reviews" => pr_reads::reviews(st, req),
            "commits" => pr_reads::commits(st, req),
            "compare" => pr_reads::compare(st, req),
            "repository" => pr_reads::repository(st),
            "check_runs" => pr_reads::check_runs(st, req),
            "create_check_run" => checks::create(st, &body, id),
            "update_check_run" => checks::update(st, req, &body),
            "contents" => repo_files::contents(st, req),
            "tarball" => repo_files::tarball(st, req),
            _ => ResponseTemplate::new(404),
        }
    }
}

impl FakeGitHub {
    pub async fn start() -> FakeGitHub {
        let server = MockServer::start().await;
        let state = Arc::new(Mutex::new(GitHubState::default()));
        let routes: [(&str, &str, &'static str); 18] = [
            ("GET", r"^/repos/[^/]+/[^/]+$", "repository"),
            ("GET", r"^/repos/[^/]+/[^/]+/pulls/\d+/commits$", "commits"),
            ("GET", r"^/repos/[^/]+/[^/]+/compare/.+$", "compare"),
            ("GET", r"^/repos/[^/]+/[^/]+/contents/.+$", "contents"),
            (
                "GET",
                r"^/orgs/[^/]+/teams/[^/]+/memberships/[^/]+$",
                "team_membership",
            ),
            (
                "POST",
                r"^/repos/[^/]+/[^/]+/check-runs$",
                "create_check_run",
            ),
            (
                "PATCH",
                r"^/repos/[^/]+/[^/]+/check-runs/\d+$",
                "update_check_run",
            ),
            (
                "GET",
                r"^/repos/[^/]+/[^/]+/issues/\d+/comments$",
                "list_comments",
            ),
            (
                "GET",
                r"^/repos/[^/]+/[^/]+/tarball/[0-9a-f]{40}$",
                "tarball",
            ),
            (
                "PATCH",
                r"^/repos/[^/]+/[^/]+/issues/comments/\d+$",
                "patch_comment",
            ),
            ("GET", r"^/repos/[^/]+/[^/]+/pulls/\d+$", "get_pr"),
            ("GET", r"^/repos/[^/]+/[^/]+/pulls/\d+/reviews$", "reviews"),
            ("GET", r"^/repos/[^/]+/[^/]+/pulls/\d+/files$", "files"),
            (
                "GET",
                r"^/repos/[^/]+/[^/]+/commits/[0-9a-f]+/check-runs$",
                "check_runs",
            ),
            (
                "GET",
                r"^/repos/[^/]+/[^/]+/collaborators/[^/]+/permission$",
                "permission",
            ),
            ("POST", r"^/app/installations/\d+/access_tokens$", "token"),
            (
                "POST",
                r"^/repos/[^/]+/[^/]+/issues/\d+/comments$",
                "comment",
            ),
            (
                "POST",
                r"^/repos/[^/]+/[^/]+/issues/comments/\d+/reactions$",
                "reaction",
            ),
        ];
        for (verb, path, kind) in routes {
            Mock::given(method(verb))
                .and(path_regex(path))
                .respond_with(Handler {
                    state: state.clone(),
                    kind,
                })
                .mount(&server)
                .await;
        }
        let github = FakeGitHub {
            server: Arc::new(server),
            state,
        };
        github.serve_repo(tempfile::tempdir().unwrap().path());
        github
    }

    pub fn url(&self) -> String {
        self.server.uri()
    }

    pub fn comments(&self) -> Vec<Posted> {
        self.state.lock().unwrap().comments.clone()
    }

    pub fn reactions(&self) -> Vec<(i64, String)> {
        self.state.lock().unwrap().reactions.clone()
    }

    /// Change the fake's GitHub state.
    pub fn with<R>(&self, f: impl FnOnce(&mut GitHubState) -> R) -> R {
        f(&mut self.state.lock().unwrap())
    }

    /// Serve the files of `dir` as the repository tarball.
    pub fn serve_repo(&self, dir: &std::path::Path) {
        let bytes = Self::tarball_of(dir);
        self.with(|g| g.tarball = bytes);
    }

    /// Serve the files of `dir` as the tarball of commit `sha` only.
    pub fn serve_repo_at(&self, sha: &str, dir: &std::path::Path) {
        let bytes = Self::tarball_of(dir);
        self.with(|g| g.tarballs.insert(sha.to_string(), bytes));
    }

    fn tarball_of(dir: &std::path::Path) -> Vec<u8> {
        let mut tar = tar::Builder::new(flate2::write::GzEncoder::new(
            Vec::new(),
            flate2::Compression::fast(),
        ));
        tar.append_dir_all("Codertocat-Hello-World-0000000/", dir)
            .unwrap();
        tar.into_inner().unwrap().finish().unwrap()
    }

    /// Answer `POST /app-manifests/{code}/conversions` (once) as GitHub does after the user
    /// created the App from tfgate's manifest: the new App's id, slug, key and webhook secret.
    pub async fn accept_manifest_code(&self, code: &str, pem: &str, webhook_secret: &str) {
        Mock::given(method("POST"))
            .and(path(format!("/app-manifests/{code}/conversions")))
            .respond_with(ResponseTemplate::new(201).set_body_json(json!({
                "id": 90210, "slug": "tfgate-acme", "node_id": "A_kwDOBnAuIA",
                "name": "tfgate-acme", "owner": {"login": "acme", "id": 1, "type": "Organization"},
                "html_url": "https://github.com/apps/tfgate-acme",
                "created_at": "2026-12-03T10:00:00Z", "updated_at": "2026-12-03T10:00:00Z",
                "permissions": {"contents": "read", "pull_requests": "write"},
                "events": ["issue_comment", "pull_request"],
                "client_id": "Iv1.8a61f9b3a7aba766", "client_secret": "1726be1638095a19edd134c77bde3aa2ece1e5d8",
                "webhook_secret": webhook_secret, "pem": pem
            })))
            .up_to_n_times(1)
            .mount(&self.server)
            .await;
    }

    pub fn token_requests(&self) -> usize {
        self.state.lock().unwrap().token_requests
    }
}
