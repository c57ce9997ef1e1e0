//! Real Terraform output files (see `tests/fixtures/tf-json/SOURCES.md`), for tests only.

macro_rules! fixtures {
    ($($name:literal),* $(,)?) => {
        /// Every fixture file: (file name, contents).
        pub const ALL: &[(&str, &str)] = &[
            $(($name, include_str!(concat!("../../tests/fixtures/tf-json/", $name)))),*
        ];
    };
}

fixtures!(
    "bridgecrewio-checkov__plan_with_hcl_for_enrichment__tfplan.json",
    "hashicorp-terraform-json__013_module_depends_on__plan.json",
    "hashicorp-terraform-json__120_basic__plan.json",
    "hashicorp-terraform-json__action_reason__plan.json",
    "hashicorp-terraform-json__basic__plan.json",
    "hashicorp-terraform-json__has_checks__plan.json",
    "hashicorp-terraform__apply-json-with-outputs__apply.log",
    "hashicorp-terraform__apply-json-with-provisioner-error__apply.log",
    "hashicorp-terraform__command-testdata-apply__output.jsonlog",
    "hashicorp-terraform__equivalence-drift_relevant_attributes__plan.json",
    "hashicorp-terraform__plan-json-error__plan.log",
    "hashicorp-terraform__plan-json-full__plan-unredacted.json",
    "hashicorp-terraform__plan-json-full__plan.log",
    "hashicorp-terraform__plan-json-policy__plan.log",
    "hashicorp-terraform__show-json-plan-error__output.json",
);

/// Contents of one fixture; panics on an unknown name.
pub fn fixture(name: &str) -> &'static str {
    ALL.iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
        .unwrap_or_else(|| panic!("no fixture {name}"))
}

/// Whether a fixture is a UI stream (as opposed to a plan JSON document).
pub fn is_ui_stream(name: &str) -> bool {
    name.ends_with(".log") || name.ends_with(".jsonlog")
}

#[test]
fn every_fixture_file_is_listed() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tf-json");
    let mut on_disk: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n != "SOURCES.md")
        .collect();
    on_disk.sort();
    let listed: Vec<&str> = ALL.iter().map(|(n, _)| *n).collect();
    assert_eq!(on_disk, listed);
}
