//! Bot overhead per plan: the time from a signed `/plan` comment delivery to the plan comment
//! posted, minus the time of the same `terraform init && terraform plan` run directly, on the
//! same machine. Issue target: ≤ 300 ms median.
//!
//! Run with `bash bench/plan-overhead/run.sh` (starts moto, builds this in release mode).
//! Directly: `TFGATE_TEST_MOTO_URL=http://127.0.0.1:25500 cargo run --release --example
//! bench_plan_overhead` (needs `.tools/bin/terraform`, `.tools/fake-provider.tfrc`,
//! `.tools/provider-mirror` and bubblewrap; see scripts/install-deps.sh,
//! scripts/install-terraform.sh, scripts/build-test-provider.sh).
//!
//! The bot side is tfgate as deployed, in one process: the real router (`POST /webhooks`,
//! called in-process), the real SQLite queue and one embedded worker (`server::spawn_workers`,
//! woken by the intake's notify), policy, the tarball checkout from a fake GitHub served over
//! HTTP by wiremock (real octocrab), STS AssumeRole on moto, Terraform 1.0.3 in bubblewrap
//! (`init`, `plan -json -out`, `show -json`), classification, redaction, rendering, and the
//! comment POSTed back. Timed: from just before the delivery to the moment the fake GitHub
//! receives the plan comment.
//!
//! The direct side is what a user would run: a fresh copy of the same root, the same Terraform
//! binary and CLI config (the provider mirror), the same S3 backend on moto, then
//! `terraform init -input=false` and `terraform plan -input=false` (no sandbox).
//!
//! Settings (environment): BENCH_ITERATIONS (10), BENCH_RESOURCES (5 `fake_thing`s in the
//! root), BENCH_SANDBOX (bwrap; `none` runs Terraform unsandboxed, to split the sandbox's share).
//! Prints per-iteration times, the medians and a final line
//! `BENCH_RESULT bench=plan-overhead ... overhead_median_ms=…`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::Request;
use serde_json::{json, Value};
use tower::ServiceExt;
use wiremock::matchers::{method, path_regex};
use wiremock::{Mock, MockServer, Respond, ResponseTemplate};

use tfgate::config::{Config, ConfigArgs};
use tfgate::state::AppState;
use tfgate::webhook::signature::sign;

const SECRET: &str = "bench-webhook-secret";
const REPO: &str = "Codertocat/Hello-World";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn tools() -> PathBuf {
    root().join(".tools")
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

// ------------------------------------------------------------------------------------------
// A minimal fake GitHub (the calls a `/plan` makes), adapted from tests/support/fake_github.rs.

#[derive(Default)]
struct GitHubState {
    head_sha: String,
    tarball: Vec<u8>,
    /// (when received, issue number, body)
    comments: Vec<(Instant, i64, String)>,
    next_id: i64,
}

struct Handler {
    state: Arc<Mutex<GitHubState>>,
    kind: &'static str,
}

fn seg(req: &wiremock::Request, i: usize) -> String {
    req.url
        .path_segments()
        .and_then(|mut s| s.nth(i))
        .unwrap_or("")
        .to_string()
}

fn in_one_hour() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 3600;
    let days = (secs / 86400) as i64;
    let rem = secs % 86400;
    let (h, m, s) = (rem / 3600, (rem % 3600) / 60, rem % 60);
    let z = days + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if mo <= 2 { y + 1 } else { y };
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{m:02}:{s:02}Z")
}

