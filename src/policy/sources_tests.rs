use std::path::{Path, PathBuf};

use super::*;
use crate::policy::load_policies;

fn protected() -> ProtectedPaths {
    ProtectedPaths {
        dirs: vec![PathBuf::from("/srv/tfgate/data")],
        files: vec![PathBuf::from("/etc/tfgate/app.pem")],
        cwd: PathBuf::from("/srv/tfgate"),
    }
}

/// Links: `/var/lib/innocent` points at the sealing key; nothing else exists.
fn resolve(path: &Path) -> Option<PathBuf> {
    (path == Path::new("/var/lib/innocent")).then(|| PathBuf::from("/srv/tfgate/data/seal.key"))
}

#[test]
fn tfgate_variables_and_the_database_url_are_refused() {
    for (name, refused) in [
        ("TFGATE_WEBHOOK_SECRET", true),
        ("TFGATE_ENCRYPTION_KEY", true),
        ("tfgate_private_key", true),
        ("DATABASE_URL", true),
        ("KUKIE_ADMIN_CIDRS", false),
        ("MY_TFGATE_VALUE", false),
        ("DATABASE_URL_RO", false),
    ] {
        assert_eq!(env_source_problem(name).is_some(), refused, "{name}");
    }
}

#[test]
fn files_of_the_data_directory_and_the_app_key_are_refused() {
    for (path, refused) in [
        ("/srv/tfgate/data/seal.key", true),
        ("/srv/tfgate/data", true),
        ("data/tfgate.db", true),
        ("./data/../data/app-credentials.json", true),
        ("/srv/tfgate/other/../data/work/run-1/main.tf", true),
        ("/etc/tfgate/app.pem", true),
        ("/etc/tfgate/../tfgate/app.pem", true),
        ("/var/lib/innocent", true),
        ("/srv/tfgate/database", false),
        ("/etc/tfgate/app.pem.pub", false),
        ("/etc/tfgate/inputs/admin-cidrs", false),
        ("inputs/admin-cidrs", false),
    ] {
        let problem = file_source_problem(path, &protected(), &resolve);
        assert_eq!(problem.is_some(), refused, "{path}: {problem:?}");
    }
}

const POLICY: &str = "repos: [acme/infra]
projects:
  - name: app
    dir: app
    plan_role: arn:aws:iam::123456789012:role/plan
    apply_role: arn:aws:iam::123456789012:role/apply
inputs:
  - name: CIDRS
    variable: cidrs
    source: file:/etc/tfgate/inputs/cidrs
  - name: KEY
    variable: key
    source: file:/srv/tfgate/data/seal.key
registry_tokens:
  - host: registry.acme.io
    source: SOURCE
";

#[test]
fn problems_are_located_at_the_source() {
    // (the registry token's source, where the first problem is, what it says)
    let table = [
        (
            "env:REGISTRY_TOKEN",
            (13, 13, "file:/srv/tfgate/data/seal.key"),
        ),
        ("env:TFGATE_WEBHOOK_SECRET", (16, 13, "TFGATE_*")),
        ("env:DATABASE_URL", (16, 13, "DATABASE_URL")),
        (
            "file:/etc/tfgate/app.pem",
            (13, 13, "file:/srv/tfgate/data/seal.key"),
        ),
    ];
    for (token_source, (line, col, says)) in table {
        let text = POLICY.replace("SOURCE", token_source);
        let files = [("policies/acme.yaml", text.as_str())];
        let got = guard(load_policies(&files), &files, &protected(), &resolve);
        let problems = got.unwrap_err();
        let p = &problems[0];
        assert_eq!(
            (p.file.as_str(), p.line, p.col),
            ("policies/acme.yaml", line, col),
            "{token_source}: {problems:?}"
        );
        assert!(p.message.contains(says), "{token_source}: {}", p.message);
    }
    // The App key through a registry token: found after the data-directory input.
    let text = POLICY.replace("SOURCE", "file:/etc/tfgate/app.pem");
    let files = [("policies/acme.yaml", text.as_str())];
    let problems = guard(load_policies(&files), &files, &protected(), &resolve).unwrap_err();
    let at: Vec<(usize, usize)> = problems.iter().map(|p| (p.line, p.col)).collect();
    assert_eq!(at, [(13, 13), (16, 13)]);
    // Without protected paths (no server known), only the environment rule applies.
    let files = [(
        "policies/acme.yaml",
        POLICY.replace("SOURCE", "env:REGISTRY_TOKEN"),
    )];
    assert!(guard(
        load_policies(&files),
        &files,
        &ProtectedPaths::default(),
        &|_| None
    )
    .is_ok());
}
