//! Table tests on real manifests (tests/fixtures/gitops, sources in SOURCES.md), changed in
//! code the way PRs change them.

use std::collections::BTreeMap;

use super::*;

fn fixture_tree(dir: &str) -> BTreeMap<String, String> {
    let root = format!("{}/tests/fixtures/gitops/{dir}", env!("CARGO_MANIFEST_DIR"));
    let mut tree = BTreeMap::new();
    let mut stack = vec![std::path::PathBuf::from(&root)];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            } else {
                let rel = e.path().strip_prefix(&root).unwrap().display().to_string();
                tree.insert(rel, std::fs::read_to_string(e.path()).unwrap());
            }
        }
    }
    tree
}

fn argo() -> BTreeMap<String, String> {
    fixture_tree("argocd")
}

fn all() -> Vec<String> {
    vec!["**".into()]
}

#[test]
fn argocd_objects_from_the_documented_examples() {
    let objects = collect(&argo(), &all(), Tool::Argocd).unwrap();
    assert_eq!(objects.len(), 2);
    let app = objects
        .iter()
        .find(|o| o.kind == Kind::Application)
        .unwrap();
    assert_eq!(
        (app.name.as_str(), app.namespace.as_str()),
        ("guestbook", "argocd")
    );
    assert_eq!(
        app.source,
        "https://github.com/argoproj/argocd-example-apps.git chart-name @ HEAD"
    );
    assert_eq!(
        app.destination,
        "https://kubernetes.default.svc / guestbook"
    );
    assert!(app.automated && app.prune);
    assert_eq!((app.file.as_str(), app.line), ("application.yaml", 1));
    let set = objects
        .iter()
        .find(|o| o.kind == Kind::ApplicationSet)
        .unwrap();
    assert!(!set.automated && !set.prune);
    assert_eq!(set.destination, "{{.url}} / guestbook");
    assert!(
        collect(&argo(), &all(), Tool::Flux).unwrap().is_empty(),
        "kinds follow the tool"
    );
}

#[test]
fn flux_objects_follow_the_kustomization_chain() {
    let tree = fixture_tree("flux");
    // Only the production overlay is watched; the HelmRelease is reached through
    // apps/production/kustomization.yaml → ../base/podinfo → release.yaml.
    let objects = collect(&tree, &["apps/production/**".into()], Tool::Flux).unwrap();
    assert_eq!(objects.len(), 1, "{objects:?}");
    let release = &objects[0];
    assert_eq!(release.kind, Kind::HelmRelease);
    assert_eq!(release.file, "apps/base/podinfo/release.yaml");
    // The production overlay's patch (podinfo-values.yaml) sets the chart version.
    assert_eq!(
        release.source,
        "chart podinfo@>=1.0.0 from HelmRepository/podinfo",
    );
    let clusters = collect(&tree, &["clusters/**".into()], Tool::Flux).unwrap();
    let names: Vec<&str> = clusters.iter().map(|o| o.name.as_str()).collect();
    assert!(
        names.contains(&"apps") && names.contains(&"infra-configs"),
        "{names:?}"
    );
    let apps = clusters.iter().find(|o| o.name == "apps").unwrap();
    assert!(apps.prune && apps.automated);
    assert_eq!(apps.source, "ExternalArtifact/apps ./production");
    assert!(clusters
        .iter()
        .filter(|o| o.file.ends_with("infrastructure.yaml"))
        .all(|o| o.line > 1 || o.name == "infra-controllers"));
}

#[test]
fn removing_an_application_under_prune_needs_acknowledgement() {
    let base = collect(&argo(), &all(), Tool::Argocd).unwrap();
    let mut head_tree = argo();
    head_tree.remove("application.yaml");
    let head = collect(&head_tree, &all(), Tool::Argocd).unwrap();
    let d = diff(&base, &head);
    assert_eq!((d.added.len(), d.changed.len(), d.removed.len()), (0, 0, 1));
    let acks = acknowledgements(&d);
    assert_eq!(acks.len(), 1);
    assert!(
        acks[0].starts_with("Application `guestbook` is removed"),
        "{acks:?}"
    );
    assert_eq!(check_conclusion(&Ok(d.clone())), "action_required");
    let text = deploy_check_text(&Ok(d), &mut |s| s.to_string());
    let crate::model::DeployCheckBody::Changes { rows, .. } = &text.body else {
        panic!("{text:?}")
    };
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].change, crate::model::DeployChange::Removed);
    assert_eq!(
        (rows[0].kind.as_str(), rows[0].name.as_str()),
        ("Application", "guestbook")
    );
    assert_eq!(
        (rows[0].file.as_str(), rows[0].line),
        ("application.yaml", 1)
    );
}

