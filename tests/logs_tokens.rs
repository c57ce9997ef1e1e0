//! Tokens never reach the logs (issue 38, the advisory class "tokens in logs"): every log
//! record of the test process, at `trace` level, is captured while a PR is planned twice
//! through the fake GitHub, whose installation tokens are already expired when issued, so
//! that every use of one refreshes it; a policy registry token is given to `init` as well.
//! None of the installation tokens issued, nor the registry token, appears in a record.

mod support;

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::json;
use support::*;
use wiremock::matchers::{method, path_regex};
use wiremock::{Mock, Request, Respond, ResponseTemplate};

const REGISTRY_TOKEN: &str = "registry-token-for-the-logs-test-93b1";

/// Every formatted log record of this process.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn capture() -> Captured {
    static CAPTURED: OnceLock<Captured> = OnceLock::new();
    CAPTURED
        .get_or_init(|| {
            let captured = Captured::default();
            let writer = captured.clone();
            tracing_subscriber::fmt()
                .with_env_filter("trace")
                .with_writer(move || writer.clone())
                .with_ansi(false)
                .try_init()
                .expect("the only subscriber of this test binary");
            captured
        })
        .clone()
}

/// Installation tokens that expired an hour before they were issued (octocrab asks again for
/// every call), each one different; the issued ones are kept.
struct ExpiredTokens {
    issued: Arc<Mutex<Vec<String>>>,
    count: Arc<AtomicUsize>,
}

impl Respond for ExpiredTokens {
    fn respond(&self, _req: &Request) -> ResponseTemplate {
        let n = self.count.fetch_add(1, Ordering::SeqCst);
        let token = format!("ghs_expiredtoken{n:04}x7Qp");
        self.issued.lock().unwrap().push(token.clone());
        ResponseTemplate::new(201).set_body_json(json!({
            "token": token, "expires_at": "2001-01-01T00:00:00Z",
            "permissions": {}, "repository_selection": "all"
        }))
    }
}

const MAIN_TF: &str = "terraform {\n  required_providers {\n    fake = { source = \"tfgate/fake\", version = \"0.1.0\" }\n  }\n}\nresource \"fake_thing\" \"a\" {\n  name = \"a\"\n}\n";

async fn plan_twice_with_refreshed_tokens(backend: Backend, captured: &Captured) {
    let secrets = tempfile::tempdir().unwrap();
    let token_file = secrets.path().join("registry-token");
    std::fs::write(&token_file, REGISTRY_TOKEN).unwrap();
    let policy = format!(
        "{}registry_tokens:\n  - host: registry.acme.test\n    source: file:{}\n",
        one_root_policy("app", "infra/app", ""),
        token_file.display()
    );
    let Some(h) = Harness::start_with_policy(backend, Some(&policy)).await else {
        return;
    };
    let issued = Arc::new(Mutex::new(Vec::new()));
    let count = Arc::new(AtomicUsize::new(0));
    Mock::given(method("POST"))
        .and(path_regex(r"^/app/installations/\d+/access_tokens$"))
        .respond_with(ExpiredTokens {
            issued: issued.clone(),
            count: count.clone(),
        })
        .with_priority(1)
        .mount(&h.github.server)
        .await;
    let repo = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(repo.path().join("infra/app")).unwrap();
    std::fs::write(repo.path().join("infra/app/main.tf"), MAIN_TF).unwrap();
    h.github.serve_repo(repo.path());
    h.github.with(|g| {
        g.files = vec!["infra/app/main.tf".into()];
        g.permissions.insert("alice".into(), "write".into());
    });
    for _ in 0..2 {
        let reply = h.comment(1, "/plan", "alice").await.join("\n");
        assert!(reply.contains("fake_thing.a"), "{reply}");
    }
    let issued = issued.lock().unwrap().clone();
    assert!(issued.len() >= 3, "tokens were refreshed: {issued:?}");
    let logs = String::from_utf8_lossy(&captured.0.lock().unwrap()).to_string();
    assert!(
        logs.lines().count() > 50,
        "too few records to mean anything"
    );
    assert!(
        logs.contains(" tfgate::"),
        "tfgate's own records are captured"
    );
    for token in issued.iter().map(String::as_str).chain([REGISTRY_TOKEN]) {
        assert!(!logs.contains(token), "{token} is in the logs");
    }
    // A token is recognised by its prefix, too: none of any shape is logged.
    assert!(
        !logs.contains("ghs_"),
        "an installation token is in the logs"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_token_reaches_the_logs_when_installation_tokens_are_refreshed() {
    if !terraform_tools_available() {
        return;
    }
    let captured = capture();
    plan_twice_with_refreshed_tokens(Backend::Sqlite, &captured).await;
    plan_twice_with_refreshed_tokens(Backend::Postgres, &captured).await;
}
