//! Filling the provider cache from a root's `.terraform/providers` (the effect half of
//! `tfgate::provider_cache`): what is kept, what is refused, and runs that finish together.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use sha2::{Digest, Sha256};
use tfgate::provider_cache::{h1_hash, harvest};

const PACKAGE: &str = "registry.terraform.io/hashicorp/aws/5.31.0/linux_amd64";
const ALLOWED: &[&str] = &["registry.terraform.io/hashicorp/*"];

fn allowed() -> Vec<String> {
    ALLOWED.iter().map(|s| s.to_string()).collect()
}

/// A root whose `init` installed `PACKAGE` holding one file, with a lock file recording
/// `locked_hash` (the real hash when `None`).
fn root_with_package(content: &[u8], locked_hash: Option<&str>) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join(".terraform/providers").join(PACKAGE);
    std::fs::create_dir_all(&dir).unwrap();
    let binary = dir.join("terraform-provider-aws_v5.31.0_x5");
    std::fs::write(&binary, content).unwrap();
    std::fs::set_permissions(&binary, std::fs::Permissions::from_mode(0o755)).unwrap();
    let digest: [u8; 32] = Sha256::digest(content).into();
    let real = h1_hash(&[("terraform-provider-aws_v5.31.0_x5".into(), digest)]);
    let hash = locked_hash.unwrap_or(&real);
    std::fs::write(
        root.path().join(".terraform.lock.hcl"),
        format!("provider \"registry.terraform.io/hashicorp/aws\" {{\n  version = \"5.31.0\"\n  hashes = [\n    \"{hash}\",\n    \"zh:00\",\n  ]\n}}\n"),
    )
    .unwrap();
    root
}

fn leftovers(cache: &Path) -> Vec<String> {
    std::fs::read_dir(cache)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with(".incoming"))
        .collect()
}

#[test]
fn a_package_the_lock_file_records_is_cached_read_only() {
    let cache = tempfile::tempdir().unwrap();
    let root = root_with_package(b"provider binary", None);
    let added = harvest(cache.path(), root.path(), &allowed());
    assert_eq!(added.len(), 1);
    let cached = cache
        .path()
        .join(PACKAGE)
        .join("terraform-provider-aws_v5.31.0_x5");
    assert_eq!(std::fs::read(&cached).unwrap(), b"provider binary");
    assert_eq!(
        std::fs::metadata(&cached).unwrap().permissions().mode() & 0o777,
        0o555
    );
    assert!(
        harvest(cache.path(), root.path(), &allowed()).is_empty(),
        "stored once"
    );
    assert!(leftovers(cache.path()).is_empty());
}

#[test]
fn packages_that_do_not_qualify_are_not_cached() {
    let cases: Vec<(&str, tempfile::TempDir, Vec<String>)> = vec![
        (
            "hash not in the lock file",
            root_with_package(b"x", Some("h1:other=")),
            allowed(),
        ),
        (
            "provider not allowed",
            root_with_package(b"x", None),
            vec!["registry.terraform.io/tfgate/*".into()],
        ),
        (
            "no lock file",
            {
                let r = root_with_package(b"x", None);
                std::fs::remove_file(r.path().join(".terraform.lock.hcl")).unwrap();
                r
            },
            allowed(),
        ),
        (
            "a link inside the package",
            {
                let r = root_with_package(b"x", None);
                let dir = r.path().join(".terraform/providers").join(PACKAGE);
                std::os::unix::fs::symlink("/etc/passwd", dir.join("LICENSE")).unwrap();
                r
            },
            allowed(),
        ),
    ];
    for (why, root, allowed) in cases {
        let cache = tempfile::tempdir().unwrap();
        assert!(
            harvest(cache.path(), root.path(), &allowed).is_empty(),
            "{why}"
        );
        assert!(!cache.path().join(PACKAGE).exists(), "{why}");
    }
}

#[test]
fn a_linked_package_came_from_a_mirror_and_is_left_alone() {
    let elsewhere = root_with_package(b"x", None);
    let root = tempfile::tempdir().unwrap();
    let parent = root
        .path()
        .join(".terraform/providers/registry.terraform.io/hashicorp/aws/5.31.0");
    std::fs::create_dir_all(&parent).unwrap();
    std::os::unix::fs::symlink(
        elsewhere.path().join(".terraform/providers").join(PACKAGE),
        parent.join("linux_amd64"),
    )
    .unwrap();
    std::fs::copy(
        elsewhere.path().join(".terraform.lock.hcl"),
        root.path().join(".terraform.lock.hcl"),
    )
    .unwrap();
    let cache = tempfile::tempdir().unwrap();
    assert!(harvest(cache.path(), root.path(), &allowed()).is_empty());
}

#[test]
fn a_linked_terraform_directory_or_lock_file_is_not_followed() {
    let elsewhere = root_with_package(b"x", None);
    let cache = tempfile::tempdir().unwrap();
    // `.terraform`, or `.terraform/providers`, a link to another root's.
    for link in [".terraform", ".terraform/providers"] {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join(".terraform")).unwrap();
        let at = root.path().join(link);
        let _ = std::fs::remove_dir(&at);
        std::os::unix::fs::symlink(elsewhere.path().join(link), &at).unwrap();
        std::fs::copy(
            elsewhere.path().join(".terraform.lock.hcl"),
            root.path().join(".terraform.lock.hcl"),
        )
        .unwrap();
        assert!(
            harvest(cache.path(), root.path(), &allowed()).is_empty(),
            "{link}"
        );
    }
    // The package in place, but the lock file that records it a link.
    let root = root_with_package(b"x", None);
    let lock = root.path().join(".terraform.lock.hcl");
    std::fs::rename(&lock, root.path().join("real.lock.hcl")).unwrap();
    std::os::unix::fs::symlink(root.path().join("real.lock.hcl"), &lock).unwrap();
    assert!(harvest(cache.path(), root.path(), &allowed()).is_empty());
    assert_eq!(harvest(cache.path(), elsewhere.path(), &allowed()).len(), 1);
}

#[test]
fn runs_that_finish_together_store_one_copy() {
    let cache = tempfile::tempdir().unwrap();
    let content = vec![7u8; 4 << 20];
    let roots: Vec<tempfile::TempDir> = (0..8).map(|_| root_with_package(&content, None)).collect();
    let added: usize = std::thread::scope(|s| {
        let handles: Vec<_> = roots
            .iter()
            .map(|r| s.spawn(|| harvest(cache.path(), r.path(), &allowed()).len()))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    });
    assert_eq!(added, 1, "exactly one run stored the package");
    let cached = cache
        .path()
        .join(PACKAGE)
        .join("terraform-provider-aws_v5.31.0_x5");
    assert_eq!(std::fs::read(cached).unwrap(), content);
    assert!(
        leftovers(cache.path()).is_empty(),
        "{:?}",
        leftovers(cache.path())
    );
}