impl Respond for Handler {
    fn respond(&self, req: &wiremock::Request) -> ResponseTemplate {
        let received = Instant::now();
        let mut st = self.state.lock().unwrap();
        st.next_id += 1;
        let id = 1000 + st.next_id;
        let body: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
        match self.kind {
            "token" => ResponseTemplate::new(201).set_body_json(json!({
                "token": format!("ghs_fake{id}"), "expires_at": in_one_hour(),
                "permissions": {}, "repository_selection": "all"
            })),
            "comment" => {
                let number: i64 = seg(req, 4).parse().unwrap_or(0);
                let text = body["body"].as_str().unwrap_or("").to_string();
                st.comments.push((received, number, text.clone()));
                ResponseTemplate::new(201).set_body_json(json!({
                    "id": id, "body": text,
                    "html_url": format!("https://github.com/o/r/pull/{number}#issuecomment-{id}")
                }))
            }
            "reaction" => {
                let content = body["content"].as_str().unwrap_or("").to_string();
                ResponseTemplate::new(201).set_body_json(json!({"id": id, "content": content}))
            }
            "get_pr" => ResponseTemplate::new(200).set_body_json(json!({
                "number": seg(req, 4).parse::<i64>().unwrap_or(1), "state": "open",
                "user": {"login": "author", "type": "User"},
                "head": {"sha": st.head_sha, "ref": "feature", "repo": {"full_name": REPO}},
                "base": {"sha": "b".repeat(40), "ref": "main", "repo": {"full_name": REPO}},
                "mergeable": true, "mergeable_state": "clean"
            })),
            "reviews" => ResponseTemplate::new(200).set_body_json(json!([])),
            "files" => {
                let page: usize = req
                    .url
                    .query_pairs()
                    .find(|(k, _)| k == "page")
                    .and_then(|(_, v)| v.parse().ok())
                    .unwrap_or(1);
                let list = if page == 1 {
                    json!([{"filename": "infra/app/main.tf", "status": "modified"}])
                } else {
                    json!([])
                };
                ResponseTemplate::new(200).set_body_json(list)
            }
            "check_runs" => ResponseTemplate::new(200)
                .set_body_json(json!({"total_count": 0, "check_runs": []})),
            "tarball" => ResponseTemplate::new(200)
                .insert_header("content-type", "application/x-gzip")
                .set_body_bytes(st.tarball.clone()),
            "patch_comment" => ResponseTemplate::new(200)
                .set_body_json(json!({"id": seg(req, 5).parse::<i64>().unwrap_or(0)})),
            "permission" => {
                let user = seg(req, 4);
                ResponseTemplate::new(200).set_body_json(
                    json!({"permission": "write", "role_name": "write", "user": {"login": user}}),
                )
            }
            _ => ResponseTemplate::new(404),
        }
    }
}

struct FakeGitHub {
    server: MockServer,
    state: Arc<Mutex<GitHubState>>,
}

impl FakeGitHub {
    async fn start() -> FakeGitHub {
        let server = MockServer::start().await;
        let state = Arc::new(Mutex::new(GitHubState {
            head_sha: "a".repeat(40),
            ..Default::default()
        }));
        let routes: [(&str, &str, &'static str); 10] = [
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
        FakeGitHub { server, state }
    }

    fn serve_repo(&self, dir: &Path) {
        let mut tar = tar::Builder::new(flate2::write::GzEncoder::new(
            Vec::new(),
            flate2::Compression::fast(),
        ));
        tar.append_dir_all("Codertocat-Hello-World-0000000/", dir)
            .unwrap();
        let bytes = tar.into_inner().unwrap().finish().unwrap();
        self.state.lock().unwrap().tarball = bytes;
    }

    fn comment_count(&self) -> usize {
        self.state.lock().unwrap().comments.len()
    }

    /// The first comment after `from` that is a plan comment, with when it arrived.
    fn plan_comment_since(&self, from: usize) -> Option<(Instant, String)> {
        let st = self.state.lock().unwrap();
        st.comments[from.min(st.comments.len())..]
            .iter()
            .find(|(_, _, body)| body.contains("tfgate plan"))
            .map(|(at, _, body)| (*at, body.clone()))
    }

    fn comments_since(&self, from: usize) -> Vec<String> {
        let st = self.state.lock().unwrap();
        st.comments[from.min(st.comments.len())..]
            .iter()
            .map(|(_, _, b)| b.clone())
            .collect()
    }
}

// ------------------------------------------------------------------------------------------
// The Terraform root, shared by both sides.

fn root_tf(moto: &str, key: &str, resources: usize) -> String {
    let mut things = String::new();
    for i in 0..resources {
        let depends = if i == 0 {
            String::new()
        } else {
            format!("  depends_value = fake_thing.r{}.id\n", i - 1)
        };
        things.push_str(&format!(
            "resource \"fake_thing\" \"r{i}\" {{\n  name = \"thing-{i}\"\n{depends}}}\n"
        ));
    }
    format!(
        r#"terraform {{
  required_providers {{
    fake = {{ source = "tfgate/fake", version = "0.1.0" }}
  }}
  backend "s3" {{
    bucket                      = "tfstate"
    key                         = "{key}"
    region                      = "us-east-1"
    endpoint                    = "{moto}"
    force_path_style            = true
    skip_credentials_validation = true
    skip_metadata_api_check     = true
    skip_region_validation      = true
  }}
}}
provider "fake" {{}}
{things}"#
    )
}

const POLICY: &str = r#"
repos: ["Codertocat/Hello-World"]
defaults:
  plan_role: arn:aws:iam::111111111111:role/tfgate-plan
  apply_role: arn:aws:iam::111111111111:role/tfgate-apply
projects:
  - name: app
    dir: infra/app
"#;

