//! The admin and preview commands of the real binary.

use std::process::Command;

fn tfgate(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tfgate"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_clear()
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[test]
fn policy_check_accepts_shipped_examples_and_names_file_and_line_of_problems() {
    let (code, out, _) = tfgate(&["policy", "check", "policies"]);
    assert_eq!(code, 0, "{out}");
    let dir = tempfile::tempdir().unwrap();
    let original = std::fs::read_to_string("policies/example-seed000.yaml").unwrap();
    let corrupted = original.replacen("  - name: eks\n", "  - name: eks\n    bogus_key: 1\n", 1);
    assert_ne!(original, corrupted);
    std::fs::write(dir.path().join("seed.yaml"), corrupted).unwrap();
    let (code, out, _) = tfgate(&["policy", "check", dir.path().to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        out.contains("seed.yaml:") && out.contains("bogus_key"),
        "{out}"
    );
}

#[test]
fn render_apply_of_a_real_partial_failure_posts_no_provider_text() {
    let (code, md, err) = tfgate(&[
        "render",
        "apply",
        "tests/fixtures/tf-real/apply.jsonl",
        "--plan",
        "tests/fixtures/tf-real/plan.json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        md.contains("❌ failed") && md.contains("`iam:GetRole`"),
        "{md}"
    );
    for leak in ["arn:", "XPTO", "request id", "is not authorized"] {
        assert!(!md.contains(leak), "{leak} in {md}");
    }
}

#[test]
fn render_plan_of_real_fixture() {
    let (code, md, err) = tfgate(&["render", "plan", "tests/fixtures/tf-real/plan.json"]);
    assert_eq!(code, 0, "{err}");
    assert!(md.contains("fake_thing"));
}