#[test]
fn prune_and_destination_changes_need_acknowledgement_other_changes_do_not() {
    let base_tree = argo();
    let change = |from: &str, to: &str| {
        let mut t = base_tree.clone();
        let text = t["applicationset-list.yaml"].replace(from, to);
        t.insert("applicationset-list.yaml".into(), text);
        diff(
            &collect(&base_tree, &all(), Tool::Argocd).unwrap(),
            &collect(&t, &all(), Tool::Argocd).unwrap(),
        )
    };
    let moved = change("namespace: guestbook", "namespace: payments");
    assert_eq!(
        acknowledgements(&moved),
        vec!["ApplicationSet `guestbook` moves to another destination".to_string()]
    );
    let pruned = change(
        "      destination:",
        "      syncPolicy:\n        automated:\n          prune: true\n      destination:",
    );
    let acks = acknowledgements(&pruned);
    assert_eq!(acks.len(), 2, "{acks:?}");
    assert!(acks.iter().any(|a| a.ends_with("turns prune on")));
    let revision = change("targetRevision: HEAD", "targetRevision: v2.0.0");
    assert_eq!(revision.changed.len(), 1);
    assert!(acknowledgements(&revision).is_empty());
    assert_eq!(check_conclusion(&Ok(revision)), "success");
}

#[test]
fn broken_yaml_names_its_file_and_line() {
    let mut tree = argo();
    tree.insert(
        "broken.yaml".into(),
        "apiVersion: v1\nkind: [unclosed\n".into(),
    );
    let err = collect(&tree, &all(), Tool::Argocd).unwrap_err();
    assert_eq!(err.len(), 1);
    assert_eq!(err[0].file, "broken.yaml");
    assert!(err[0].line >= 2, "{:?}", err[0]);
    let parsed = Err(err);
    assert_eq!(check_conclusion(&parsed), "failure");
    let text = deploy_check_text(&parsed, &mut |s| s.to_string());
    let crate::model::DeployCheckBody::Unparsed { problems } = &text.body else {
        panic!("{text:?}")
    };
    assert!(problems[0].starts_with("broken.yaml:"), "{problems:?}");
}

#[test]
fn kustomize_resources_never_leave_the_repository() {
    let mut tree = BTreeMap::new();
    tree.insert(
        "deploy/kustomization.yaml".to_string(),
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ../../outside\n  - https://example.com/x.yaml\n  - app.yaml\n".to_string(),
    );
    tree.insert(
        "deploy/app.yaml".to_string(),
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: a\nspec:\n  destination:\n    server: s\n".to_string(),
    );
    let objects = collect(&tree, &["deploy/kustomization.yaml".into()], Tool::Argocd).unwrap();
    assert_eq!(objects.len(), 1);
    assert_eq!(objects[0].file, "deploy/app.yaml");
}

#[test]
fn cells_are_redacted_and_escaped() {
    let d = DeployDiff {
        added: vec![DeployObject {
            kind: Kind::Application,
            name: "a|b".into(),
            namespace: "argocd".into(),
            file: "x.yaml".into(),
            line: 3,
            source: "https://token@git.example.com/repo".into(),
            destination: "https://10.0.0.1 / ns".into(),
            automated: false,
            prune: false,
        }],
        ..Default::default()
    };
    let text = deploy_check_text(&Ok(d), &mut |s| {
        s.replace("10.0.0.1", "<ip-1>").replace("token@", "")
    });
    let crate::model::DeployCheckBody::Changes { rows, .. } = &text.body else {
        panic!("{text:?}")
    };
    assert_eq!(rows[0].name, "a\\|b");
    assert_eq!(rows[0].source, "https://git.example.com/repo");
    assert_eq!(rows[0].destination, "https://<ip-1> / ns");
}
