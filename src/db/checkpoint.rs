//! SQLite WAL checkpoints, on a thread and a connection of their own beside the writers.
//!
//! Every connection runs with `wal_autocheckpoint = 0`: an automatic checkpoint would stall the
//! committing request (and every request queued behind it) for its `fsync`. Instead this thread
//! copies committed WAL frames into the database file (PASSIVE: it never waits for, or blocks,
//! a writer), often while the WAL grows and rarely when idle. Frequent checkpoints keep each
//! one's `fsync` small.
//!
//! The WAL starts over only when a commit finds every frame already copied, which a passive
//! checkpoint beside a writer that never pauses does not achieve: the WAL would grow without
//! bound. So once the WAL holds more than
//! [`CheckpointSchedule::restart_frames`], the passive pass is followed by a RESTART: it takes
//! the write lock, copies the frames the passive pass could not, syncs, and lets the next commit
//! write the WAL from its start again. Writers wait for that tail only, provided the lock is
//! taken as soon as the writer lets go of it: hence rusqlite with short naps ([`wait_briefly`])
//! rather than sqlx, whose SQLite busy handler sleeps 1, 2, 5, 10 … ms between attempts, while
//! the tail it must then copy grows.
//!
//! After each pass the thread also has the kernel start writing back the database pages it
//! copied ([`DbFiles::start_writeback`]), and has the WAL just ahead of the writer read back
//! into the page cache (`wal_read_ahead.rs`), so that a commit does not wait for a disk read.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use anyhow::{Context, Result};
use rusqlite::Connection;

use super::held_open;
use super::wal_read_ahead::WalReadAhead;

/// When the checkpointer runs and when it restarts the WAL.
#[derive(Debug, Clone, Copy)]
pub struct CheckpointSchedule {
    /// Pause between checkpoints while the WAL grows.
    pub busy: Duration,
    /// Pause between checkpoints while nothing is written.
    pub idle: Duration,
    /// WAL frames past which a checkpoint also makes the WAL start over.
    pub restart_frames: i64,
}

impl CheckpointSchedule {
    /// 50 ms / 500 ms; restart past 32,768 frames (128 MiB of 4 KiB pages).
    pub const DEFAULT: CheckpointSchedule = CheckpointSchedule {
        busy: Duration::from_millis(50),
        idle: Duration::from_millis(500),
        restart_frames: 32_768,
    };
}

/// The checkpoint thread; it stops (checkpointing once more and truncating the WAL) when this
/// is dropped.
pub struct Checkpointer {
    _stop: mpsc::Sender<()>,
}

impl Checkpointer {
    /// Open a connection to the SQLite file at `path` (in WAL mode) and start the thread.
    pub fn start(path: &Path, schedule: CheckpointSchedule) -> Result<Checkpointer> {
        let conn = Connection::open(path)
            .with_context(|| format!("opening {} for WAL checkpoints", path.display()))?;
        conn.busy_handler(Some(wait_briefly))
            .context("setting the checkpoint busy handler")?;
        let page_size: u64 = conn
            .query_row("PRAGMA page_size", [], |row| row.get(0))
            .context("reading the page size for WAL checkpoints")?;
        let (stop, stopped) = mpsc::channel();
        let mut files =
            DbFiles::of(path).with_context(|| format!("opening {} to sync it", path.display()))?;
        let mut read_ahead = WalReadAhead::new(files.wal.clone(), page_size);
        std::thread::Builder::new()
            .name("sqlite-checkpoint".into())
            .spawn(move || checkpoint_loop(&conn, &mut files, &mut read_ahead, &stopped, schedule))
            .context("starting the WAL checkpoint thread")?;
        Ok(Checkpointer { _stop: stop })
    }
}

/// How long a RESTART waits for the sync ahead of it before going on without it.
const PRESYNC_WAIT: Duration = Duration::from_millis(100);

/// The database file and its WAL, synced ahead of a RESTART (see [`restart`]) and written back
/// as the passes copy frames into the database.
struct DbFiles {
    /// Never closed ([`held_open`]).
    db: Arc<File>,
    /// Opened for each sync and closed again: SQLite takes no POSIX locks on the WAL file (its
    /// locks are on the database file and on `-shm`).
    wal: PathBuf,
    /// Hears from the last sync thread when it is done; while it has not, no second one starts.
    last_sync: Option<mpsc::Receiver<()>>,
}

impl DbFiles {
    fn of(db: &Path) -> std::io::Result<DbFiles> {
        let mut wal = db.as_os_str().to_owned();
        wal.push("-wal");
        Ok(DbFiles {
            db: held_open::database_file(db)?,
            wal: wal.into(),
            last_sync: None,
        })
    }

