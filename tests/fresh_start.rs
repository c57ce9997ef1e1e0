//! First contact, as a new user would have it: the real `tfgate serve`, a data directory
//! that does not exist yet, configuration from environment variables only (no config file,
//! no policy directory, no key file), policies from the admin repository through the App,
//! and Terraform fetched on demand from a release mirror over loopback. One `/plan` comment
//! in, the plan comment out. (The test provider comes from its filesystem mirror: the
//! offline stand-in for the registry.)

mod release_support;
mod support;

use std::process::{Command, Stdio};
use std::time::Duration;

use release_support::{Fault, ReleaseMirror, TEST_PUBLIC_KEY};
use serde_json::json;
use support::fake_github::FakeGitHub;
use support::*;
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

const ADMIN: &str = "Codertocat/tfgate-admin";

/// One tarball serves both repositories: `policies/` for the admin one, `infra/app` for the PR.
fn write_repos(dir: &std::path::Path) {
    let policy = with_test_network(
        "repos: [\"Codertocat/Hello-World\"]\ndefaults:\n  plan_role: arn:aws:iam::111111111111:role/tfgate-plan\n  apply_role: arn:aws:iam::111111111111:role/tfgate-apply\n  terraform_version: 1.0.3\nprojects:\n  - name: app\n    dir: infra/app\n",
    );
    std::fs::create_dir_all(dir.join("policies")).unwrap();
    std::fs::write(dir.join("policies/infra.yaml"), policy).unwrap();
    let id = uuid::Uuid::new_v4().simple().to_string();
    let body = format!("resource \"fake_thing\" \"web\" {{\n  name = \"web-{id}\"\n}}\n");
    std::fs::create_dir_all(dir.join("infra/app")).unwrap();
    std::fs::write(
        dir.join("infra/app/main.tf"),
        moto_root_tf(&format!("{id}.tfstate"), &body),
    )
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fresh_data_directory_and_env_vars_reach_a_real_plan_comment() {
    if !terraform_tools_available() {
        return;
    }
    let moto = std::env::var("TFGATE_TEST_MOTO_URL").unwrap();
    create_state_bucket().await;
    let github = FakeGitHub::start().await;
    Mock::given(method("GET"))
        .and(path(format!("/repos/{ADMIN}/installation")))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"id": 1})))
        .mount(&github.server)
        .await;
    let branch = github.with(|g| g.pr.default_branch.clone());
    Mock::given(method("GET"))
        .and(path(format!("/repos/{ADMIN}/commits/{branch}")))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"sha": "3".repeat(40)})))
        .mount(&github.server)
        .await;
    let repos = tempfile::tempdir().unwrap();
    write_repos(repos.path());
    github.serve_repo(repos.path());
    github.with(|g| {
        g.files = vec!["infra/app/main.tf".into()];
        g.permissions.insert("alice".into(), "write".into());
    });
    let mirror = ReleaseMirror::start(Fault::None).await;
    let home = tempfile::tempdir().unwrap();
    let data = home.path().join("data-that-does-not-exist-yet");
    let addr = format!("127.0.0.1:{}", free_port());
    let pem = std::fs::read_to_string(fixture_path("github/test-app-key.pem")).unwrap();
    let log = home.path().join("serve.log");
    let out = std::fs::File::create(&log).unwrap();
    let mut serve = Command::new(env!("CARGO_BIN_EXE_tfgate"))
        .arg("serve")
        .env_clear()
        .current_dir(home.path())
        .envs([
            ("PATH", "/usr/local/bin:/usr/bin:/bin"),
            ("HOME", &home.path().display().to_string()),
            ("RUST_LOG", "info"),
            ("TFGATE_DATA_DIR", &data.display().to_string()),
            ("TFGATE_ADDR", &addr),
            ("TFGATE_WEBHOOK_SECRET", SECRET),
            ("TFGATE_APP_ID", "4242"),
            ("TFGATE_PRIVATE_KEY", &pem),
            ("TFGATE_GITHUB_API_URL", &github.url()),
            ("TFGATE_POLICY_REPO", ADMIN),
            ("TFGATE_TERRAFORM_VERSION", "1.0.3"),
            ("TFGATE_RELEASE_URL", &mirror.url()),
            ("TFGATE_RELEASE_KEYS", TEST_PUBLIC_KEY),
            (
                "TFGATE_PROVIDER_MIRROR",
                &tools_dir().join("provider-mirror").display().to_string(),
            ),
            ("TFGATE_AWS_ENDPOINT_URL", &moto),
            ("AWS_ACCESS_KEY_ID", "testing"),
            ("AWS_SECRET_ACCESS_KEY", "testing"),
        ])
        .stdout(Stdio::from(out.try_clone().unwrap()))
        .stderr(Stdio::from(out))
        .spawn()
        .unwrap();
    let client = reqwest::Client::new();
    let base = format!("http://{addr}");
    wait_healthy(&client, &base).await;
    // The admin repository is read at start (then on every push and every 5 minutes).
    let start = std::time::Instant::now();
    while !std::fs::read_to_string(&log)
        .unwrap()
        .contains("policies read from the admin repository")
    {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{}",
            std::fs::read_to_string(&log).unwrap()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let status = post_signed(
        &client,
        &base,
        "issue_comment",
        &pr_comment("/plan", "alice"),
    )
    .await;
    assert_eq!(status, 202);
    let row = "| `app` | `infra/app` | `default` | 1 | 0 | 0 | 0 | 📝 changes |";
    let start = std::time::Instant::now();
    let plan = loop {
        let found = github
            .comments()
            .into_iter()
            .find(|c| c.body.contains("## tfgate plan"));
        if let Some(c) = found {
            break c.body;
        }
        if start.elapsed() > Duration::from_secs(180) {
            let _ = serve.kill();
            let posted: Vec<String> = github.comments().into_iter().map(|c| c.body).collect();
            panic!(
                "no plan comment; posted: {posted:?}\nserve log:\n{}",
                std::fs::read_to_string(&log).unwrap()
            );
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let _ = serve.kill();
    let _ = serve.wait();
    assert!(plan.contains(row), "{plan}");
    assert_eq!(mirror.archive_downloads().await, 1);
    assert!(data.join("tools/terraform/1.0.3/terraform").is_file());
}
