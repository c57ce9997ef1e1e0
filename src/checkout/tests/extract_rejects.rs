//! Hostile or oversized archives: each is rejected, the destination is removed, and nothing
//! is written outside it.

use std::fs;
use std::path::{Path, PathBuf};

use tar::EntryType;

use super::tarball::{under_top, Tarball};
use crate::checkout::{extract_tarball, ExtractError, ExtractLimits};

/// A temp dir holding `dest` plus a bait file an escape would overwrite.
struct Arena {
    outer: tempfile::TempDir,
}

impl Arena {
    fn new() -> Self {
        let outer = tempfile::tempdir().unwrap();
        fs::write(outer.path().join("bait"), "original").unwrap();
        Arena { outer }
    }

    fn dest(&self) -> PathBuf {
        self.outer.path().join("repo")
    }

    fn reject(&self, archive: Vec<u8>, limits: &ExtractLimits) -> ExtractError {
        let err = extract_tarball(&archive[..], &self.dest(), limits).unwrap_err();
        self.assert_untouched();
        err
    }

    /// Only the bait is left, unchanged: `dest` is gone and no escape landed next to it.
    fn assert_untouched(&self) {
        let names: Vec<_> = fs::read_dir(self.outer.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, ["bait"]);
        assert_eq!(
            fs::read_to_string(self.outer.path().join("bait")).unwrap(),
            "original"
        );
    }
}

fn reject(archive: Vec<u8>) -> ExtractError {
    Arena::new().reject(archive, &ExtractLimits::default())
}

fn assert_unsafe_path(err: ExtractError, expected_problem: &str) {
    match err {
        ExtractError::UnsafePath { problem, .. } => assert_eq!(problem, expected_problem),
        other => panic!("expected UnsafePath, got {other:?}"),
    }
}

fn assert_unsafe_link(err: ExtractError, expected_problem: &str) {
    match err {
        ExtractError::UnsafeLink { problem, .. } => assert_eq!(problem, expected_problem),
        other => panic!("expected UnsafeLink, got {other:?}"),
    }
}

#[test]
fn parent_dir_escape_inside_the_top_dir() {
    let err = reject(
        Tarball::github()
            .file(&under_top("ok.tf"), b"x")
            .file(&under_top("../../bait"), b"owned")
            .gzip(),
    );
    assert_unsafe_path(err, "`..` component");
}

#[test]
fn parent_dir_escape_as_first_member() {
    let err = reject(Tarball::default().file("../bait", b"owned").gzip());
    assert_unsafe_path(err, "`..` component");
}

#[test]
fn absolute_path() {
    let target = std::env::temp_dir().join(format!("tfgate-abs-{}", std::process::id()));
    let err = reject(
        Tarball::github()
            .file(target.to_str().unwrap(), b"owned")
            .gzip(),
    );
    assert_unsafe_path(err, "absolute path");
    assert!(!target.exists());
}

#[test]
fn member_outside_the_top_level_dir() {
    let err = reject(
        Tarball::github()
            .file(&under_top("a.tf"), b"x")
            .file("other-top/b.tf", b"x")
            .gzip(),
    );
    assert_unsafe_path(err, "outside the archive's top-level directory");
}

#[test]
fn file_as_the_top_level_member() {
    let err = reject(Tarball::default().file("README", b"x").gzip());
    assert_unsafe_path(err, "top-level member is not a directory");
}

#[test]
fn symlink_to_an_absolute_path() {
    let err = reject(
        Tarball::github()
            .symlink(&under_top("passwd"), "/etc/passwd")
            .gzip(),
    );
    assert_unsafe_link(err, "absolute path");
}

#[test]
fn symlink_climbing_out_of_the_checkout() {
    let err = reject(
        Tarball::github()
            .symlink(&under_top("env/bait"), "../../bait")
            .gzip(),
    );
    assert_unsafe_link(err, "resolves outside the checkout");
}

