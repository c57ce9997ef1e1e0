//! Archives the extractor accepts, and exactly what it writes for them.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

use super::tarball::{under_top, Tarball, TOP};
use crate::checkout::{extract_tarball, CheckoutInfo, ExtractLimits};

fn extract(archive: Vec<u8>) -> (tempfile::TempDir, CheckoutInfo) {
    let outer = tempfile::tempdir().unwrap();
    let dest = outer.path().join("repo");
    let info = extract_tarball(&archive[..], &dest, &ExtractLimits::default()).unwrap();
    (outer, info)
}

fn mode(path: &Path) -> u32 {
    fs::symlink_metadata(path).unwrap().permissions().mode() & 0o7777
}

#[test]
fn github_layout_is_stripped_and_contents_written() {
    let main: &[u8] = b"resource \"x\" \"y\" {}\n";
    let vpc: &[u8] = b"variable \"cidr\" {}\n";
    let tfvars: &[u8] = b"cidr = \"10.0.0.0/16\"\n";
    let archive = Tarball::github()
        .file(&under_top("main.tf"), main)
        .dir(&under_top("modules/"))
        .dir(&under_top("modules/vpc/"))
        .file(&under_top("modules/vpc/main.tf"), vpc)
        .file(&under_top("env/prod/terraform.tfvars"), tfvars)
        .file(&under_top("empty.tf"), b"")
        .gzip();
    let (outer, info) = extract(archive);
    let root = outer.path().join("repo");

    assert_eq!(info.root, root);
    assert_eq!(info.files, 4);
    assert_eq!(info.bytes, (main.len() + vpc.len() + tfvars.len()) as u64);
    assert_eq!(info.symlinks, 0);
    assert_eq!(
        fs::read_to_string(root.join("modules/vpc/main.tf")).unwrap(),
        "variable \"cidr\" {}\n"
    );
    assert_eq!(
        fs::read_to_string(root.join("env/prod/terraform.tfvars")).unwrap(),
        "cidr = \"10.0.0.0/16\"\n"
    );
    assert!(!root.join(TOP).exists());
    assert!(!root.join("pax_global_header").exists());
    let mut top_names: Vec<_> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    top_names.sort();
    assert_eq!(top_names, ["empty.tf", "env", "main.tf", "modules"]);
    assert_eq!(mode(&root), 0o700);
}

#[test]
fn modes_keep_the_exec_bit_and_drop_special_bits() {
    let archive = Tarball::github()
        .file_with_mode(&under_top("setuid.sh"), 0o4755, b"#!/bin/sh\n")
        .file_with_mode(&under_top("setgid.sh"), 0o2750, b"#!/bin/sh\n")
        .file_with_mode(&under_top("world-writable.tf"), 0o666, b"x")
        .file_with_mode(&under_top("private.tf"), 0o600, b"x")
        .gzip();
    let (outer, _) = extract(archive);
    let root = outer.path().join("repo");
    assert_eq!(mode(&root.join("setuid.sh")), 0o755);
    assert_eq!(mode(&root.join("setgid.sh")), 0o755);
    assert_eq!(mode(&root.join("world-writable.tf")), 0o644);
    assert_eq!(mode(&root.join("private.tf")), 0o644);
}

#[test]
fn relative_symlinks_inside_the_checkout_are_kept() {
    let archive = Tarball::github()
        .file(&under_top("shared/providers.tf"), b"provider \"aws\" {}\n")
        .symlink(
            &under_top("env/prod/providers.tf"),
            "../../shared/providers.tf",
        )
        .symlink(&under_top("modules-current"), "shared")
        .gzip();
    let (outer, info) = extract(archive);
    let root = outer.path().join("repo");
    assert_eq!(info.symlinks, 2);
    assert_eq!(info.files, 1);
    let link = root.join("env/prod/providers.tf");
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(fs::read_to_string(&link).unwrap(), "provider \"aws\" {}\n");
    assert!(root.join("modules-current/providers.tf").exists());
}

#[test]
fn dangling_and_looping_symlinks_are_removed_and_counted() {
    let archive = Tarball::github()
        .file(&under_top("main.tf"), b"x")
        .symlink(&under_top("generated.tf"), "build/generated.tf")
        .symlink(&under_top("loop-a"), "loop-b")
        .symlink(&under_top("loop-b"), "loop-a")
        .symlink(&under_top("ok.tf"), "main.tf")
        .gzip();
    let (outer, info) = extract(archive);
    let root = outer.path().join("repo");
    assert_eq!(info.dangling_symlinks_removed, 3);
    assert_eq!(info.symlinks, 1);
    for gone in ["generated.tf", "loop-a", "loop-b"] {
        assert!(
            fs::symlink_metadata(root.join(gone)).is_err(),
            "{gone} kept"
        );
    }
    assert_eq!(fs::read_to_string(root.join("ok.tf")).unwrap(), "x");
}

#[test]
fn hard_links_become_independent_copies() {
    let archive = Tarball::github()
        .file_with_mode(&under_top("bin/tool.sh"), 0o755, b"#!/bin/sh\necho hi\n")
        .hardlink(&under_top("tool-copy.sh"), &under_top("bin/tool.sh"))
        .gzip();
    let (outer, info) = extract(archive);
    let root = outer.path().join("repo");
    assert_eq!(info.files, 2);
    assert_eq!(info.bytes, 2 * 18);
    let original = fs::metadata(root.join("bin/tool.sh")).unwrap();
    let copy = fs::metadata(root.join("tool-copy.sh")).unwrap();
    assert_ne!(original.ino(), copy.ino());
    assert_eq!(copy.nlink(), 1);
    assert_eq!(copy.permissions().mode() & 0o777, 0o755);
    assert_eq!(
        fs::read(root.join("tool-copy.sh")).unwrap(),
        b"#!/bin/sh\necho hi\n"
    );
}

#[test]
fn an_existing_empty_destination_is_used() {
    let outer = tempfile::tempdir().unwrap();
    let dest = outer.path().join("repo");
    fs::create_dir(&dest).unwrap();
    let archive = Tarball::github().file(&under_top("a.tf"), b"a").gzip();
    let info = extract_tarball(&archive[..], &dest, &ExtractLimits::default()).unwrap();
    assert_eq!(info.files, 1);
    assert_eq!(fs::read(dest.join("a.tf")).unwrap(), b"a");
}

#[test]
fn limits_are_inclusive() {
    let limits = ExtractLimits {
        max_total_bytes: 6,
        max_files: 4,
        max_file_bytes: 3,
    };
    // 4 members: top dir, a, b, and the dir; the global header does not count.
    let archive = Tarball::github()
        .file(&under_top("a"), b"abc")
        .file(&under_top("b"), b"def")
        .dir(&under_top("d/"))
        .gzip();
    let outer = tempfile::tempdir().unwrap();
    let info = extract_tarball(&archive[..], &outer.path().join("r"), &limits).unwrap();
    assert_eq!((info.files, info.bytes), (2, 6));
}
