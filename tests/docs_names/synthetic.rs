//! The checker on a small crate of its own: what resolves and what is reported stale.

use super::*;

const FILES: [(&str, &str); 3] = [
    (
        "src/lib.rs",
        "pub mod a;\nmod hidden { pub fn inner() {} }\npub use a::b::Thing as Renamed;\n",
    ),
    (
        "src/a/mod.rs",
        "pub mod b;\npub use b::*;\npub use self::b::make;\npub fn top() {}\n",
    ),
    (
        "src/a/b.rs",
        "pub struct Thing { pub field: u8 }\nimpl Thing { pub fn method(&self) {} }\n\
         pub enum Kind { One }\npub fn make() -> Thing { Thing { field: 0 } }\n\
         pub(crate) use std::collections::HashMap;\n#[cfg(test)]\nmod tests { fn t() {} }\n",
    ),
];

fn synthetic_repo() -> tempfile::TempDir {
    let repo = tempfile::tempdir().unwrap();
    for (file, text) in FILES {
        let path = repo.path().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    std::fs::write(
        repo.path().join("Cargo.toml"),
        "[dependencies]\nserde-json = \"1\"\n",
    )
    .unwrap();
    repo
}

#[test]
fn a_small_crate_resolves_like_the_compiler() {
    let repo = synthetic_repo();
    let good = [
        "`a/`",
        "`src/a/b.rs`",
        "`a::top`",
        "`a::b::Thing::method`",
        "`a::b::Thing::field`",
        "`a::b::Kind::One`",
        "`a::Thing`",
        "`a::make`",
        "`crate::Renamed::method`",
        "`hidden::inner`",
        "`a::b::HashMap`",
        "`serde_json::Value`",
        "`a/b.rs::Thing::method`",
        "`a/b.rs::method`",
        "`a/b.rs::make`",
        "`a/b.rs::Kind::One`",
    ];
    let bad = [
        ("`a/c.rs`", "src/a/c.rs does not exist"),
        ("`b/`", "src/b/ does not exist"),
        ("`a::missing`", "no `missing` in `a` ("),
        ("`a::b::Thing::nope`", "`Thing` has no member `nope`"),
        ("`a::b::Kind::Two`", "`Kind` has no member `Two`"),
        ("`a::top::x`", "`top` has no member `x`"),
        (
            "`zzz::x`",
            "`zzz` is not a top-level module of the crate (nor a dependency)",
        ),
        ("`a::tests::t`", "no `tests` in `a` ("),
        ("`a/mod.rs::Thing`", "`Thing` is not defined in"),
        ("`a/b.rs::nothing`", "`nothing` is not defined in"),
        (
            "`templates/x.rs::f`",
            "templates/x.rs is not a file of src/",
        ),
    ];
    let markdown: String = good.iter().map(|g| format!("{g}\n")).collect();
    let (count, stale) = stale_references(repo.path(), "page.md", &markdown);
    assert_eq!((count, stale), (good.len(), Vec::<String>::new()));
    for (span, why) in bad {
        let (count, stale) = stale_references(repo.path(), "page.md", &format!("x\n{span}\n"));
        assert_eq!((count, stale.len()), (1, 1), "{span}");
        let expected_start = format!("page.md:2: {span}: {why}");
        assert!(
            stale[0].starts_with(&expected_start),
            "{span}: {}",
            stale[0]
        );
    }
}
