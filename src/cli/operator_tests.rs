use super::*;

fn lock(project: &str, workspace: &str, pending: bool) -> LockRow {
    LockRow {
        repo: "acme/infra".into(),
        project: project.into(),
        workspace: workspace.into(),
        pr: 42,
        holder: "alice".into(),
        since_ms: 1_764_892_800_000, // 2025-12-05 00:00 UTC
        release_pending: pending,
    }
}

#[test]
fn lock_ids_round_trip_even_with_slashes_in_the_project() {
    for (project, workspace) in [("eks", "default"), ("infra/eks", "prod"), ("a/b/c", "w")] {
        let id = lock_id(&lock(project, workspace, false));
        assert_eq!(
            parse_lock_id(&id),
            Ok(("acme/infra".into(), project.into(), workspace.into())),
            "{id}"
        );
    }
    for bad in ["acme/infra/eks", "acme//eks/default", "", "eks"] {
        assert!(
            parse_lock_id(bad)
                .unwrap_err()
                .contains("OWNER/REPO/PROJECT/WORKSPACE"),
            "{bad}"
        );
    }
}

#[test]
fn times_and_dates() {
    assert_eq!(format_time(0), "1970-01-01 00:00");
    assert_eq!(format_time(1_764_892_800_000), "2025-12-05 00:00");
    assert_eq!(format_time(951_782_400_000 + 3_723_000), "2000-02-29 01:02");
    let now = 1_764_892_800_000;
    assert_eq!(parse_since("2025-12-05", now), Ok(1_764_892_800_000));
    assert_eq!(parse_since("2000-02-29", now), Ok(951_782_400_000));
    assert_eq!(parse_since("7d", now), Ok(now - 7 * 86_400_000));
    assert_eq!(parse_since("12h", now), Ok(now - 12 * 3_600_000));
    for bad in ["yesterday", "2025-13-01", "2025-12", "7w"] {
        assert!(parse_since(bad, now).is_err(), "{bad}");
    }
}

#[test]
fn locks_table_names_each_lock_and_a_pending_release() {
    assert_eq!(locks_table(&[]), "no locks held\n");
    let text = locks_table(&[lock("eks", "default", false), lock("net", "prod", true)]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    assert!(lines[1].starts_with("acme/infra/eks/default") && lines[1].contains("alice"));
    assert!(lines[1].contains("2025-12-05 00:00"));
    assert!(lines[2].ends_with("(released when its run ends)"));
}

fn run(status: &str, finished: Option<i64>) -> RunListRow {
    RunListRow {
        id: 7,
        repo: "acme/infra".into(),
        pr: 42,
        project: "eks".into(),
        workspace: "prod".into(),
        command: "apply".into(),
        status: status.into(),
        actor: "alice".into(),
        head_sha: "a".repeat(40),
        created_ms: 1_764_892_800_000,
        finished_ms: finished,
        job_id: Some(3),
    }
}

#[test]
fn runs_table_and_header() {
    assert_eq!(runs_table(&[]), "no runs\n");
    let text = runs_table(&[run("applied", Some(1_764_892_800_000 + 83_500))]);
    let row = text.lines().nth(1).unwrap();
    for part in [
        "7",
        "acme/infra",
        "42",
        "eks (prod)",
        "apply",
        "applied",
        "1m23s",
        "alice",
    ] {
        assert!(row.contains(part), "{part} in {row}");
    }
    let header = run_header(&run("running", None));
    assert!(header.starts_with("run 7: apply of `eks` (workspace prod) in acme/infra PR #42\n"));
    assert!(header.contains("took still running"), "{header}");
}

#[test]
fn audit_table_joins_rule_and_detail() {
    assert_eq!(audit_table(&[]), "no audit events\n");
    let row = AuditRow {
        at_ms: 1_764_892_800_000,
        actor: "bob".into(),
        repo: Some("acme/infra".into()),
        pr: Some(42),
        action: "apply".into(),
        rule: Some("permissions.apply".into()),
        result: "denied".into(),
        detail: Some("needs maintain".into()),
    };
    let text = audit_table(&[row]);
    let line = text.lines().nth(1).unwrap();
    assert!(line.contains("bob") && line.contains("denied"), "{line}");
    assert!(
        line.ends_with("permissions.apply · needs maintain"),
        "{line}"
    );
}
