//! Adding what an `init` installed to the provider cache (effects): walk the root's
//! `.terraform/providers` without following links, hash each package, and move the kept ones
//! into the cache atomically (a copy in a temporary directory inside the cache, renamed into
//! place; a package another run stored first is left as it is).

use std::fs;
use std::io::{self, Read};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::{h1_hash, judge, locked_hashes, Package, Verdict};

/// Largest package tfgate copies into the cache (a provider binary is a few hundred MB).
const MAX_PACKAGE_BYTES: u64 = 2 * 1024 * 1024 * 1024;
/// Most files in one package.
const MAX_PACKAGE_FILES: usize = 64;
/// Largest lock file read.
const MAX_LOCK_BYTES: u64 = 4 * 1024 * 1024;

/// Stores the packages `init` installed in `root_dir` (the Terraform root) into `cache`, when
/// the policy allows them (`allowed_sources`) and the root's lock file records their hash.
/// Returns the packages added. Errors are per package: logged, never fatal to the run.
pub fn harvest(cache: &Path, root_dir: &Path, allowed_sources: &[String]) -> Vec<Package> {
    // The root is the PR's: its lock file is read only as a regular file, and
    // `.terraform/providers` only when both are real directories, never through a link.
    let lock_path = root_dir.join(".terraform.lock.hcl");
    let lock = crate::checkout::read_text_no_follow(&lock_path, MAX_LOCK_BYTES).unwrap_or_default();
    let locked = locked_hashes(&lock);
    let providers = root_dir.join(".terraform/providers");
    if !is_real_dir(&root_dir.join(".terraform")) || !is_real_dir(&providers) {
        return Vec::new();
    }
    let mut added = Vec::new();
    for (package, dir) in installed_packages(&providers) {
        if cache.join(package.relative_path()).exists() {
            continue;
        }
        let files = match package_files(&dir) {
            Ok(files) => files,
            Err(e) => {
                tracing::warn!(package = %package.relative_path(), error = %e, "provider package not cached");
                continue;
            }
        };
        let digests: Vec<(String, [u8; 32])> =
            files.iter().map(|f| (f.name.clone(), f.digest)).collect();
        match judge(&package, &h1_hash(&digests), &locked, allowed_sources) {
            Verdict::Skip(why) => {
                tracing::info!(package = %package.relative_path(), why, "provider package not cached");
            }
            Verdict::Keep => match store(cache, &package, &files) {
                Ok(true) => added.push(package),
                Ok(false) => {}
                Err(e) => {
                    tracing::warn!(package = %package.relative_path(), error = %e, "could not cache a provider package")
                }
            },
        }
    }
    added
}

fn is_real_dir(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|meta| meta.is_dir())
}

/// `HOST/NAMESPACE/TYPE/VERSION/TARGET` directories under `providers` (real directories only:
/// a link means the package came from a mirror or the cache already).
fn installed_packages(providers: &Path) -> Vec<(Package, PathBuf)> {
    let mut out = Vec::new();
    let mut stack = vec![(providers.to_path_buf(), String::new(), 0)];
    while let Some((dir, rel, depth)) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(meta) = fs::symlink_metadata(entry.path()) else {
                continue;
            };
            if !meta.is_dir() {
                continue;
            }
            let name = entry.file_name().to_string_lossy().to_string();
            let rel = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if depth == 4 {
                if let Some(package) = Package::from_relative_path(&rel) {
                    out.push((package, entry.path()));
                }
            } else {
                stack.push((entry.path(), rel, depth + 1));
            }
        }
    }
    out.sort();
    out
}

struct PackageFile {
    name: String,
    path: PathBuf,
    digest: [u8; 32],
    executable: bool,
}

/// The regular files of a package (flat, as provider packages are), hashed without following
/// links; anything else (a link, a sub-directory) refuses the package.
fn package_files(dir: &Path) -> io::Result<Vec<PackageFile>> {
    let mut files = Vec::new();
    let mut total = 0u64;
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let meta = fs::symlink_metadata(entry.path())?;
        if !meta.is_file() {
            return Err(io::Error::other(
                "the package holds something other than files",
            ));
        }
        total += meta.len();
        if total > MAX_PACKAGE_BYTES || files.len() >= MAX_PACKAGE_FILES {
            return Err(io::Error::other("the package is too large"));
        }
        let mut hasher = Sha256::new();
        let mut file = fs::File::open(entry.path())?;
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let n = file.read(&mut buf)?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
        }
        files.push(PackageFile {
            name: entry.file_name().to_string_lossy().to_string(),
            path: entry.path(),
            digest: hasher.finalize().into(),
            executable: meta.permissions().mode() & 0o111 != 0,
        });
    }
    Ok(files)
}

/// Copies the files into a temporary directory in the cache and renames it into place; false
/// when another run stored the package first.
fn store(cache: &Path, package: &Package, files: &[PackageFile]) -> io::Result<bool> {
    let dest = cache.join(package.relative_path());
    let parent = dest.parent().expect("a package path has a parent");
    fs::create_dir_all(parent)?;
    let tmp = tempfile::Builder::new()
        .prefix(".incoming-")
        .tempdir_in(cache)?;
    for file in files {
        let target = tmp.path().join(&file.name);
        fs::copy(&file.path, &target)?;
        let mode = if file.executable { 0o555 } else { 0o444 };
        fs::set_permissions(&target, fs::Permissions::from_mode(mode))?;
    }
    // The copy must hash as the original did (the workdir could not change it meanwhile: no
    // sandboxed process runs between init and this harvest).
    let copied = package_files(tmp.path())?;
    let same = copied.len() == files.len()
        && copied.iter().all(|c| {
            files
                .iter()
                .any(|f| f.name == c.name && f.digest == c.digest)
        });
    if !same {
        return Err(io::Error::other(
            "the copy differs from the installed package",
        ));
    }
    fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755))?;
    let tmp_path = tmp.keep();
    match fs::rename(&tmp_path, &dest) {
        Ok(()) => Ok(true),
        Err(_) if dest.exists() => {
            let _ = fs::remove_dir_all(&tmp_path);
            Ok(false)
        }
        Err(e) => {
            let _ = fs::remove_dir_all(&tmp_path);
            Err(e)
        }
    }
}
