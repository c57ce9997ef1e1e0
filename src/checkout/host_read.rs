//! Host-side reads of a checkout or workdir that a PR (or the Terraform it ran) controls:
//! links are never followed, each directory is visited once (by device and inode), and the
//! walk stops at limits on depth, files and bytes.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

/// Bounds of one walk.
#[derive(Debug, Clone, Copy)]
pub struct WalkLimits {
    pub max_depth: usize,
    pub max_files: usize,
    pub max_total_bytes: u64,
    pub max_file_bytes: u64,
}

impl Default for WalkLimits {
    fn default() -> Self {
        WalkLimits {
            max_depth: 32,
            max_files: 5_000,
            max_total_bytes: 64 * 1024 * 1024,
            max_file_bytes: 4 * 1024 * 1024,
        }
    }
}

/// Open a regular file without following a link at its last component, and read at most
/// `max_bytes`; `None` when it is absent, a link, not a regular file, too large or not UTF-8.
pub fn read_text_no_follow(path: &Path, max_bytes: u64) -> Option<String> {
    let bytes = read_no_follow(path, max_bytes)?;
    String::from_utf8(bytes).ok()
}

/// Like [`read_text_no_follow`], for bytes.
pub fn read_no_follow(path: &Path, max_bytes: u64) -> Option<Vec<u8>> {
    let file: File = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() > max_bytes {
        return None;
    }
    let mut out = Vec::with_capacity(meta.len() as usize);
    file.take(max_bytes + 1).read_to_end(&mut out).ok()?;
    (out.len() as u64 <= max_bytes).then_some(out)
}

/// Every regular file under `root` whose name `wanted` accepts, as (path relative to `root`,
/// text), skipping directories named in `skip_dirs`. Links are not followed; a directory
/// reached twice is read once.
pub fn read_tree(
    root: &Path,
    wanted: impl Fn(&str) -> bool,
    skip_dirs: &[&str],
    limits: WalkLimits,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut seen: HashSet<(u64, u64)> = HashSet::new();
    let mut total: u64 = 0;
    let mut stack = vec![(root.to_path_buf(), 0usize)];
    while let Some((dir, depth)) = stack.pop() {
        let Ok(meta) = std::fs::symlink_metadata(&dir) else {
            continue;
        };
        if !meta.is_dir() || !seen.insert((meta.dev(), meta.ino())) {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if depth < limits.max_depth && !skip_dirs.contains(&name.as_str()) {
                    stack.push((path, depth + 1));
                }
                continue;
            }
            if !kind.is_file() || !wanted(&name) || out.len() >= limits.max_files {
                continue;
            }
            let budget = limits
                .max_file_bytes
                .min(limits.max_total_bytes.saturating_sub(total));
            let (Some(text), Ok(rel)) =
                (read_text_no_follow(&path, budget), path.strip_prefix(root))
            else {
                continue;
            };
            total += text.len() as u64;
            out.push((rel.display().to_string(), text));
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn tf(name: &str) -> bool {
        name.ends_with(".tf")
    }

    #[test]
    fn reads_matching_files_and_skips_named_dirs() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("a/.terraform")).unwrap();
        std::fs::write(d.path().join("a/main.tf"), "x").unwrap();
        std::fs::write(d.path().join("a/notes.md"), "y").unwrap();
        std::fs::write(d.path().join("a/.terraform/mod.tf"), "z").unwrap();
        let files = read_tree(d.path(), tf, &[".terraform"], WalkLimits::default());
        assert_eq!(files, vec![("a/main.tf".to_string(), "x".to_string())]);
    }

    #[test]
    fn link_loops_are_walked_once_and_linked_files_not_read() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("main.tf"), "x").unwrap();
        std::fs::write(d.path().join("../outside-secret.tf"), "s").ok();
        symlink(".", d.path().join("a")).unwrap();
        symlink(".", d.path().join("b")).unwrap();
        symlink("/etc/hostname", d.path().join("leak.tf")).unwrap();
        let files = read_tree(d.path(), tf, &[], WalkLimits::default());
        assert_eq!(files, vec![("main.tf".to_string(), "x".to_string())]);
    }

    #[test]
    fn limits_bound_the_walk() {
        let d = tempfile::tempdir().unwrap();
        let mut deep = d.path().to_path_buf();
        for i in 0..5 {
            deep = deep.join(format!("d{i}"));
        }
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(deep.join("deep.tf"), "x").unwrap();
        for i in 0..10 {
            std::fs::write(d.path().join(format!("f{i}.tf")), "0123456789").unwrap();
        }
        std::fs::write(d.path().join("big.tf"), "x".repeat(100)).unwrap();
        let limits = WalkLimits {
            max_depth: 2,
            max_files: 4,
            max_total_bytes: 1_000,
            max_file_bytes: 50,
        };
        let files = read_tree(d.path(), tf, &[], limits);
        assert_eq!(files.len(), 4);
        assert!(files
            .iter()
            .all(|(p, _)| p != "big.tf" && !p.ends_with("deep.tf")));
    }

    #[test]
    fn a_linked_file_is_not_read() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("real"), "x").unwrap();
        symlink(d.path().join("real"), d.path().join("link")).unwrap();
        assert_eq!(
            read_text_no_follow(&d.path().join("real"), 10).as_deref(),
            Some("x")
        );
        assert_eq!(read_text_no_follow(&d.path().join("link"), 10), None);
        assert_eq!(
            read_text_no_follow(&d.path().join("real"), 0),
            None,
            "over the cap"
        );
    }
}