fn pr_comment(body: &str) -> Value {
    let path = root().join("tests/fixtures/webhooks/issue_comment.created.on-pr.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v["comment"]["body"] = body.into();
    v["comment"]["user"]["login"] = "alice".into();
    v
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

// ------------------------------------------------------------------------------------------

/// `terraform init && terraform plan` in a fresh copy of the root, as a user would; with
/// `same_env`, also with the variables tfgate's sandbox sets (`TF_DISABLE_PLUGIN_TLS=1`), which
/// isolates tfgate's own cost from the speed-up that setting gives Terraform.
fn direct_plan(src: &Path, same_env: bool) -> Duration {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("app");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(src.join("main.tf"), dir.join("main.tf")).unwrap();
    let terraform = tools().join("bin/terraform");
    let run = |args: &[&str]| {
        let out = std::process::Command::new(&terraform)
            .args(args)
            .current_dir(&dir)
            .env("TF_CLI_CONFIG_FILE", tools().join("fake-provider.tfrc"))
            .env("CHECKPOINT_DISABLE", "1")
            .env("AWS_ACCESS_KEY_ID", "testing")
            .env("AWS_SECRET_ACCESS_KEY", "testing")
            .env("AWS_REGION", "us-east-1")
            .envs(same_env.then_some(("TF_DISABLE_PLUGIN_TLS", "1")))
            .output()
            .expect("running terraform");
        assert!(
            out.status.success(),
            "terraform {args:?} failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    };
    let start = Instant::now();
    run(&["init", "-input=false", "-no-color"]);
    let plan = run(&["plan", "-input=false", "-no-color"]);
    let took = start.elapsed();
    let text = String::from_utf8_lossy(&plan.stdout);
    assert!(
        text.contains("fake_thing.r0"),
        "the direct plan does not list fake_thing.r0:\n{text}"
    );
    took
}

async fn bot_plan(state: &Arc<AppState>, github: &FakeGitHub, seq: usize) -> Duration {
    let before = github.comment_count();
    let body = serde_json::to_vec(&pr_comment("/plan")).unwrap();
    let sig = sign(SECRET, &body);
    let delivery = format!("00000000-0000-4000-8000-{seq:012}");
    let request = Request::post("/webhooks")
        .header("x-github-event", "issue_comment")
        .header("x-github-delivery", &delivery)
        .header("x-hub-signature-256", &sig)
        .header("content-type", "application/json")
        .body(Body::from(body))
        .unwrap();
    let start = Instant::now();
    let resp = tfgate::http::router(state.clone())
        .oneshot(request)
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 202, "delivery not accepted");
    let deadline = start + Duration::from_secs(300);
    let (at, comment) = loop {
        if let Some(found) = github.plan_comment_since(before) {
            break found;
        }
        assert!(
            Instant::now() < deadline,
            "no plan comment after 300 s; comments: {:?}",
            github.comments_since(before)
        );
        tokio::time::sleep(Duration::from_millis(2)).await;
    };
    assert!(
        comment.contains("fake_thing.r0") || comment.contains("| `app` |"),
        "the plan comment does not show the root:\n{comment}"
    );
    assert!(
        !comment.contains("❌"),
        "the plan failed:\n{comment}\n(other comments: {:?})",
        github.comments_since(before)
    );
    let took = at.duration_since(start);
    // Let the run job finish (release the workdir, complete the job) before the next one.
    wait_idle(state).await;
    took
}

async fn wait_idle(state: &Arc<AppState>) {
    for _ in 0..30_000 {
        let busy: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM jobs WHERE status IN ('queued', 'running')")
                .fetch_one(&state.db.pool)
                .await
                .unwrap();
        if busy == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("jobs still running after 300 s");
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let iterations = env_usize("BENCH_ITERATIONS", 10).max(1);
    let resources = env_usize("BENCH_RESOURCES", 5).max(1);
    let sandbox = std::env::var("BENCH_SANDBOX").unwrap_or_else(|_| "bwrap".into());
    let moto = std::env::var("TFGATE_TEST_MOTO_URL")
        .ok()
        .filter(|u| !u.is_empty())
        .expect(
            "TFGATE_TEST_MOTO_URL is not set (eval \"$(bash scripts/services.sh start moto)\")",
        );
    for needed in ["bin/terraform", "fake-provider.tfrc", "provider-mirror"] {
        assert!(
            tools().join(needed).exists(),
            ".tools/{needed} missing (scripts/install-terraform.sh, scripts/build-test-provider.sh)"
        );
    }
    // moto accepts any credentials; tfgate's base chain reads them from the environment.
    std::env::set_var("AWS_ACCESS_KEY_ID", "testing");
    std::env::set_var("AWS_SECRET_ACCESS_KEY", "testing");

    let _ = reqwest::Client::new()
        .put(format!("{moto}/tfstate"))
        .send()
        .await
        .expect("creating the state bucket on moto");

    // The repository: one root, state in a key of its own.
    let key = format!("bench-{}/app.tfstate", uuid::Uuid::new_v4().simple());
    let repo = tempfile::tempdir().unwrap();
    let app = repo.path().join("infra/app");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(app.join("main.tf"), root_tf(&moto, &key, resources)).unwrap();

    // tfgate, configured as the scenario tests do.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("policies")).unwrap();
    std::fs::write(dir.path().join("policies/repo.yaml"), POLICY).unwrap();
    let github = FakeGitHub::start().await;
    github.serve_repo(repo.path());
    let config = Config::resolve(&ConfigArgs {
        data_dir: Some(dir.path().join("data")),
        database_url: Some(format!(
            "sqlite://{}?mode=rwc",
            dir.path().join("tfgate.db").display()
        )),
        webhook_secret: Some(SECRET.into()),
        app_id: Some(4242),
        app_slug: Some("tfgate".into()),
        private_key_path: Some(root().join("tests/fixtures/github/test-app-key.pem")),
        github_api_url: Some(github.server.uri()),
        policy_dir: Some(dir.path().join("policies")),
        terraform: Some(tools().join("bin/terraform")),
        tf_cli_config: Some(tools().join("fake-provider.tfrc")),
        provider_mirror: Some(tools().join("provider-mirror")),
        aws_endpoint_url: Some(moto.clone()),
        sandbox: Some(sandbox.clone()),
        ..Default::default()
    })
    .expect("tfgate configuration");
    let state = AppState::build(config).await.expect("tfgate state");
    let (_stop, shutdown) = tokio::sync::watch::channel(false);
    let _workers = tfgate::server::spawn_workers(&state, 1, &shutdown);

    eprintln!(
        "plan-overhead: {iterations} iterations, {resources} resources, sandbox {sandbox}; \
         warm-up: one bot plan and one direct plan (not counted)"
    );
    bot_plan(&state, &github, 0).await;
    {
        let app = app.clone();
        tokio::task::spawn_blocking(move || (direct_plan(&app, false), direct_plan(&app, true)))
            .await
            .unwrap();
    }

    // Alternate the runs so drift in the machine's load hits all alike.
    let (mut bot, mut direct, mut same_env) = (Vec::new(), Vec::new(), Vec::new());
    for i in 1..=iterations {
        let b = ms(bot_plan(&state, &github, i).await);
        let app = app.clone();
        let (d, s) = tokio::task::spawn_blocking(move || {
            (direct_plan(&app, false), direct_plan(&app, true))
        })
        .await
        .unwrap();
        let (d, s) = (ms(d), ms(s));
        eprintln!(
            "  #{i:>2}  bot {b:>8.1} ms   direct {d:>8.1} ms   direct, sandbox env {s:>8.1} ms   difference {:>7.1} ms / {:>7.1} ms",
            b - d,
            b - s
        );
        bot.push(b);
        direct.push(d);
        same_env.push(s);
    }
    let (mb, md, ms_env) = (
        median(bot.clone()),
        median(direct.clone()),
        median(same_env.clone()),
    );
    let diffs: Vec<f64> = bot.iter().zip(&direct).map(|(b, d)| b - d).collect();
    let md_pairs = median(diffs);
    let own: Vec<f64> = bot.iter().zip(&same_env).map(|(b, s)| b - s).collect();
    let own_pairs = median(own);
    println!("bot (delivery -> plan comment posted): median {mb:.1} ms");
    println!("direct (terraform init && terraform plan): median {md:.1} ms");
    println!(
        "direct with the sandbox's Terraform env (TF_DISABLE_PLUGIN_TLS=1): median {ms_env:.1} ms"
    );
    println!("overhead: median(bot) - median(direct) = {:.1} ms; median of paired differences = {md_pairs:.1} ms", mb - md);
    println!("tfgate's own cost: median(bot) - median(direct, same env) = {:.1} ms; paired {own_pairs:.1} ms", mb - ms_env);
    println!(
        "BENCH_RESULT bench=plan-overhead iterations={iterations} resources={resources} sandbox={sandbox} \
         bot_median_ms={mb:.1} direct_median_ms={md:.1} overhead_median_ms={:.1} overhead_paired_median_ms={md_pairs:.1} \
         direct_same_env_median_ms={ms_env:.1} own_cost_median_ms={:.1} target_ms<=300",
        mb - md,
        mb - ms_env
    );
}