#[test]
fn symlink_chain_escaping_through_another_link_is_caught_on_disk() {
    // `a -> .` makes `a/..` the parent of the checkout, which a lexical check cannot see.
    let err = reject(
        Tarball::github()
            .symlink(&under_top("a"), ".")
            .symlink(&under_top("s"), "a/../bait")
            .gzip(),
    );
    assert_unsafe_link(err, "resolves outside the checkout");
}

#[test]
fn writing_through_a_symlink() {
    let err = reject(
        Tarball::github()
            .dir(&under_top("sub/"))
            .symlink(&under_top("link"), "sub")
            .file(&under_top("link/x.tf"), b"x")
            .gzip(),
    );
    assert!(matches!(err, ExtractError::ThroughLink { .. }), "{err:?}");
}

#[test]
fn file_replacing_a_symlink() {
    let err = reject(
        Tarball::github()
            .file(&under_top("real.tf"), b"x")
            .symlink(&under_top("l.tf"), "real.tf")
            .file(&under_top("l.tf"), b"owned")
            .gzip(),
    );
    assert!(matches!(err, ExtractError::Duplicate { .. }), "{err:?}");
}

#[test]
fn hard_link_to_a_file_outside() {
    for target in ["/etc/passwd", "../bait", &under_top("../../bait")] {
        let err = reject(Tarball::github().hardlink(&under_top("h"), target).gzip());
        assert!(
            matches!(err, ExtractError::HardLinkTarget { .. }),
            "{target}: {err:?}"
        );
    }
}

#[test]
fn hard_link_to_a_symlink_or_a_later_member() {
    let err = reject(
        Tarball::github()
            .symlink(&under_top("l"), "x.tf")
            .hardlink(&under_top("h"), &under_top("l"))
            .file(&under_top("x.tf"), b"x")
            .gzip(),
    );
    assert!(
        matches!(err, ExtractError::HardLinkTarget { .. }),
        "{err:?}"
    );
}

#[test]
fn devices_and_fifos() {
    for (kind, name) in [
        (EntryType::Char, "character device"),
        (EntryType::Block, "block device"),
        (EntryType::Fifo, "fifo"),
    ] {
        let err = reject(
            Tarball::github()
                .member(&under_top("dev"), kind, 0o666, "", b"")
                .gzip(),
        );
        match err {
            ExtractError::UnsupportedEntry { kind, .. } => assert_eq!(kind, name),
            other => panic!("{name}: {other:?}"),
        }
    }
}

#[test]
fn sparse_files() {
    // The tar reader refuses this header before the extractor sees it; either way it fails.
    let err = reject(
        Tarball::github()
            .member(&under_top("sparse"), EntryType::GNUSparse, 0o644, "", b"")
            .gzip(),
    );
    assert!(
        matches!(
            err,
            ExtractError::Corrupt(_) | ExtractError::UnsupportedEntry { .. }
        ),
        "{err:?}"
    );
}

#[test]
fn duplicate_member() {
    let err = reject(
        Tarball::github()
            .file(&under_top("a.tf"), b"first")
            .file(&under_top("a.tf"), b"second")
            .gzip(),
    );
    assert!(matches!(err, ExtractError::Duplicate { .. }), "{err:?}");
}

