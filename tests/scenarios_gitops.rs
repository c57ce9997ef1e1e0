//! Merge is deploy (issue 28): a push to a PR of a repository whose policy names `gitops`
//! folders gets a `tfgate/deploy` check run previewing what merging deploys or deletes, from
//! the real ArgoCD examples (tests/fixtures/gitops, sources in SOURCES.md).

mod support;

use serde_json::Value;
use support::*;
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

const POLICY: &str = r#"
repos: ["Codertocat/Hello-World"]
defaults:
  plan_role: arn:aws:iam::111111111111:role/tfgate-plan
  apply_role: arn:aws:iam::111111111111:role/tfgate-apply
gitops:
  - path: "deploy/**"
    kind: argocd
"#;

fn argocd_fixture(name: &str) -> String {
    std::fs::read_to_string(fixture_path(&format!("gitops/argocd/{name}"))).unwrap()
}

/// Serves `base` (files) at the PR's base commit and `head` at every other commit.
async fn serve_base_and_head(h: &Harness, base: &[(&str, String)], head: &[(&str, String)]) {
    let write = |files: &[(&str, String)]| {
        let dir = tempfile::tempdir().unwrap();
        for (p, text) in files {
            let file = dir.path().join(p);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
        dir
    };
    let base_dir = write(base);
    h.github.serve_repo(base_dir.path());
    let base_tarball = h.github.with(|g| g.tarball.clone());
    Mock::given(method("GET"))
        .and(path(format!(
            "/repos/Codertocat/Hello-World/tarball/{}",
            "b".repeat(40)
        )))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(base_tarball))
        .with_priority(1)
        .mount(&h.github.server)
        .await;
    h.github.serve_repo(write(head).path());
}

async fn push_and_read_deploy_check(h: &Harness) -> Value {
    let pr = webhook_fixture("pull_request.synchronize.json");
    h.deliver("pull_request", &pr).await;
    h.run_jobs().await;
    h.github.with(|g| {
        let body = g
            .requests
            .iter()
            .rev()
            .find(|r| {
                r.method == "POST"
                    && r.path.ends_with("/check-runs")
                    && r.body.contains("tfgate/deploy")
            })
            .map(|r| r.body.clone())
            .expect("a tfgate/deploy check run");
        serde_json::from_str(&body).unwrap()
    })
}

#[tokio::test]
async fn removing_an_application_that_syncs_with_prune_needs_acknowledgement() {
    let h = Harness::start_with_policy(Backend::Sqlite, Some(POLICY))
        .await
        .unwrap();
    let set = (
        "deploy/set.yaml",
        argocd_fixture("applicationset-list.yaml"),
    );
    let app = (
        "deploy/apps/guestbook.yaml",
        argocd_fixture("application.yaml"),
    );
    serve_base_and_head(&h, &[set.clone(), app], &[set]).await;
    let check = push_and_read_deploy_check(&h).await;
    assert_eq!(check["conclusion"], "action_required");
    assert_eq!(
        check["output"]["title"],
        "1 change(s) need acknowledgement before merge"
    );
    let summary = check["output"]["summary"].as_str().unwrap();
    assert!(
        summary.contains("| **removed** | Application | `guestbook` |"),
        "{summary}"
    );
    assert!(
        summary.contains("`deploy/apps/guestbook.yaml:1`"),
        "{summary}"
    );
    assert!(
        summary.contains("Application `guestbook` is removed: on merge"),
        "{summary}"
    );
}

#[tokio::test]
async fn an_unchanged_folder_passes_and_broken_yaml_names_its_line() {
    let h = Harness::start_with_policy(Backend::Sqlite, Some(POLICY))
        .await
        .unwrap();
    let set = (
        "deploy/set.yaml",
        argocd_fixture("applicationset-list.yaml"),
    );
    serve_base_and_head(&h, std::slice::from_ref(&set), std::slice::from_ref(&set)).await;
    let check = push_and_read_deploy_check(&h).await;
    assert_eq!(check["conclusion"], "success");
    assert_eq!(check["output"]["title"], "no deploying object changes");

    let broken = (
        "deploy/broken.yaml",
        "kind: Application\nspec: [unclosed\n".to_string(),
    );
    serve_base_and_head(&h, std::slice::from_ref(&set), &[set.clone(), broken]).await;
    let check = push_and_read_deploy_check(&h).await;
    assert_eq!(check["conclusion"], "failure");
    let title = check["output"]["title"].as_str().unwrap();
    assert!(
        title.starts_with("YAML does not parse: deploy/broken.yaml:"),
        "{title}"
    );
    assert_eq!(
        check["output"]["annotations"][0]["path"],
        "deploy/broken.yaml"
    );
}
