use super::*;

fn is_ok(o: &Outcome) -> bool {
    matches!(o, Outcome::Ok(_))
}

fn fails_with(o: &Outcome, problem: &str, fix: &str) -> bool {
    matches!(o, Outcome::Fail { problem: p, fix: f } if p.contains(problem) && f.contains(fix))
}

#[test]
fn database_table() {
    let table = [
        (
            DatabaseSeen::Unreachable("refused".into()),
            Some(("refused", "DATABASE_URL")),
        ),
        (
            DatabaseSeen::Reachable {
                applied: 7,
                known: 9,
            },
            Some(("2 of 9", "tfgate migrate")),
        ),
        (
            DatabaseSeen::Reachable {
                applied: 10,
                known: 9,
            },
            Some(("10", "newer tfgate")),
        ),
        (
            DatabaseSeen::Reachable {
                applied: 9,
                known: 9,
            },
            None,
        ),
    ];
    for (seen, failure) in table {
        let got = judge_database(&seen);
        match failure {
            None => assert!(is_ok(&got), "{seen:?}: {got:?}"),
            Some((p, f)) => assert!(fails_with(&got, p, f), "{seen:?}: {got:?}"),
        }
    }
}

#[test]
fn seal_key_table() {
    let loaded = |stored: Option<&str>| SealKeySeen::Loaded {
        fingerprint: "aaaa".into(),
        stored: stored.map(str::to_string),
    };
    // (seen, postgres, configured, expected: ok or (problem, fix))
    type Row = (
        SealKeySeen,
        bool,
        bool,
        Option<(&'static str, &'static str)>,
    );
    let table: Vec<Row> = vec![
        (SealKeySeen::NotYetCreated, false, false, None),
        (
            SealKeySeen::NotYetCreated,
            true,
            false,
            Some(("PostgreSQL", "openssl rand")),
        ),
        (loaded(Some("aaaa")), true, true, None),
        (loaded(None), false, false, None),
        (
            loaded(Some("bbbb")),
            false,
            true,
            Some(("does not match", "original")),
        ),
        (
            SealKeySeen::Unreadable("bad base64".into()),
            false,
            true,
            Some(("bad base64", "32 bytes")),
        ),
    ];
    for (seen, postgres, configured, expected) in table {
        let got = judge_seal_key(&seen, postgres, configured);
        match expected {
            None => assert!(is_ok(&got), "{seen:?}: {got:?}"),
            Some((p, f)) => assert!(fails_with(&got, p, f), "{seen:?}: {got:?}"),
        }
    }
}

#[test]
fn policies_table() {
    let loaded = |files, installed| PoliciesSeen::Loaded {
        source: "policies".into(),
        files,
        installed,
    };
    let table: Vec<(PoliciesSeen, Option<(&str, &str)>)> = vec![
        (
            PoliciesSeen::Unreadable("no such dir".into()),
            Some(("no such dir", "TFGATE_POLICY_DIR")),
        ),
        (
            PoliciesSeen::Problems(vec!["a.yaml:3:1: unknown key".into(), "b".into()]),
            Some(("2 problem(s), first: a.yaml:3:1", "tfgate policy check")),
        ),
        (loaded(0, None), Some(("no policy file", "example"))),
        (
            PoliciesSeen::NotYetRead("acme/admin".into()),
            Some(("from acme/admin yet", "tfgate/policy")),
        ),
        (
            loaded(2, Some((5, 0))),
            Some(("any of the 5 installed", "repos:")),
        ),
        (loaded(2, Some((5, 3))), None),
        (loaded(2, Some((0, 0))), None),
        (loaded(1, None), None),
    ];
    for (seen, expected) in table {
        let got = judge_policies(&seen);
        match expected {
            None => assert!(is_ok(&got), "{seen:?}: {got:?}"),
            Some((p, f)) => assert!(fails_with(&got, p, f), "{seen:?}: {got:?}"),
        }
    }
}

#[test]
fn app_secret_terraform_sandbox_table() {
    assert!(fails_with(
        &judge_app(&AppSeen::NotConfigured),
        "no GitHub App",
        "manifest"
    ));
    assert!(fails_with(
        &judge_app(&AppSeen::Refused("401".into())),
        "401",
        "TFGATE_APP_ID"
    ));
    assert!(is_ok(&judge_app(&AppSeen::Valid("tfgate".into()))));
    assert!(fails_with(
        &judge_webhook_secret(0),
        "refused",
        "TFGATE_WEBHOOK_SECRET"
    ));
    assert!(is_ok(&judge_webhook_secret(2)));
    let binary = |r: Result<&str, &str>| TerraformSeen {
        binary: Some((
            "/opt/terraform".into(),
            r.map(Into::into).map_err(Into::into),
        )),
        releases: vec![],
    };
    assert!(fails_with(
        &judge_terraform(&binary(Err("not found"))),
        "/opt/terraform does not run: not found",
        "TFGATE_TERRAFORM_VERSION"
    ));
    assert_eq!(
        judge_terraform(&binary(Ok("Terraform v1.0.3"))),
        Outcome::Ok("/opt/terraform: Terraform v1.0.3".into())
    );
    let releases = |r: Result<bool, &str>| TerraformSeen {
        binary: None,
        releases: vec![
            ("Terraform 1.9.8".into(), Ok(true)),
            ("OpenTofu 1.8.1".into(), r.map_err(Into::into)),
        ],
    };
    assert_eq!(
        judge_terraform(&releases(Ok(false))),
        Outcome::Ok(
            "Terraform 1.9.8 installed; OpenTofu 1.8.1 downloadable (signature checked)".into()
        )
    );
    assert!(fails_with(
        &judge_terraform(&releases(Err("the signature is refused"))),
        "OpenTofu 1.8.1 cannot be installed: the signature is refused",
        "TFGATE_RELEASE_URL"
    ));
    assert!(matches!(
        judge_terraform(&TerraformSeen::default()),
        Outcome::Warn(_)
    ));
    assert!(matches!(judge_sandbox(None), Outcome::Warn(_)));
    assert!(is_ok(&judge_sandbox(Some(&Ok(())))));
    assert!(fails_with(
        &judge_sandbox(Some(
            &Err("No permissions to creating new namespace".into())
        )),
        "namespace",
        "apt-get install bubblewrap"
    ));
    assert!(is_ok(&judge_cgroups("cgroup v1", None)));
    assert!(
        matches!(judge_cgroups("rlimits", Some("fork bomb")), Outcome::Warn(w) if w.contains("fork bomb"))
    );
}

#[test]
fn disk_table() {
    const GIB: u64 = 1024 * 1024 * 1024;
    assert!(fails_with(
        &judge_disk(&Ok(GIB), "/w"),
        "only 1.0 GiB",
        "TFGATE_WORK_DIR"
    ));
    assert!(matches!(judge_disk(&Ok(5 * GIB), "/w"), Outcome::Warn(w) if w.contains("low")));
    assert_eq!(
        judge_disk(&Ok(20 * GIB), "/w"),
        Outcome::Ok("/w: 20.0 GiB free".into())
    );
    assert!(fails_with(
        &judge_disk(&Err("denied".into()), "/w"),
        "denied",
        "writable"
    ));
}
