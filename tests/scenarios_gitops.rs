//! Merge is deploy (issue 28): a push to a PR of a repository whose policy names `gitops`
//! folders gets a `tfgate/deploy` check run previewing what merging deploys or deletes, from
//! the real ArgoCD examples (tests/fixtures/gitops, sources in SOURCES.md).

#[path = "support/fake_github_outbox.rs"]
#[allow(dead_code)]
mod fake_github_outbox;
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
    last_deploy_check(h)
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

/// A push of `sha` to the PR (the fake serves it as the PR's head): its deploy check run.
async fn push_at(h: &Harness, sha: &str) -> Value {
    h.github.with(|g| g.pr.head_sha = sha.to_string());
    let mut pr = webhook_fixture("pull_request.synchronize.json");
    pr["pull_request"]["head"]["sha"] = sha.into();
    h.deliver("pull_request", &pr).await;
    h.run_jobs().await;
    last_deploy_check(h)
}

fn last_deploy_check(h: &Harness) -> Value {
    h.github.with(|g| {
        let body = g
            .requests
            .iter()
            .rev()
            .find(|r| r.is("POST", "/check-runs") && r.body.contains("tfgate/deploy"))
            .map(|r| r.body.clone())
            .expect("a tfgate/deploy check run");
        serde_json::from_str(&body).unwrap()
    })
}

/// A PR removing the `guestbook` Application (synced with prune), pushed as commit `111…`:
/// its `tfgate/deploy` check is shown `action_required`, and check runs are listed back.
async fn removal_shown() -> Harness {
    let h = Harness::start_with_policy(Backend::Sqlite, Some(POLICY))
        .await
        .unwrap();
    let _listed = h.github.list_created_check_runs().await;
    let set = (
        "deploy/set.yaml",
        argocd_fixture("applicationset-list.yaml"),
    );
    let app = (
        "deploy/apps/guestbook.yaml",
        argocd_fixture("application.yaml"),
    );
    serve_base_and_head(&h, &[set.clone(), app], &[set]).await;
    let shown = push_at(&h, &"1".repeat(40)).await;
    assert_eq!(shown["conclusion"], "action_required");
    assert_eq!(
        shown["output"]["title"],
        "1 change(s) need acknowledgement before merge"
    );
    h
}

#[tokio::test]
async fn a_maintainer_acknowledges_a_removal_a_writer_cannot_and_a_new_push_asks_again() {
    let h = removal_shown().await;
    let first = "1".repeat(40);
    h.github.with(|g| {
        g.permissions.insert("walt".into(), "write".into());
        g.permissions.insert("maya".into(), "maintain".into());
    });

    let refused = h.comment(1, "/ack-deploy", "walt").await.join("\n");
    assert!(
        refused.contains(
            "`/ack-deploy` needs `maintain` permission on this repository; you have `write`."
        ),
        "{refused}"
    );
    assert_eq!(last_deploy_check(&h)["conclusion"], "action_required");

    let acked = h.comment(1, "/ack-deploy", "maya").await.join("\n");
    assert!(
        acked.contains("## ✅ Deploy acknowledged") && acked.contains("commit `1111111`"),
        "{acked}"
    );
    let check = last_deploy_check(&h);
    assert_eq!(
        (check["conclusion"].as_str(), check["head_sha"].as_str()),
        (Some("success"), Some(first.as_str()))
    );
    assert_eq!(
        check["output"]["title"],
        "acknowledged by @maya: 1 change(s) need acknowledgement before merge"
    );
    let audited: Vec<(String, String)> = sqlx::query_as(
        "SELECT actor, result FROM audit_events WHERE action = 'ack-deploy' ORDER BY id",
    )
    .fetch_all(&h.state.db.pool)
    .await
    .unwrap();
    assert_eq!(
        audited,
        [
            ("walt".into(), "deny".into()),
            ("maya".into(), "allow".into())
        ]
    );

    // A new push is previewed again; the acknowledgement stays with the commit it was given on.
    assert_eq!(
        push_at(&h, &"2".repeat(40)).await["conclusion"],
        "action_required"
    );
}

/// Every file of the fixture tree `tests/fixtures/gitops/<dir>`, as (repository path, text).
fn fixture_files(dir: &str) -> Vec<(String, String)> {
    let root = fixture_path(&format!("gitops/{dir}"));
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .to_string();
                out.push((rel, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    out
}

#[tokio::test]
async fn removing_a_flux_kustomization_with_prune_needs_acknowledgement() {
    let policy = POLICY.replace(
        "path: \"deploy/**\"\n    kind: argocd",
        "path: \"clusters/**\"\n    kind: flux",
    );
    let h = Harness::start_with_policy(Backend::Sqlite, Some(&policy))
        .await
        .unwrap();
    let base = fixture_files("flux");
    let head: Vec<(String, String)> = base
        .iter()
        .filter(|(p, _)| p != "clusters/production/apps.yaml")
        .cloned()
        .collect();
    let base_refs: Vec<(&str, String)> =
        base.iter().map(|(p, t)| (p.as_str(), t.clone())).collect();
    let head_refs: Vec<(&str, String)> =
        head.iter().map(|(p, t)| (p.as_str(), t.clone())).collect();
    serve_base_and_head(&h, &base_refs, &head_refs).await;
    let check = push_and_read_deploy_check(&h).await;
    assert_eq!(check["conclusion"], "action_required");
    let summary = check["output"]["summary"].as_str().unwrap();
    assert!(
        summary.contains("| **removed** | Kustomization (Flux) | `apps` |"),
        "{summary}"
    );
    eprintln!("flux check:\n{}\n{summary}", check["output"]["title"]);
}

#[tokio::test]
async fn an_acknowledgement_accepts_only_the_preview_that_was_shown() {
    let h = removal_shown().await;
    h.github
        .with(|g| g.permissions.insert("maya".into(), "maintain".into()));

    // What the commits hold now differs from what was shown (here: the ApplicationSet goes too).
    let empty = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(empty.path().join("deploy")).unwrap();
    h.github.serve_repo(empty.path());
    let reply = h.comment(1, "/ack-deploy", "maya").await.join("\n");
    assert!(reply.contains("changed since it was shown"), "{reply}");
    let fresh = last_deploy_check(&h);
    assert_eq!(fresh["conclusion"], "action_required");
    assert_eq!(
        fresh["output"]["title"],
        "2 change(s) need acknowledgement before merge"
    );

    // Acknowledging what is shown now works.
    let reply = h.comment(1, "/ack-deploy", "maya").await.join("\n");
    assert!(reply.contains("Deploy acknowledged"), "{reply}");
    assert_eq!(last_deploy_check(&h)["conclusion"], "success");
}
