//! The saved plan's own directory: made by tfgate for one `plan` or `apply` in its runtime
//! directory, outside the PR's tree, and removed afterwards. The host never writes or reads
//! the plan file through a path of the checkout, where a link committed by the PR (or made
//! by a module `init` fetched, or by plan-time code) could point the write at a key or a
//! binary of the server. Inside the directory the file is still opened without following a
//! link (plan-time code could make one there while `plan` has it writable), and written only
//! as a new file.

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::PLAN_FILE;

/// A fresh private directory (mode 0700) for one saved plan.
pub(super) struct PlanDir {
    dir: tempfile::TempDir,
}

impl PlanDir {
    pub fn create(runtime_dir: &Path) -> Result<PlanDir> {
        std::fs::create_dir_all(runtime_dir)
            .with_context(|| format!("creating {}", runtime_dir.display()))?;
        let dir = tempfile::Builder::new()
            .prefix("plan-")
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir_in(runtime_dir)
            .with_context(|| format!("creating a plan directory in {}", runtime_dir.display()))?;
        Ok(PlanDir { dir })
    }

    /// The directory (bound into the steps that use the plan).
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The plan file's absolute path, as Terraform is given it.
    pub fn file(&self) -> PathBuf {
        self.dir.path().join(PLAN_FILE)
    }

    /// Writes the plan file as a new regular file (never through a link, never over one).
    pub fn write_new(&self, bytes: &[u8]) -> Result<()> {
        let path = self.file();
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
            .with_context(|| format!("creating {}", path.display()))?;
        file.write_all(bytes)
            .and_then(|()| file.flush())
            .with_context(|| format!("writing {}", path.display()))
    }

    /// Reads the plan file: a regular file of at most `cap` bytes, not a link.
    pub fn read(&self, cap: u64) -> Result<Vec<u8>> {
        let path = self.file();
        crate::checkout::read_no_follow(&path, cap).with_context(|| {
            format!(
                "reading {} (a regular file of at most {cap} bytes, not a link)",
                path.display()
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn the_plan_file_is_written_new_and_read_back_in_a_private_directory() {
        let runtime = tempfile::tempdir().unwrap();
        let dir = PlanDir::create(&runtime.path().join("runtime")).unwrap();
        let mode = std::fs::metadata(dir.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        assert!(dir.file().starts_with(runtime.path()) && dir.file().ends_with(PLAN_FILE));
        dir.write_new(b"plan").unwrap();
        assert_eq!(dir.read(10).unwrap(), b"plan");
        assert!(dir.read(3).is_err(), "over the cap");
        assert!(
            dir.write_new(b"again").is_err(),
            "never over an existing file"
        );
        let path = dir.path().to_path_buf();
        drop(dir);
        assert!(!path.exists(), "removed with its handle");
    }

    #[test]
    fn a_link_in_the_plan_directory_is_neither_written_through_nor_read() {
        let outside = tempfile::tempdir().unwrap();
        let key = outside.path().join("seal.key");
        std::fs::write(&key, "secret").unwrap();
        let runtime = tempfile::tempdir().unwrap();
        for target in [key.clone(), outside.path().join("absent")] {
            let dir = PlanDir::create(runtime.path()).unwrap();
            symlink(&target, dir.file()).unwrap();
            assert!(dir.write_new(b"plan").is_err());
            assert!(dir.read(1 << 20).is_err());
        }
        assert_eq!(std::fs::read_to_string(&key).unwrap(), "secret");
        assert!(!outside.path().join("absent").exists());
    }
}
