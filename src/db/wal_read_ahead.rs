//! Keeps the part of the SQLite WAL file that the writer is about to overwrite in the page cache.
//!
//! After a RESTART the writer writes the WAL from its start again, over the frames of the
//! previous pass. A frame is 24 bytes of header and a page (4,120 bytes), so frames do not line
//! up with the file system's 4 KiB blocks and nearly every frame write covers a block only in
//! part. When the kernel has dropped that block from the page cache in the meantime (memory
//! reclaim), the write must first read the block back from disk, with every intake request
//! waiting on that commit. So the checkpoint thread asks the kernel (`posix_fadvise(WILLNEED)`,
//! which reads in the background only what is not cached) for the range just ahead of the
//! writer, well before the writer gets there.
//!
//! Deciding which range to ask for is pure ([`next_range`]); the call itself is in
//! [`WalReadAhead::advance`].

use std::fs::File;
use std::ops::Range;
use std::os::fd::AsRawFd;
use std::path::PathBuf;

/// How far ahead of the writer the WAL is kept cached: a few busy checkpoint intervals of the
/// fastest WAL writing.
pub const AHEAD_BYTES: u64 = 16 << 20;

/// Bytes asked for in one `posix_fadvise` call: Linux's default read-ahead window (128 KiB).
const REQUEST_BYTES: u64 = 128 << 10;

/// Bytes before the first frame of a WAL file.
const WAL_HEADER_BYTES: u64 = 32;
/// Bytes of header in front of each page in a WAL frame.
const FRAME_HEADER_BYTES: u64 = 24;

/// Where in the WAL file the writer writes next, with `frames` frames in it.
pub fn write_offset(frames: i64, page_size: u64) -> u64 {
    match u64::try_from(frames) {
        Ok(0) | Err(_) => 0,
        Ok(n) => WAL_HEADER_BYTES + n * (FRAME_HEADER_BYTES + page_size),
    }
}

/// With `covered` already asked for, what to ask for so that `ahead` bytes from `write_at` are:
/// only the part not yet covered while the writer moves on through it, the whole window when
/// the writer is elsewhere (the WAL started over). Returns the range to ask for (`None`: nothing
/// new) and what is covered afterwards.
pub fn next_range(
    covered: &Range<u64>,
    write_at: u64,
    ahead: u64,
) -> (Option<Range<u64>>, Range<u64>) {
    let want = write_at..write_at.saturating_add(ahead);
    if covered.start <= want.start && want.start <= covered.end {
        if want.end <= covered.end {
            (None, covered.clone())
        } else {
            (Some(covered.end..want.end), covered.start..want.end)
        }
    } else {
        (Some(want.clone()), want)
    }
}

/// The WAL file, opened for read-ahead requests, and what has been asked for so far.
pub struct WalReadAhead {
    path: PathBuf,
    file: Option<File>,
    page_size: u64,
    covered: Range<u64>,
}

impl WalReadAhead {
    pub fn new(path: PathBuf, page_size: u64) -> WalReadAhead {
        WalReadAhead {
            path,
            file: None,
            page_size,
            covered: 0..0,
        }
    }

    /// The WAL now holds `frames` frames: make sure the next [`AHEAD_BYTES`] are being read in.
    /// Best effort: a WAL that cannot be opened (not created yet) is tried again next time.
    pub fn advance(&mut self, frames: i64) {
        let write_at = write_offset(frames, self.page_size);
        let (ask, covered) = next_range(&self.covered, write_at, AHEAD_BYTES);
        let Some(range) = ask else { return };
        if self.file.is_none() {
            self.file = File::open(&self.path).ok();
        }
        let Some(file) = &self.file else { return };
        // The kernel reads at most its read-ahead window of one request (`read_ahead_kb`, or
        // the device's largest transfer if larger) and leaves the rest unread, so the range is
        // asked for in pieces no larger than the default window.
        let mut start = range.start;
        while start < range.end {
            let len = (range.end - start).min(REQUEST_BYTES);
            let (Ok(offset), Ok(len_arg)) =
                (libc::off_t::try_from(start), libc::off_t::try_from(len))
            else {
                return;
            };
            // SAFETY: posix_fadvise only reads its arguments; the descriptor is open for as
            // long as `file` lives.
            let failed = unsafe {
                libc::posix_fadvise(file.as_raw_fd(), offset, len_arg, libc::POSIX_FADV_WILLNEED)
            };
            if failed != 0 {
                return;
            }
            start += len;
        }
        self.covered = covered;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MB: u64 = 1 << 20;

    #[test]
    fn the_writer_writes_after_the_header_and_the_frames_before() {
        assert_eq!(write_offset(0, 4096), 0);
        assert_eq!(write_offset(-1, 4096), 0);
        assert_eq!(write_offset(1, 4096), 32 + 4120);
        assert_eq!(write_offset(32_768, 4096), 32 + 32_768 * 4120);
        assert_eq!(write_offset(10, 1024), 32 + 10 * 1048);
    }

    #[test]
    fn which_range_is_asked_for() {
        // (covered, writer at) → (asked for, covered after)
        type Case = (Range<u64>, u64, Option<Range<u64>>, Range<u64>);
        let cases: [Case; 6] = [
            // nothing asked for yet: the whole window
            (0..0, 0, Some(0..16 * MB), 0..16 * MB),
            // the writer moved on inside the window: only the new end
            (0..16 * MB, 4 * MB, Some(16 * MB..20 * MB), 0..20 * MB),
            // the writer has not moved: nothing
            (0..20 * MB, 4 * MB, None, 0..20 * MB),
            // exactly at the end of what is covered: continue from there
            (0..16 * MB, 16 * MB, Some(16 * MB..32 * MB), 0..32 * MB),
            // past the covered range (a jump): the whole window again
            (
                0..16 * MB,
                40 * MB,
                Some(40 * MB..56 * MB),
                40 * MB..56 * MB,
            ),
            // the WAL started over (writer before the covered range): from the start again
            (100 * MB..140 * MB, 0, Some(0..16 * MB), 0..16 * MB),
        ];
        for (covered, write_at, asked, after) in cases {
            assert_eq!(
                next_range(&covered, write_at, 16 * MB),
                (asked.clone(), after.clone()),
                "covered {covered:?}, writer at {write_at}"
            );
        }
    }

    #[test]
    fn a_missing_wal_is_tried_again_and_nothing_is_counted_as_covered() {
        let dir = tempfile::tempdir().unwrap();
        let wal = dir.path().join("t.db-wal");
        let mut read_ahead = WalReadAhead::new(wal.clone(), 4096);
        read_ahead.advance(10);
        assert_eq!(read_ahead.covered, 0..0);
        std::fs::write(&wal, vec![0u8; 4096]).unwrap();
        read_ahead.advance(10);
        let at = write_offset(10, 4096);
        assert_eq!(read_ahead.covered, at..at + AHEAD_BYTES);
    }
}
