//! Private modules (issue 25 item 4), with real Terraform and real Git: a root uses a module
//! from another repository of the same installation, served by a bare Git repository over HTTP
//! on loopback that demands a token. With `module_repos` naming it, `init` gets a read-only
//! token scoped to exactly that repository (through Git's credential helper) and the plan
//! works; without it, the module cannot be read. The token never reaches the PR.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine;
use serde_json::json;
use support::*;
use wiremock::matchers::{body_partial_json, method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

const TOKEN: &str = "ghs_privatemodules0123456789abcdefghijkl";

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `Codertocat/mod.git`: a bare repository with a module tagged `v1`, ready for Git's dumb
/// HTTP protocol (static files).
fn module_repository(root: &Path) -> PathBuf {
    let work = root.join("work");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(
        work.join("main.tf"),
        "output \"greeting\" {\n  value = \"hello from a private module\"\n}\n",
    )
    .unwrap();
    git(&work, &["init", "-q", "-b", "main"]);
    git(&work, &["add", "."]);
    git(&work, &["commit", "-q", "-m", "module"]);
    git(&work, &["tag", "v1"]);
    let bare = root.join("srv/Codertocat/mod.git");
    std::fs::create_dir_all(bare.parent().unwrap()).unwrap();
    git(
        root,
        &[
            "clone",
            "-q",
            "--bare",
            work.to_str().unwrap(),
            bare.to_str().unwrap(),
        ],
    );
    git(&bare, &["update-server-info"]);
    root.join("srv")
}

/// Static files of `root`, only with `Authorization: Basic x-access-token:TOKEN`; counts the
/// authorised requests.
struct GitServer {
    root: PathBuf,
    authorised: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Respond for GitServer {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let want = format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(format!("x-access-token:{TOKEN}"))
        );
        let auth = req
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok());
        if auth != Some(want.as_str()) {
            return ResponseTemplate::new(401)
                .insert_header("www-authenticate", "Basic realm=\"git\"");
        }
        self.authorised
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let rel = req.url.path().trim_start_matches('/');
        match std::fs::read(self.root.join(rel)) {
            Ok(bytes) if !rel.contains("..") => ResponseTemplate::new(200).set_body_bytes(bytes),
            _ => ResponseTemplate::new(404),
        }
    }
}

async fn private_module_harness(
    module_repos: &str,
) -> Option<(
    Harness,
    MockServer,
    std::sync::Arc<std::sync::atomic::AtomicUsize>,
    tempfile::TempDir,
)> {
    if !terraform_tools_available() {
        return None;
    }
    let srv = tempfile::tempdir().unwrap();
    let root = module_repository(srv.path());
    let git_server = MockServer::start().await;
    let authorised = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    Mock::given(method("GET"))
        .respond_with(GitServer {
            root,
            authorised: authorised.clone(),
        })
        .mount(&git_server)
        .await;
    let port = git_server.address().port();
    let extra = format!("    egress: [\"127.0.0.1:{port}\"]\n");
    let policy = format!(
        "{}{module_repos}",
        one_root_policy("app", "infra/app", &extra)
    );
    let url = git_server.uri();
    let h =
        Harness::start_with(Backend::Sqlite, Some(&policy), |a| a.github_url = Some(url)).await?;
    Mock::given(method("GET"))
        .and(path("/installation/repositories"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "total_count": 2,
            "repositories": [{"full_name": "Codertocat/mod"}, {"full_name": "Codertocat/secret"}]
        })))
        .mount(&h.github.server)
        .await;
    Mock::given(method("POST"))
        .and(path("/app/installations/1/access_tokens"))
        .and(body_partial_json(
            json!({"repositories": ["mod"], "permissions": {"contents": "read"}}),
        ))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!({
            "token": TOKEN, "expires_at": "2099-01-01T00:00:00Z",
            "permissions": {"contents": "read"}, "repository_selection": "selected"
        })))
        .with_priority(1)
        .mount(&h.github.server)
        .await;
    let repo = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(repo.path().join("infra/app")).unwrap();
    let main_tf = format!(
        "module \"m\" {{\n  source = \"git::http://127.0.0.1:{port}/Codertocat/mod.git?ref=v1\"\n}}\noutput \"greeting\" {{\n  value = module.m.greeting\n}}\n"
    );
    std::fs::write(repo.path().join("infra/app/main.tf"), main_tf).unwrap();
    h.github.serve_repo(repo.path());
    h.github.with(|g| {
        g.files = vec!["infra/app/main.tf".into()];
        g.permissions.insert("alice".into(), "write".into());
    });
    Some((h, git_server, authorised, srv))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_module_of_a_listed_repository_is_read_with_a_scoped_token() {
    let Some((h, _git, authorised, _srv)) =
        private_module_harness("module_repos: [\"Codertocat/mod\"]\n").await
    else {
        return;
    };
    let reply = h.comment(1, "/plan", "alice").await.join("\n");
    assert!(!reply.contains("failed"), "{reply}");
    assert!(
        authorised.load(std::sync::atomic::Ordering::SeqCst) > 0,
        "Git used the token"
    );
    assert!(!reply.contains(TOKEN) && !reply.contains("ghs_"), "{reply}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_module_repos_the_private_module_cannot_be_read() {
    let Some((h, _git, authorised, _srv)) = private_module_harness("").await else {
        return;
    };
    let reply = h.comment(1, "/plan", "alice").await.join("\n");
    assert!(reply.contains("failed"), "{reply}");
    assert_eq!(authorised.load(std::sync::atomic::Ordering::SeqCst), 0);
}
