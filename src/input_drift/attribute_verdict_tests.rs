//! Verdicts on the real fixture and planted scenarios: tfvars and declarations in the diff,
//! clean PRs, drift warnings with the apply gate, and input sets from statuses.

use super::planted::{count_from_input, hcl, module_output, real_with_root_variable};
use super::*;

#[test]
fn regular_variable_explained_by_tfvars_in_the_diff() {
    // role_fail_with is an ordinary variable (not a shared input).
    let cases: Vec<(&str, Vec<&str>, HclIndex, Option<&str>)> = vec![
        (
            "",
            vec!["terraform.tfvars"],
            HclIndex::default(),
            Some("terraform.tfvars"),
        ),
        (
            "",
            vec!["prod.auto.tfvars"],
            HclIndex::default(),
            Some("prod.auto.tfvars"),
        ),
        ("", vec!["sub/terraform.tfvars"], HclIndex::default(), None),
        (
            "roots/app",
            vec!["roots/app/terraform.tfvars"],
            HclIndex::default(),
            Some("roots/app/terraform.tfvars"),
        ),
        (
            "roots/app",
            vec!["terraform.tfvars"],
            HclIndex::default(),
            None,
        ),
        // With the tfvars files indexed, only a file that sets the variable explains it.
        (
            "",
            vec!["prod.tfvars"],
            hcl(&[
                ("prod.tfvars", "other = 1\n"),
                ("dev.tfvars", "role_fail_with = \"x\"\n"),
            ]),
            None,
        ),
        (
            "",
            vec!["dev.tfvars"],
            hcl(&[
                ("prod.tfvars", "other = 1\n"),
                ("dev.tfvars", "role_fail_with = \"x\"\n"),
            ]),
            Some("dev.tfvars"),
        ),
        // The variable's declaration file, when known.
        (
            "",
            vec!["variables.tf"],
            hcl(&[
                ("variables.tf", "variable \"role_fail_with\" {}\n"),
                ("main.tf", "resource \"fake_thing\" \"role\" {}\n"),
            ]),
            Some("variables.tf"),
        ),
        (
            "",
            vec!["outputs.tf"],
            hcl(&[
                ("variables.tf", "variable \"role_fail_with\" {}\n"),
                ("main.tf", "resource \"fake_thing\" \"role\" {}\n"),
            ]),
            None,
        ),
    ];
    for (root_dir, pr_files, index, want) in cases {
        let setup = Setup {
            changed: vec![],
            pr_files: pr_files.clone(),
            root_dir,
            hcl: index,
            ..Setup::default()
        };
        let report = run_text(REAL, &setup);
        let role = change(&report, "fake_thing.role");
        assert_eq!(
            role.explained_by_diff.as_deref(),
            want,
            "{root_dir} {pr_files:?}"
        );
        let verdict = if want.is_some() {
            Verdict::ExplainedByDiff
        } else {
            Verdict::OutsideDiff
        };
        assert_eq!(role.verdict, verdict, "{root_dir} {pr_files:?}");
    }
}

#[test]
fn clean_pr_raises_no_alarm() {
    // Inputs unchanged; the PR edits main.tf: every change is explained, nothing drifts.
    let setup = Setup {
        inputs: vec![("ADMIN_CIDRS", "admin_cidrs"), ("ROLE", "role_fail_with")],
        changed: vec![],
        pr_files: vec!["main.tf"],
        ..Setup::default()
    };
    for plan in [
        module_output(),
        count_from_input(),
        real_with_root_variable(),
    ] {
        let report = run(&plan, &setup);
        assert!(report.drifted_inputs().is_empty());
        for c in &report.changes {
            assert_eq!(c.verdict, Verdict::ExplainedByDiff, "{}", c.address);
        }
        assert_eq!(
            input_drift_gate(OnInputDrift::Block, &report.drifted_inputs(), &[]),
            InputDriftGate::Allow
        );
    }
}

