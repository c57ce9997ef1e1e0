//! One fresh working directory per run, removed when the run is over.

use std::fs::{self, DirBuilder, Permissions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The working directory of run `run_id` under `base`: `base/run-<id>`.
pub fn workdir_for_run(base: &Path, run_id: i64) -> PathBuf {
    base.join(format!("run-{run_id}"))
}

/// A run's working directory (mode 0700), removed with everything in it when dropped.
#[derive(Debug)]
pub struct Workdir {
    path: PathBuf,
    keep: bool,
}

impl Workdir {
    /// Creates `workdir_for_run(base, run_id)` afresh: a leftover from an earlier attempt of
    /// the same run (crash, retry) is removed first. `base` is created when missing.
    pub fn create(base: &Path, run_id: i64) -> io::Result<Workdir> {
        fs::create_dir_all(base)?;
        let path = workdir_for_run(base, run_id);
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() => remove_tree(&path)?,
            Ok(_) => fs::remove_file(&path)?,
            Err(err) if err.kind() == io::ErrorKind::NotFound => {}
            Err(err) => return Err(err),
        }
        DirBuilder::new().mode(0o700).create(&path)?;
        Ok(Workdir { path, keep: false })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Keeps the directory on disk (for debugging) and returns its path.
    pub fn keep(mut self) -> PathBuf {
        self.keep = true;
        self.path.clone()
    }
}

impl Drop for Workdir {
    fn drop(&mut self) {
        if !self.keep {
            // Nowhere to report from a destructor; a leftover is removed by the next
            // `create` for the same run.
            let _ = remove_tree(&self.path);
        }
    }
}

/// Removes a tree, first restoring owner permissions on directories a run may have made
/// read-only (which would otherwise make removal fail).
fn remove_tree(path: &Path) -> io::Result<()> {
    match fs::remove_dir_all(path) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(_) => {
            make_dirs_writable(path);
            fs::remove_dir_all(path)
        }
    }
}

fn make_dirs_writable(dir: &Path) {
    let Ok(meta) = fs::symlink_metadata(dir) else {
        return;
    };
    if !meta.is_dir() {
        return;
    }
    let mode = meta.permissions().mode() | 0o700;
    let _ = fs::set_permissions(dir, Permissions::from_mode(mode));
    if let Ok(entries) = fs::read_dir(dir) {
        for entry in entries.flatten() {
            make_dirs_writable(&entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workdir_path_is_named_after_the_run() {
        assert_eq!(
            workdir_for_run(Path::new("/var/lib/tfgate/work"), 42),
            PathBuf::from("/var/lib/tfgate/work/run-42")
        );
    }

    #[test]
    fn workdir_is_private_and_removed_on_drop() {
        let base = tempfile::tempdir().unwrap();
        let workdir = Workdir::create(base.path(), 7).unwrap();
        let path = workdir.path().to_path_buf();
        assert_eq!(path, base.path().join("run-7"));
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        fs::create_dir_all(path.join("repo/modules")).unwrap();
        fs::write(path.join("repo/modules/main.tf"), "x").unwrap();
        drop(workdir);
        assert!(!path.exists());
    }

    #[test]
    fn drop_removes_read_only_directories_too() {
        let base = tempfile::tempdir().unwrap();
        let workdir = Workdir::create(base.path(), 8).unwrap();
        let locked = workdir.path().join("locked");
        fs::create_dir(&locked).unwrap();
        fs::write(locked.join("f"), "x").unwrap();
        fs::set_permissions(&locked, Permissions::from_mode(0o500)).unwrap();
        let path = workdir.path().to_path_buf();
        drop(workdir);
        assert!(!path.exists());
    }

    #[test]
    fn keep_leaves_the_directory_in_place() {
        let base = tempfile::tempdir().unwrap();
        let workdir = Workdir::create(base.path(), 9).unwrap();
        fs::write(workdir.path().join("plan.log"), "x").unwrap();
        let kept = workdir.keep();
        assert!(kept.join("plan.log").exists());
    }

    #[test]
    fn create_replaces_a_leftover_of_the_same_run() {
        let base = tempfile::tempdir().unwrap();
        let leftover = workdir_for_run(base.path(), 3);
        fs::create_dir_all(leftover.join("old")).unwrap();
        fs::write(leftover.join("old/state"), "stale").unwrap();
        let workdir = Workdir::create(base.path(), 3).unwrap();
        assert_eq!(fs::read_dir(workdir.path()).unwrap().count(), 0);
    }

    #[test]
    fn create_replaces_a_symlink_without_following_it() {
        let base = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        fs::write(elsewhere.path().join("keep-me"), "x").unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), workdir_for_run(base.path(), 4)).unwrap();
        let workdir = Workdir::create(base.path(), 4).unwrap();
        assert!(fs::symlink_metadata(workdir.path()).unwrap().is_dir());
        assert!(elsewhere.path().join("keep-me").exists());
    }
}
