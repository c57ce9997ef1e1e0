//! What counts as test code in `src/`, shared by the source checks (`tests/code_shape.rs`,
//! `tests/layers/`). Not a test target of its own: a folder without `main.rs`.

use std::path::Path;

/// A file of `src/` holding only tests: named `tests.rs` / `*_tests.rs` or inside a `tests/`
/// directory; `relative` is its path under `src/`.
pub fn is_test_file(relative: &str) -> bool {
    let path = Path::new(relative);
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name == "tests.rs"
        || name.ends_with("_tests.rs")
        || path
            .parent()
            .is_some_and(|dir| dir.components().any(|c| c.as_os_str() == "tests"))
}

/// `#[cfg(test)]`, `#[test]` or a test macro such as `#[tokio::test]`.
pub fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        let path = attr.path();
        if path.segments.last().is_some_and(|s| s.ident == "test") {
            return true;
        }
        path.is_ident("cfg")
            && attr
                .parse_args::<syn::Meta>()
                .is_ok_and(|meta| meta.path().is_ident("test"))
    })
}