#[test]
fn warnings_and_gate_for_a_drifted_input() {
    let key = b"server-key";
    let before = fingerprint(key, "ADMIN_CIDRS", "[\"10.0.0.1/32\"]");
    let after = fingerprint(key, "ADMIN_CIDRS", "[\"10.0.0.1/32\",\"10.0.0.2/32\"]");
    let status = |bumped: bool| InputStatus {
        name: "ADMIN_CIDRS".into(),
        variable: "admin_cidrs".into(),
        current: after.clone(),
        last_applied: Some(before.clone()),
        committed_lock: None,
        changed_since_apply: true,
        lock_matches: None,
        lock_updated_in_pr: bumped,
    };
    let report = run(&module_output(), &Setup::default());
    let views = drift_warnings(&report, &[status(false)]);
    assert_eq!(views.len(), 1);
    let view = &views[0];
    assert_eq!(view.address, "fake_thing.role");
    assert_eq!(view.attribute_paths, strings(&["fail_with"]));
    assert_eq!(view.input_name, "ADMIN_CIDRS");
    assert_eq!(view.fingerprint_before, before.short());
    assert_eq!(view.fingerprint_after, after.short());
    assert_eq!(view.explained_by, None);
    assert!(!format!("{views:?}").contains("10.0.0"));
    let drifted = report.drifted_inputs();
    assert_eq!(drifted, strings(&["ADMIN_CIDRS"]));
    assert!(matches!(
        input_drift_gate(OnInputDrift::Block, &drifted, &drifted),
        InputDriftGate::Refuse { .. }
    ));
    assert_eq!(
        input_drift_gate(OnInputDrift::Confirm, &drifted, &drifted),
        InputDriftGate::AllowWithAudit {
            inputs: drifted.clone()
        }
    );

    // The lock-file PR: explained, listed for the reader, not blocking.
    let setup = Setup {
        bumped: vec!["ADMIN_CIDRS"],
        ..Setup::default()
    };
    let report = run(&module_output(), &setup);
    let views = drift_warnings(&report, &[status(true)]);
    assert_eq!(views.len(), 1);
    assert_eq!(views[0].explained_by.as_deref(), Some("tfgate.inputs.lock"));
    assert!(report.drifted_inputs().is_empty());
    assert_eq!(
        input_drift_gate(OnInputDrift::Block, &report.drifted_inputs(), &[]),
        InputDriftGate::Allow
    );
}

#[test]
fn input_sets_from_statuses() {
    let fp = |v: &str| fingerprint(b"k", "A", v);
    let status = |name: &str, variable: &str, last: &str, bumped: bool| InputStatus {
        name: name.into(),
        variable: variable.into(),
        current: fp("new"),
        last_applied: Some(fp(last)),
        committed_lock: None,
        changed_since_apply: last != "new",
        lock_matches: None,
        lock_updated_in_pr: bumped,
    };
    let (changed, bumped) = input_sets(&[
        status("A", "a", "old", true),
        status("B", "b", "new", false),
        status("C", "c", "old", false),
    ]);
    assert_eq!(changed, ["a", "c"].iter().map(|s| s.to_string()).collect());
    assert_eq!(bumped, ["A"].iter().map(|s| s.to_string()).collect());
}

#[test]
fn a_drifted_input_on_a_resource_the_pr_also_edits_names_both() {
    let key = b"server-key";
    let status = InputStatus {
        name: "ADMIN_CIDRS".into(),
        variable: "admin_cidrs".into(),
        current: fingerprint(key, "ADMIN_CIDRS", "new"),
        last_applied: Some(fingerprint(key, "ADMIN_CIDRS", "old")),
        committed_lock: None,
        changed_since_apply: true,
        lock_matches: None,
        lock_updated_in_pr: false,
    };
    let indexed = || {
        hcl(&[
            (
                "main.tf",
                "resource \"fake_thing\" \"role\" {}\nmodule \"net\" {\n  source = \"./net\"\n}\n",
            ),
            (
                "net/outputs.tf",
                "output \"allowed\" {\n  value = var.cidrs\n}\n",
            ),
            ("net/variables.tf", "variable \"cidrs\" {}\n"),
        ])
    };
    // (PR files, HCL, the file named beside the drift, the paths it sets)
    type Case = (
        Vec<&'static str>,
        HclIndex,
        Option<&'static str>,
        Vec<&'static str>,
    );
    let cases: Vec<Case> = vec![
        (vec![], HclIndex::default(), None, vec![]),
        (vec!["README.md"], HclIndex::default(), None, vec![]),
        // The resource's own file: it sets the attribute the input reaches.
        (
            vec!["main.tf"],
            HclIndex::default(),
            Some("main.tf"),
            vec!["fail_with"],
        ),
        (
            vec!["main.tf"],
            indexed(),
            Some("main.tf"),
            vec!["fail_with"],
        ),
        // The module output that carries the input to it.
        (
            vec!["net/outputs.tf"],
            indexed(),
            Some("net/outputs.tf"),
            vec!["fail_with"],
        ),
    ];
    for (pr_files, index, file, sets) in cases {
        let setup = Setup {
            pr_files: pr_files.clone(),
            hcl: index,
            ..Setup::default()
        };
        let report = run(&module_output(), &setup);
        let views = drift_warnings(&report, std::slice::from_ref(&status));
        assert_eq!(views.len(), 1, "{pr_files:?}");
        assert_eq!(views[0].also_edited_in.as_deref(), file, "{pr_files:?}");
        assert_eq!(views[0].also_sets, strings(&sets), "{pr_files:?}");
        assert_eq!(views[0].explained_by, None, "{pr_files:?}");
        // The input's part of the change is still unreviewed: the gate stays.
        let drifted = report.drifted_inputs();
        assert_eq!(drifted, strings(&["ADMIN_CIDRS"]), "{pr_files:?}");
        assert!(matches!(
            input_drift_gate(OnInputDrift::Block, &drifted, &drifted),
            InputDriftGate::Refuse { .. }
        ));
    }
}