    /// Have the kernel start writing back what the passes copied into the database file, without
    /// waiting for it, so that the sync ahead of the next RESTART finds little left to write.
    /// Best effort: the syncs that must happen are SQLite's and the presync's.
    fn start_writeback(&self) {
        // SAFETY: sync_file_range only reads its arguments; the descriptor is never closed.
        let failed = unsafe {
            libc::sync_file_range(self.db.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE)
        };
        if failed != 0 {
            tracing::debug!(error = %std::io::Error::last_os_error(), "starting database write-back");
        }
    }

    /// `fsync` both files (what is not written back yet of either) on a thread of its own, and
    /// wait for it at most `wait`. Failures are left to the RESTART's own syncs, which report
    /// them; a sync still running after `wait` goes on beside the RESTART, which then waits for
    /// the rest of it under the write lock, as it would have without this. Whether it finished
    /// in time.
    fn sync_for_at_most(&mut self, wait: Duration) -> bool {
        if let Some(Err(mpsc::TryRecvError::Empty)) = self.last_sync.as_ref().map(|r| r.try_recv())
        {
            return false;
        }
        let (done, finished) = mpsc::channel();
        let (db, wal) = (Arc::clone(&self.db), self.wal.clone());
        let spawned = std::thread::Builder::new()
            .name("sqlite-presync".into())
            .spawn(move || {
                if let Ok(wal) = File::open(&wal) {
                    let _ = wal.sync_data();
                }
                let _ = db.sync_data();
                let _ = done.send(());
            });
        if spawned.is_err() {
            return false;
        }
        let in_time = finished.recv_timeout(wait).is_ok();
        self.last_sync = (!in_time).then_some(finished);
        in_time
    }
}

fn checkpoint_loop(
    conn: &Connection,
    files: &mut DbFiles,
    read_ahead: &mut WalReadAhead,
    stopped: &mpsc::Receiver<()>,
    schedule: CheckpointSchedule,
) {
    let mut pause = schedule.idle;
    let mut last_frames = 0;
    // The frame count a restart left behind: it reads the same until a writer starts the WAL
    // over, and an idle database is not restarted again and again.
    let mut restarted_at = None;
    while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(pause) {
        match checkpoint(conn, "PASSIVE") {
            Ok((_, frames)) => {
                // New frames since the last checkpoint: the database is being written to.
                pause = if frames != last_frames {
                    files.start_writeback();
                    schedule.busy
                } else {
                    schedule.idle
                };
                last_frames = frames;
                read_ahead.advance(frames);
                if frames > schedule.restart_frames && restarted_at != Some(frames) {
                    restart(conn, files, frames, schedule.restart_frames);
                    restarted_at = Some(frames);
                    // The next commit writes the WAL from its start.
                    read_ahead.advance(0);
                }
            }
            Err(e) => tracing::warn!(error = %e, "SQLite WAL checkpoint failed; retrying"),
        }
    }
    let _ = checkpoint(conn, "TRUNCATE");
}

/// Make the WAL (now `frames` long) start over. Writers wait while the RESTART syncs the WAL,
/// copies the frames committed since the pass before it and syncs the database file. So first
/// both files are synced from here, outside the write lock, then two more passive passes copy
/// what was committed meanwhile: the RESTART finds a short tail and little left to write back,
/// and holds the writer for less time.
///
/// That sync lets the writer go on while it runs, so it must not run long: a RESTART waits for
/// it [`PRESYNC_WAIT`] at most (a disk stalled by something else would otherwise let the WAL
/// grow for as long as the stall), and once the WAL has reached twice the restart size (a
/// writer faster than the disk writes back) it is skipped: the RESTART then syncs under the
/// lock, which holds the writer back until the WAL is down again (the test below).
fn restart(conn: &Connection, files: &mut DbFiles, frames: i64, restart_frames: i64) {
    // Past this the writer is outrunning the disk: no sync or passes ahead of the RESTART.
    let too_long = 2 * restart_frames;
    let presync_started = std::time::Instant::now();
    let presynced = frames < too_long && files.sync_for_at_most(PRESYNC_WAIT);
    let presync_micros = presync_started.elapsed().as_micros() as u64;
    // Only after a sync that finished in time, and not once the WAL has reached twice the
    // restart size: on a disk that is slow now, these passes take as long, and the WAL grows
    // all the while (the test below); the RESTART then holds the writer back at once instead.
    if presynced {
        for _ in 0..2 {
            match checkpoint(conn, "PASSIVE") {
                Ok((_, now)) if now >= too_long => break,
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "SQLite WAL checkpoint failed"),
            }
        }
    }
    let started = std::time::Instant::now();
    match checkpoint(conn, "RESTART") {
        Ok((busy, _)) => tracing::debug!(
            frames,
            restarted = !busy,
            presynced,
            presync_micros,
            micros = started.elapsed().as_micros() as u64,
            "SQLite WAL restart"
        ),
        Err(e) => tracing::warn!(error = %e, "SQLite WAL restart failed; retrying"),
    }
}

