//! Apply outcomes of the real apply logs (snapshots).

use super::*;
use crate::terraform::test_fixtures::fixture;
use crate::terraform::ui_stream::parse_ui_stream;

#[test]
fn provisioner_error_log_joins_errored_hook_and_diagnostic() {
    let stream = parse_ui_stream(fixture(
        "hashicorp-terraform__apply-json-with-provisioner-error__apply.log",
    ))
    .unwrap();
    let o = apply_outcome(&stream, &[]);
    assert_eq!(o.resources.len(), 1);
    let foo = &o.resources[0];
    assert_eq!(
        (foo.address.as_str(), foo.action),
        ("null_resource.foo", Some(Action::Replace))
    );
    let ResourceStatus::Failed {
        failed_action,
        diagnostics,
        ..
    } = &foo.status
    else {
        panic!("null_resource.foo should have failed")
    };
    assert_eq!(*failed_action, Some(Action::Create));
    assert_eq!(diagnostics[0].summary, "local-exec provisioner error");
    assert!(o.unattached_diagnostics.is_empty());
    insta::assert_yaml_snapshot!("provisioner_error_apply", o);
}

#[test]
fn snapshot_apply_with_outputs() {
    let stream = parse_ui_stream(fixture(
        "hashicorp-terraform__apply-json-with-outputs__apply.log",
    ))
    .unwrap();
    let o = apply_outcome(&stream, &[]);
    assert!(o.succeeded());
    insta::assert_yaml_snapshot!("apply_with_outputs", o);
}

#[test]
fn snapshot_golden_apply_log() {
    let stream = parse_ui_stream(fixture(
        "hashicorp-terraform__command-testdata-apply__output.jsonlog",
    ))
    .unwrap();
    let o = apply_outcome(&stream, &[]);
    assert!(o.succeeded());
    assert_eq!(o.warnings.len(), 1);
    insta::assert_yaml_snapshot!("golden_apply_log", o);
}
