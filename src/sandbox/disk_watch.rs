//! The workdir's disk usage, measured by the watchdog while a run goes on (effects; what it
//! means is decided by `verdict::limit_hit`).

use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Bytes allocated under `dir` (blocks of every entry, links not followed), counted until the
/// sum passes `stop_above` (then that partial sum is returned: it is already over). Entries
/// that vanish during the walk are skipped.
pub fn disk_usage(dir: &Path, stop_above: u64) -> io::Result<u64> {
    let mut used = 0u64;
    let mut pending: Vec<PathBuf> = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        let entries = match std::fs::read_dir(&current) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) if current != dir && e.kind() == io::ErrorKind::PermissionDenied => continue,
            Err(e) => return Err(e),
        };
        for entry in entries {
            let Ok(entry) = entry else { continue };
            let Ok(meta) = entry.path().symlink_metadata() else {
                continue;
            };
            used = used.saturating_add(meta.blocks().saturating_mul(512));
            if used > stop_above {
                return Ok(used);
            }
            if meta.is_dir() {
                pending.push(entry.path());
            }
        }
    }
    Ok(used)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_nested_files_and_stops_past_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
        std::fs::write(dir.path().join("a/b/one"), vec![1u8; 64 * 1024]).unwrap();
        std::fs::write(dir.path().join("two"), vec![2u8; 64 * 1024]).unwrap();
        std::os::unix::fs::symlink("/usr", dir.path().join("link")).unwrap();
        let all = disk_usage(dir.path(), u64::MAX).unwrap();
        assert!(all >= 128 * 1024, "{all}");
        assert!(
            all < 64 * 1024 * 1024,
            "the link to /usr is not followed: {all}"
        );
        let stopped = disk_usage(dir.path(), 1).unwrap();
        assert!(stopped > 1 && stopped <= all, "{stopped}");
        assert!(disk_usage(&dir.path().join("missing"), 0).is_ok());
    }
}