/// The checkpoint connection's busy handler: short naps (as the intake's), for ~25 ms in all. A
/// RESTART holds the write lock while it waits for readers to leave the WAL, so intake waits as
/// long as this lets it; given up, it returns busy and is tried again at the next checkpoint.
fn wait_briefly(attempt: i32) -> bool {
    super::sqlite_intake::nap_unless_past(attempt, 35)
}

/// `PRAGMA wal_checkpoint(MODE)`: whether it could not finish for a reader or writer, and the
/// number of frames in the WAL when it ran.
fn checkpoint(conn: &Connection, mode: &str) -> rusqlite::Result<(bool, i64)> {
    conn.query_row(&format!("PRAGMA wal_checkpoint({mode})"), [], |row| {
        Ok((row.get::<_, i64>(0)? != 0, row.get(1)?))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::deliveries::NewDelivery;
    use crate::db::held_open::{
        self,
        tests::{open_sqlite, process_holds_a_lock_on},
    };
    use crate::db::jobs::NewJob;
    use crate::db::sqlite_intake::SqliteIntake;
    use crate::db::Db;
    use crate::jobs::JobKind;

    /// A writer that commits without pause never lets a passive checkpoint copy the last frame,
    /// so without the restart the WAL holds every frame ever written: more bytes than all the
    /// job payloads committed. With it, the WAL file levels off, wherever this machine's speed
    /// puts the level: the writer goes on until it has committed four times the largest WAL
    /// file seen (and at least 32 MiB), or gives up at 256 MiB.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn wal_levels_off_under_a_writer_that_never_pauses() {
        const PAYLOAD: usize = 1024;
        const PER_COMMIT: usize = 16;
        const AT_LEAST: u64 = 32 << 20;
        // Under a loaded machine (the whole suite on 2 cores) the checkpointer may fall behind
        // for a while; a WAL that levels off is still caught up with well before 1 GiB.
        const GIVE_UP: u64 = 1 << 30;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("t.db");
        let schedule = CheckpointSchedule {
            busy: Duration::from_millis(2),
            idle: Duration::from_millis(2),
            restart_frames: 64, // 256 KiB
        };
        let url = format!("sqlite://{}?mode=rwc", file.display());
        let db = Db::connect_with_checkpoints(&url, schedule).await.unwrap();
        db.migrate().await.unwrap();
        let wal = dir.path().join("t.db-wal");
        let writer = tokio::task::spawn_blocking(move || {
            let mut intake = SqliteIntake::open(&file).unwrap();
            let (mut written, mut largest, mut n) = (0u64, 0u64, 0usize);
            while (written < AT_LEAST || written < 4 * largest) && written < GIVE_UP {
                let batch: Vec<NewDelivery> = (0..PER_COMMIT)
                    .map(|_| {
                        n += 1;
                        delivery(n, "x".repeat(PAYLOAD))
                    })
                    .collect();
                let refs: Vec<&NewDelivery> = batch.iter().collect();
                intake.record(&refs, 0).unwrap();
                written += (PAYLOAD * PER_COMMIT) as u64;
                largest = largest.max(std::fs::metadata(&wal).unwrap().len());
            }
            (written, largest)
        });
        let (written, largest) = writer.await.unwrap();
        assert!(
            written >= 4 * largest,
            "WAL reached {largest} bytes while {written} bytes of payload were committed"
        );
        drop(db);
    }

    /// SQLite holds a shared lock on a WAL database for as long as a connection is open; a
    /// descriptor of the file closed beside it drops that lock (`held_open.rs`).
    #[tokio::test]
    async fn syncing_before_a_restart_leaves_sqlite_its_lock_on_the_database_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("t.db");
        let db = open_sqlite(&file).await;
        let probe = held_open::database_file(&file).unwrap();
        assert!(process_holds_a_lock_on(&probe), "no lock before the sync");
        let mut files = DbFiles::of(&file).unwrap();
        assert!(files.sync_for_at_most(Duration::from_secs(30)));
        assert!(
            process_holds_a_lock_on(&probe),
            "the sync dropped SQLite's lock"
        );
        db.ping().await.unwrap();
    }

    fn delivery(n: usize, payload: String) -> NewDelivery {
        NewDelivery {
            id: format!("delivery-{n}"),
            event: "issue_comment".into(),
            action: Some("created".into()),
            repo: Some("o/r".into()),
            installation_id: Some(1),
            jobs: vec![NewJob {
                kind: JobKind::Comment,
                payload,
                repo: Some("o/r".into()),
                pr: Some(1),
                max_attempts: 3,
            }],
        }
    }
}
