//! Descriptors of a SQLite database file that tfgate opens itself (to sync it, or to have the
//! kernel start writing it back) and never closes.
//!
//! POSIX record locks belong to a process and a file, and closing *any* descriptor of the file
//! drops every lock the process holds on it (`fcntl(2)`). SQLite's unix VFS therefore never
//! closes a database descriptor while it holds locks, but it cannot know of descriptors opened
//! beside it. Closing such a descriptor would drop the shared lock SQLite holds on a WAL
//! database while a connection is open; another process closing its last connection (the
//! `sqlite3` shell, say) would then think nobody else uses the database, checkpoint it and
//! delete the WAL while tfgate goes on committing into the deleted file, losing deliveries.
//!
//! So a database file is opened here once per process and the descriptor is kept until the
//! process exits.

use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// The descriptor of the database file at `path`, opened (read-only) on first use and never
/// closed; the same one for every later call with the same file.
pub fn database_file(path: &Path) -> io::Result<Arc<File>> {
    static HELD: OnceLock<Mutex<HashMap<PathBuf, Arc<File>>>> = OnceLock::new();
    let key = path.canonicalize()?;
    let mut held = HELD
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(file) = held.get(&key) {
        return Ok(Arc::clone(file));
    }
    let file = Arc::new(File::open(&key)?);
    held.insert(key, Arc::clone(&file));
    Ok(file)
}

#[cfg(test)]
pub(super) mod tests {
    use std::os::fd::AsRawFd;

    use super::*;
    use crate::db::Db;

    /// Whether this process holds a lock on any byte of `file`: asked with an open-file-
    /// description lock, which conflicts with the process's own POSIX locks.
    pub(in crate::db) fn process_holds_a_lock_on(file: &File) -> bool {
        // SAFETY: all-zero is a valid `flock`; the fields that matter are set below.
        let mut probe: libc::flock = unsafe { std::mem::zeroed() };
        probe.l_type = libc::F_WRLCK as libc::c_short;
        probe.l_whence = libc::SEEK_SET as libc::c_short;
        // SAFETY: `probe` is a valid `flock` the call writes into; the descriptor is open.
        let rc = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_OFD_GETLK, &mut probe) };
        assert_eq!(rc, 0, "F_OFD_GETLK: {}", io::Error::last_os_error());
        probe.l_type != libc::F_UNLCK as libc::c_short
    }

    #[test]
    fn the_same_file_is_the_same_descriptor() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        std::fs::write(&path, b"").unwrap();
        let first = database_file(&path).unwrap();
        let again = database_file(&dir.path().join(".").join("t.db")).unwrap();
        assert_eq!(first.as_raw_fd(), again.as_raw_fd());
    }

    #[test]
    fn a_missing_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(database_file(&dir.path().join("none.db")).is_err());
    }

    /// A migrated SQLite database at `path`, with a connection open.
    pub(in crate::db) async fn open_sqlite(path: &Path) -> Db {
        let db = Db::connect(&format!("sqlite://{}?mode=rwc", path.display()))
            .await
            .unwrap();
        db.migrate().await.unwrap();
        db.ping().await.unwrap();
        db
    }

    #[tokio::test]
    async fn an_open_sqlite_database_is_locked_by_this_process() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let _db = open_sqlite(&path).await;
        assert!(process_holds_a_lock_on(&database_file(&path).unwrap()));
    }
}
