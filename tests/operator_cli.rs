//! The operator commands on a real database after a real plan (issue 27 item 3): who holds the
//! lock on a root (`tfgate locks`), what a run did (`tfgate runs`, `tfgate run-show`), release a
//! lock without SQL (audited), and read the audit log (`tfgate audit`).

mod support;

use std::process::Command;

use support::*;

const ROOT: &str = "terraform {\n  required_providers {\n    fake = { source = \"tfgate/fake\", version = \"0.1.0\" }\n  }\n}\nresource \"fake_thing\" \"a\" {\n  name = \"a\"\n}\n";

/// Runs `tfgate ARGS…` on the harness's database and data directory: (exit code, stdout).
fn tfgate(h: &Harness, args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tfgate"))
        .args(args)
        .env("DATABASE_URL", &h.state.config.database_url)
        .env("TFGATE_DATA_DIR", &h.state.config.data_dir)
        .env("TFGATE_POLICY_DIR", &h.state.config.policy_dir)
        .env("USER", "ops-anna")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let err = String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), format!("{text}{err}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_answers_who_holds_what_and_what_a_run_did_without_sql() {
    let Some((h, _repo)) = one_root_harness("", ROOT).await else {
        return;
    };
    let reply = h.comment(1, "/plan", "alice").await.join("\n");
    assert!(reply.contains("| 1 |"), "{reply}");

    let (code, locks) = tfgate(&h, &["locks"]);
    assert_eq!(code, 0, "{locks}");
    let lock = "Codertocat/Hello-World/app/default";
    let line = locks
        .lines()
        .find(|l| l.starts_with(lock))
        .unwrap_or_else(|| panic!("{locks}"));
    assert!(line.contains("alice") && line.contains(" 1 "), "{line}");

    let (_, runs) = tfgate(&h, &["runs", "--repo", "Codertocat/Hello-World"]);
    let row = runs.lines().nth(1).unwrap_or_else(|| panic!("{runs}"));
    assert!(
        row.contains("plan") && row.contains("planned") && row.contains("alice"),
        "{row}"
    );
    let (_, json) = tfgate(&h, &["runs", "--json", "--pr", "1"]);
    let first: serde_json::Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    assert_eq!(first["project"], "app");

    let id = first["id"].to_string();
    let (code, show) = tfgate(&h, &["run-show", &id]);
    assert_eq!(code, 0, "{show}");
    assert!(
        show.starts_with(&format!("run {id}: plan of `app`")),
        "{show}"
    );
    assert!(
        show.contains("## tfgate plan") && show.contains("| `app` |"),
        "the posted comment: {show}"
    );
    assert!(!show.contains("111111111111"), "no account id: {show}");
    assert_eq!(tfgate(&h, &["run-show", "999"]).0, 1);

    let (code, released) = tfgate(&h, &["locks", "--release", lock]);
    assert_eq!(code, 0, "{released}");
    assert!(
        released.contains("released (was held by PR #1)"),
        "{released}"
    );
    assert_eq!(tfgate(&h, &["locks"]).1, "no locks held\n");
    assert_eq!(
        tfgate(&h, &["locks", "--release", lock]).0,
        1,
        "already gone"
    );

    let (_, audit) = tfgate(&h, &["audit", "--user", "cli:ops-anna", "--since", "1d"]);
    let line = audit.lines().nth(1).unwrap_or_else(|| panic!("{audit}"));
    assert!(
        line.contains("lock.release") && line.contains("app (default)"),
        "{line}"
    );
    let (_, old) = tfgate(&h, &["audit", "--since", "2099-01-01"]);
    assert_eq!(old, "no audit events\n");
}
