use super::*;
use crate::policy::load_policy;
use crate::repo_layout::{merge_layout, parse_layout};

const FIXTURE: &str = include_str!("../../../tests/fixtures/atlantis/atlantis.yaml");

#[test]
fn imports_realistic_config() {
    let import = import_atlantis(FIXTURE).unwrap();
    insta::assert_snapshot!("layout", import.layout_yaml);
    insta::assert_snapshot!("policy", import.policy_yaml);
    insta::assert_yaml_snapshot!("warnings", import.warnings);
}

#[test]
fn imported_files_load_and_merge() {
    let import = import_atlantis(FIXTURE).unwrap();
    let policy = load_policy("imported.yaml", &import.policy_yaml).unwrap();
    let layout = parse_layout("tfgate.yaml", &import.layout_yaml).unwrap();
    let merged = merge_layout(&policy, Some(&layout)).unwrap();
    assert_eq!(merged.policy.projects.len(), 5);
    let project = |name| merged.policy.project(name).unwrap();
    let ops = project("ops-cluster");
    assert_eq!(ops.var_files, ["env/ops.tfvars"]);
    assert_eq!(ops.backend_config, ["env/ops.backend.hcl"]);
    assert_eq!(ops.plan_args, ["-lock-timeout=5m"]);
    assert_eq!(ops.apply_args, ["-lock-timeout=5m"]);
    // The default workflow's var file for every project that has no workflow of its own.
    assert_eq!(project("network").var_files, ["common.tfvars"]);
    assert_eq!(
        project("infra/dev/platform:dev").var_files,
        ["common.tfvars"]
    );
    // The terragrunt workflow maps to nothing: its project passes no var file.
    assert!(project("dev-cluster").var_files.is_empty());
    let platform = project("ops-platform");
    assert!(!platform.autoplan);
    assert_eq!(
        platform.terraform,
        Some(crate::policy::TerraformSpec::Release(
            crate::tool_release::release(crate::tool_release::Tool::Terraform, "1.7.5").unwrap()
        ))
    );
    let order = crate::project::order_by_dependencies(
        &merged
            .policy
            .specs()
            .iter()
            .map(|s| s.id.clone())
            .collect::<Vec<_>>(),
        &merged.policy.specs(),
    )
    .unwrap();
    let names: Vec<&str> = order.iter().map(ProjectId::as_str).collect();
    assert_eq!(
        names,
        vec![
            "network",
            "dev-cluster",
            "ops-cluster",
            "infra/dev/platform:dev",
            "ops-platform"
        ]
    );
}

#[test]
fn minimal_config_gets_default_requirements() {
    let import = import_atlantis("version: 3\nprojects:\n  - dir: .\n").unwrap();
    assert!(import
        .policy_yaml
        .contains("apply_requirements: [approved, mergeable]"));
    assert!(import.layout_yaml.contains("  - dir: \".\"\n"));
    assert!(import.warnings.is_empty(), "{:?}", import.warnings);
    parse_layout("tfgate.yaml", &import.layout_yaml).unwrap();
}

#[test]
fn rejects_what_is_not_an_atlantis_config() {
    assert_eq!(
        import_atlantis("- a\n- b\n"),
        Err(AtlantisImportError::Shape)
    );
    assert_eq!(
        import_atlantis("version: 3\n"),
        Err(AtlantisImportError::Shape)
    );
    assert_eq!(
        import_atlantis("projects:\n  - name: x\n"),
        Err(AtlantisImportError::MissingDir(0))
    );
    assert!(matches!(
        import_atlantis("projects: [\n"),
        Err(AtlantisImportError::Yaml(_))
    ));
}
