//! The checker itself, on small synthetic sources, so the layer test cannot pass vacuously.

use super::*;

fn fixture(files: &[(&str, &str)]) -> Vec<(String, String)> {
    files
        .iter()
        .map(|(path, source)| (path.to_string(), source.to_string()))
        .collect()
}

#[test]
fn checker_flags_a_core_folder_importing_render_and_an_upward_import() {
    let files = fixture(&[
        ("render/mod.rs", "pub struct View;"),
        ("policy/mod.rs", "pub mod load;"),
        (
            "policy/load.rs",
            "use crate::render::View;\nfn f() { crate::run_planner::go(); }",
        ),
        ("run_planner/mod.rs", "pub fn go() {}"),
    ]);
    let offences = check_sources(&files);
    assert_eq!(offences.len(), 2, "{offences:?}");
    assert_eq!(
        offences[0].to_string(),
        "src/policy/load.rs: imports crate::render::View (policy may not import render: the \
         pure core never imports render or the shell; move the shared type to src/model/)"
    );
    assert_eq!(offences[1].target, "crate::run_planner::go");
    assert!(matches!(offences[1].rule, Rule::Upward { .. }));
}

#[test]
fn checker_flags_any_import_from_model_and_passes_downward_ones() {
    let files = fixture(&[
        ("model/mod.rs", "use super::redact::mask;"),
        ("redact/mod.rs", "pub fn mask() {}"),
        (
            "worker/mod.rs",
            "use crate::{model, redact::mask, render::View};",
        ),
        ("render/mod.rs", "pub struct View;"),
    ]);
    let offences = check_sources(&files);
    assert_eq!(offences.len(), 1, "{offences:?}");
    assert_eq!(offences[0].file, "model/mod.rs");
    assert_eq!(offences[0].rule, Rule::ModelImports);
}

#[test]
fn checker_skips_tests_doc_comments_and_attributes() {
    let files = fixture(&[
        ("render/mod.rs", "pub struct View;"),
        (
            "policy/mod.rs",
            "/// See [`crate::render::View`].\n\
             #[doc = \"crate::render::View\"]\n\
             pub fn f() {}\n\
             #[cfg(test)]\nmod tests { use crate::render::View; }\n\
             #[test]\nfn t() { let _ = crate::render::View; }",
        ),
        ("policy/load_tests.rs", "use crate::render::View;"),
    ]);
    assert_eq!(check_sources(&files), Vec::new());
}

#[test]
fn checker_finds_a_loop_between_files_of_one_folder() {
    let files = fixture(&[
        ("redact/mod.rs", "mod a; mod b; mod c; pub use a::A;"),
        ("redact/a.rs", "use super::b::B; pub struct A;"),
        ("redact/b.rs", "pub struct B; fn f() { super::c::g(); }"),
        ("redact/c.rs", "pub fn g() { let _ = crate::redact::a::A; }"),
    ]);
    let offences = check_sources(&files);
    let files_on_loop: Vec<&str> = offences.iter().map(|o| o.file.as_str()).collect();
    assert_eq!(files_on_loop, ["redact/a.rs", "redact/b.rs", "redact/c.rs"]);
    assert!(offences[0]
        .to_string()
        .contains("import loop between files of redact: redact/a.rs ↔ redact/b.rs ↔ redact/c.rs"));
}

#[test]
fn checker_flags_a_folder_missing_from_layers() {
    let files = fixture(&[
        ("brand_new/mod.rs", "use crate::redact::mask;"),
        ("redact/mod.rs", "pub fn mask() {}"),
    ]);
    let offences = check_sources(&files);
    assert_eq!(offences.len(), 1, "{offences:?}");
    assert!(matches!(&offences[0].rule, Rule::Unplaced { folder } if folder == "brand_new"));
}