#[test]
fn file_over_the_per_file_limit_is_refused_from_its_header() {
    let limits = ExtractLimits {
        max_file_bytes: 1024,
        ..ExtractLimits::default()
    };
    let err = Arena::new().reject(
        Tarball::github()
            .file_header_only(&under_top("huge.bin"), 1 << 30)
            .gzip(),
        &limits,
    );
    match err {
        ExtractError::FileTooLarge { size, limit, .. } => {
            assert_eq!((size, limit), (1 << 30, 1024))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn content_over_the_total_limit() {
    let limits = ExtractLimits {
        max_total_bytes: 1000,
        max_file_bytes: 400,
        max_files: 100,
    };
    let chunk = vec![b'x'; 400];
    let err = Arena::new().reject(
        Tarball::github()
            .file(&under_top("a"), &chunk)
            .file(&under_top("b"), &chunk)
            .file(&under_top("c"), &chunk)
            .gzip(),
        &limits,
    );
    assert!(
        matches!(err, ExtractError::TotalTooLarge { limit: 1000 }),
        "{err:?}"
    );
}

#[test]
fn hard_link_copies_count_against_the_total_limit() {
    let limits = ExtractLimits {
        max_total_bytes: 700,
        max_file_bytes: 400,
        max_files: 100,
    };
    let err = Arena::new().reject(
        Tarball::github()
            .file(&under_top("a"), &[b'x'; 400])
            .hardlink(&under_top("b"), &under_top("a"))
            .gzip(),
        &limits,
    );
    assert!(matches!(err, ExtractError::TotalTooLarge { .. }), "{err:?}");
}

#[test]
fn too_many_members() {
    let limits = ExtractLimits {
        max_files: 3,
        ..ExtractLimits::default()
    };
    let mut archive = Tarball::github();
    for i in 0..5 {
        archive = archive.file(&under_top(&format!("f{i}.tf")), b"x");
    }
    let err = Arena::new().reject(archive.gzip(), &limits);
    assert!(
        matches!(err, ExtractError::TooManyFiles { limit: 3 }),
        "{err:?}"
    );
}

#[test]
fn decompressed_stream_over_the_cap() {
    // Global headers are not members, so only the stream cap stops a flood of them.
    let limits = ExtractLimits {
        max_total_bytes: 1024,
        max_files: 2,
        max_file_bytes: 1024,
    };
    let padding = vec![b'x'; 1 << 20];
    let err = Arena::new().reject(
        Tarball::default()
            .member(
                "pax_global_header",
                EntryType::XGlobalHeader,
                0o666,
                "",
                &padding,
            )
            .gzip(),
        &limits,
    );
    assert!(
        matches!(err, ExtractError::StreamTooLarge { limit } if limit == limits.max_stream_bytes()),
        "{err:?}"
    );
}

#[test]
fn truncated_and_garbage_input() {
    let good = Tarball::github()
        .file(&under_top("a.tf"), &[7u8; 4096])
        .gzip();
    for (name, input) in [
        ("truncated gzip", good[..good.len() / 2].to_vec()),
        ("gzip without trailer", good[..good.len() - 4].to_vec()),
        ("not gzip", b"this is not a tarball".to_vec()),
    ] {
        let err = reject(input);
        assert!(matches!(err, ExtractError::Corrupt(_)), "{name}: {err:?}");
    }
}

#[test]
fn non_empty_destination_is_refused_and_left_alone() {
    let outer = tempfile::tempdir().unwrap();
    let dest = outer.path().join("repo");
    fs::create_dir(&dest).unwrap();
    fs::write(dest.join("keep"), "mine").unwrap();
    let archive = Tarball::github().file(&under_top("keep"), b"theirs").gzip();
    let err = extract_tarball(&archive[..], &dest, &ExtractLimits::default()).unwrap_err();
    assert!(
        matches!(err, ExtractError::DestinationNotEmpty { .. }),
        "{err:?}"
    );
    assert_eq!(fs::read_to_string(dest.join("keep")).unwrap(), "mine");
}

#[test]
fn destination_that_is_a_symlink_is_refused() {
    let outer = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let dest = outer.path().join("repo");
    std::os::unix::fs::symlink(elsewhere.path(), &dest).unwrap();
    let archive = Tarball::github().file(&under_top("a.tf"), b"x").gzip();
    let err = extract_tarball(&archive[..], &dest, &ExtractLimits::default()).unwrap_err();
    assert!(
        matches!(err, ExtractError::DestinationNotEmpty { .. }),
        "{err:?}"
    );
    assert!(is_empty(elsewhere.path()));
}

fn is_empty(dir: &Path) -> bool {
    fs::read_dir(dir).unwrap().next().is_none()
}

#[test]
fn error_messages_escape_member_names() {
    let err = reject(
        Tarball::github()
            .file(&under_top("a\n../../bait"), b"x")
            .gzip(),
    );
    let text = err.to_string();
    assert!(!text.contains('\n'), "{text}");
    assert!(text.contains("a\\n../../bait"), "{text}");
}
