//! Safe extraction of a GitHub tarball (gzip + tar) into a fresh directory.
//!
//! Policy, decided for Terraform repositories:
//! - the single top-level directory GitHub adds (`owner-repo-sha/`) is stripped;
//! - absolute paths, `..` components and members outside the top-level directory reject
//!   the whole archive;
//! - regular files get mode 0644, or 0755 when any exec bit is set (no setuid/setgid/sticky,
//!   no group/world write); directories 0755; the destination itself 0700;
//! - relative symlinks are kept when they resolve inside the checkout: checked lexically
//!   when met, and again on the real filesystem once everything is written (this catches
//!   chains such as `a -> .` plus `b -> a/../x`); a link resolving outside rejects the
//!   archive, a dangling or looping link is removed and counted;
//! - nothing is ever written through a symlink, and no file is overwritten (`O_EXCL`);
//! - hard links become copies of an earlier regular file of the same archive;
//! - devices, fifos, sparse and contiguous files reject the archive;
//! - limits: members, bytes per file, total bytes, decompressed stream size.
//!
//! On any error the destination is removed.

use std::cell::Cell;
use std::collections::HashSet;
use std::fs::{self, DirBuilder, File, OpenOptions, Permissions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use flate2::read::GzDecoder;
use tar::EntryType;

use super::archive_path::{resolve_link_target, shown, PathProblem, TopLevelDir};
use super::capped_reader::CappedReader;
use super::error::ExtractError;
use super::limits::ExtractLimits;

/// What a successful checkout wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckoutInfo {
    /// Directory holding the repository content (the destination, top-level dir stripped).
    pub root: PathBuf,
    /// Regular files written (hard-link copies included).
    pub files: usize,
    /// Bytes of file content written.
    pub bytes: u64,
    /// Symlinks kept (all resolve inside `root`).
    pub symlinks: usize,
    /// Dangling or looping symlinks that were removed.
    pub dangling_symlinks_removed: usize,
}

/// Extracts a gzip-compressed GitHub tarball into `dest`, which must be absent or an empty
/// directory. Blocking; run it on a blocking thread.
pub fn extract_tarball<R: Read>(
    gzipped: R,
    dest: &Path,
    limits: &ExtractLimits,
) -> Result<CheckoutInfo, ExtractError> {
    prepare_destination(dest)?;
    let result = Extraction::new(dest, limits).run(gzipped);
    if result.is_err() {
        // Best effort: a half-written checkout must not be used.
        let _ = fs::remove_dir_all(dest);
    }
    result
}

fn prepare_destination(dest: &Path) -> Result<(), ExtractError> {
    let not_empty = || ExtractError::DestinationNotEmpty {
        path: shown(dest.as_os_str().as_encoded_bytes()),
    };
    match fs::symlink_metadata(dest) {
        Ok(meta) if meta.is_dir() => {
            let mut listing = fs::read_dir(dest).map_err(|source| write_error(dest, source))?;
            match listing.next() {
                None => Ok(()),
                Some(_) => Err(not_empty()),
            }
        }
        Ok(_) => Err(not_empty()),
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            if let Some(parent) = dest.parent() {
                fs::create_dir_all(parent).map_err(|source| write_error(parent, source))?;
            }
            DirBuilder::new()
                .mode(0o700)
                .create(dest)
                .map_err(|source| write_error(dest, source))
        }
        Err(source) => Err(write_error(dest, source)),
    }
}

fn write_error(path: &Path, source: io::Error) -> ExtractError {
    ExtractError::Write {
        path: shown(path.as_os_str().as_encoded_bytes()),
        source,
    }
}

/// Mode of an extracted regular file: only the exec bit survives from the archive.
pub(crate) fn file_mode(archive_mode: u32) -> u32 {
    if archive_mode & 0o111 != 0 {
        0o755
    } else {
        0o644
    }
}

fn unsupported_kind(kind: EntryType) -> &'static str {
    match kind {
        EntryType::Char => "character device",
        EntryType::Block => "block device",
        EntryType::Fifo => "fifo",
        EntryType::Continuous => "contiguous file",
        EntryType::GNUSparse => "sparse file",
        _ => "unknown",
    }
}

struct Extraction<'a> {
    dest: &'a Path,
    limits: &'a ExtractLimits,
    top: TopLevelDir,
    members: usize,
    files: usize,
    bytes: u64,
    regular_files: HashSet<PathBuf>,
    symlinks: Vec<PathBuf>,
}

impl<'a> Extraction<'a> {
    fn new(dest: &'a Path, limits: &'a ExtractLimits) -> Self {
        Extraction {
            dest,
            limits,
            top: TopLevelDir::default(),
            members: 0,
            files: 0,
            bytes: 0,
            regular_files: HashSet::new(),
            symlinks: Vec::new(),
        }
    }

    fn run<R: Read>(mut self, gzipped: R) -> Result<CheckoutInfo, ExtractError> {
        let cap = self.limits.max_stream_bytes();
        let exceeded = Rc::new(Cell::new(false));
        let capped = CappedReader {
            inner: GzDecoder::new(gzipped),
            remaining: cap,
            exceeded: Rc::clone(&exceeded),
        };
        let over_cap = |err: ExtractError| {
            if exceeded.get() {
                ExtractError::StreamTooLarge { limit: cap }
            } else {
                err
            }
        };
        let mut archive = tar::Archive::new(capped);
        for entry in archive
            .entries()
            .map_err(|e| over_cap(ExtractError::Corrupt(e)))?
        {
            let entry = entry.map_err(|e| over_cap(ExtractError::Corrupt(e)))?;
            self.member(entry).map_err(over_cap)?;
        }
        // Read to the end so the gzip trailer (length and CRC) is verified.
        io::copy(&mut archive.into_inner(), &mut io::sink())
            .map_err(|e| over_cap(ExtractError::Corrupt(e)))?;
        let dangling = self.check_symlinks()?;
        Ok(CheckoutInfo {
            root: self.dest.to_path_buf(),
            files: self.files,
            bytes: self.bytes,
            symlinks: self.symlinks.len() - dangling,
            dangling_symlinks_removed: dangling,
        })
    }

    fn member<R: Read>(&mut self, mut entry: tar::Entry<'_, R>) -> Result<(), ExtractError> {
        let kind = entry.header().entry_type();
        if kind.is_pax_global_extensions() {
            return Ok(());
        }
        self.members += 1;
        if self.members > self.limits.max_files {
            return Err(ExtractError::TooManyFiles {
                limit: self.limits.max_files,
            });
        }
        let path = shown(&entry.path_bytes());
        let unsafe_path = |problem: &'static str| ExtractError::UnsafePath {
            path: path.clone(),
            problem,
        };
        let member_path = entry
            .path()
            .map_err(|_| unsafe_path("not a valid path"))?
            .into_owned();
        let relative = self
            .top
            .strip(&member_path)
            .map_err(|problem| unsafe_path(problem.describe()))?;
        let Some(relative) = relative else {
            return if kind.is_dir() {
                Ok(())
            } else {
                Err(unsafe_path("top-level member is not a directory"))
            };
        };
        if self.passes_through_symlink(&relative) {
            return Err(ExtractError::ThroughLink { path });
        }
        if kind.is_file() {
            self.write_file(&mut entry, &relative, path)
        } else if kind.is_dir() {
            self.make_dir(&relative, path)
        } else if kind.is_symlink() {
            self.make_symlink(&entry, relative, path)
        } else if kind.is_hard_link() {
            self.copy_hard_link(&entry, relative, path)
        } else {
            Err(ExtractError::UnsupportedEntry {
                path,
                kind: unsupported_kind(kind),
            })
        }
    }

    fn passes_through_symlink(&self, relative: &Path) -> bool {
        relative
            .ancestors()
            .skip(1)
            .any(|ancestor| self.symlinks.iter().any(|link| link == ancestor))
    }

    fn check_size(&self, size: u64, path: &str) -> Result<(), ExtractError> {
        if size > self.limits.max_file_bytes {
            return Err(ExtractError::FileTooLarge {
                path: path.to_owned(),
                size,
                limit: self.limits.max_file_bytes,
            });
        }
        if self.bytes.saturating_add(size) > self.limits.max_total_bytes {
            return Err(ExtractError::TotalTooLarge {
                limit: self.limits.max_total_bytes,
            });
        }
        Ok(())
    }

    fn ensure_parent(&self, relative: &Path) -> Result<(), ExtractError> {
        match relative.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => {
                let full = self.dest.join(parent);
                DirBuilder::new()
                    .recursive(true)
                    .mode(0o755)
                    .create(&full)
                    .map_err(|source| write_error(parent, source))
            }
            _ => Ok(()),
        }
    }

    fn write_file<R: Read>(
        &mut self,
        entry: &mut tar::Entry<'_, R>,
        relative: &Path,
        path: String,
    ) -> Result<(), ExtractError> {
        let size = entry.size();
        self.check_size(size, &path)?;
        let mode = file_mode(entry.header().mode().unwrap_or(0o644));
        self.ensure_parent(relative)?;
        let mut file = create_new_file(&self.dest.join(relative), mode, &path)?;
        let written = copy_exact(entry, &mut file, size).map_err(|err| match err {
            CopyError::Read(e) => ExtractError::Corrupt(e),
            CopyError::Write(source) => ExtractError::Write {
                path: path.clone(),
                source,
            },
        })?;
        self.bytes += written;
        self.files += 1;
        self.regular_files.insert(relative.to_path_buf());
        Ok(())
    }

    fn make_symlink<R: Read>(
        &mut self,
        entry: &tar::Entry<'_, R>,
        relative: PathBuf,
        path: String,
    ) -> Result<(), ExtractError> {
        let target = link_name(entry)?;
        resolve_link_target(&relative, &target).map_err(|problem| ExtractError::UnsafeLink {
            path: path.clone(),
            problem: problem.describe(),
        })?;
        self.ensure_parent(&relative)?;
        std::os::unix::fs::symlink(&target, self.dest.join(&relative)).map_err(|source| {
            if source.kind() == io::ErrorKind::AlreadyExists {
                ExtractError::Duplicate { path: path.clone() }
            } else {
                ExtractError::Write {
                    path: path.clone(),
                    source,
                }
            }
        })?;
        self.symlinks.push(relative);
        Ok(())
    }

    fn copy_hard_link<R: Read>(
        &mut self,
        entry: &tar::Entry<'_, R>,
        relative: PathBuf,
        path: String,
    ) -> Result<(), ExtractError> {
        let target = link_name(entry)?;
        let target_shown = shown(&entry.link_name_bytes().unwrap_or_default());
        let not_allowed = || ExtractError::HardLinkTarget {
            path: path.clone(),
            target: target_shown.clone(),
        };
        let source_relative = match self.top.strip(&target) {
            Ok(Some(source)) if self.regular_files.contains(&source) => source,
            _ => return Err(not_allowed()),
        };
        let source_path = self.dest.join(&source_relative);
        let mut source = File::open(&source_path).map_err(|source| ExtractError::Write {
            path: target_shown.clone(),
            source,
        })?;
        let metadata = source.metadata().map_err(|source| ExtractError::Write {
            path: target_shown.clone(),
            source,
        })?;
        let size = metadata.len();
        self.check_size(size, &path)?;
        self.ensure_parent(&relative)?;
        let mode = metadata.permissions().mode() & 0o777;
        let mut file = create_new_file(&self.dest.join(&relative), mode, &path)?;
        let written = copy_exact(&mut source, &mut file, size).map_err(|err| {
            let source = match err {
                CopyError::Read(e) | CopyError::Write(e) => e,
            };
            ExtractError::Write {
                path: path.clone(),
                source,
            }
        })?;
        self.bytes += written;
        self.files += 1;
        self.regular_files.insert(relative);
        Ok(())
    }

    /// Re-checks every kept symlink on the real filesystem; returns how many were removed.
    fn check_symlinks(&self) -> Result<usize, ExtractError> {
        if self.symlinks.is_empty() {
            return Ok(0);
        }
        let root = fs::canonicalize(self.dest).map_err(|source| write_error(self.dest, source))?;
        let mut removed = 0;
        for link in &self.symlinks {
            let full = self.dest.join(link);
            match fs::canonicalize(&full) {
                Ok(real) if real.starts_with(&root) => {}
                Ok(_) => {
                    return Err(ExtractError::UnsafeLink {
                        path: shown(link.as_os_str().as_encoded_bytes()),
                        problem: PathProblem::EscapesRoot.describe(),
                    })
                }
                Err(_) => {
                    fs::remove_file(&full).map_err(|source| write_error(link, source))?;
                    removed += 1;
                }
            }
        }
        Ok(removed)
    }

    fn make_dir(&mut self, relative: &Path, path: String) -> Result<(), ExtractError> {
        if self.symlinks.iter().any(|link| link == relative) {
            return Err(ExtractError::Duplicate { path });
        }
        DirBuilder::new()
            .recursive(true)
            .mode(0o755)
            .create(self.dest.join(relative))
            .map_err(|source| ExtractError::Write { path, source })
    }
}

fn link_name<R: Read>(entry: &tar::Entry<'_, R>) -> Result<PathBuf, ExtractError> {
    match entry.link_name() {
        Ok(Some(target)) => Ok(target.into_owned()),
        Ok(None) => Err(ExtractError::Corrupt(io::Error::new(
            io::ErrorKind::InvalidData,
            "link without a target",
        ))),
        Err(err) => Err(ExtractError::Corrupt(err)),
    }
}

fn create_new_file(full: &Path, mode: u32, path: &str) -> Result<File, ExtractError> {
    let write_error = |source: io::Error| {
        if source.kind() == io::ErrorKind::AlreadyExists {
            ExtractError::Duplicate {
                path: path.to_owned(),
            }
        } else {
            ExtractError::Write {
                path: path.to_owned(),
                source,
            }
        }
    };
    // create_new = O_CREAT|O_EXCL: never follows or replaces an existing entry, link or not.
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(full)
        .map_err(write_error)?;
    // The umask may have narrowed the mode; set it exactly.
    file.set_permissions(Permissions::from_mode(mode))
        .map_err(write_error)?;
    Ok(file)
}

enum CopyError {
    Read(io::Error),
    Write(io::Error),
}

/// Copies exactly `size` bytes; a shorter source is a truncated archive.
fn copy_exact(source: &mut impl Read, target: &mut File, size: u64) -> Result<u64, CopyError> {
    let mut buffer = vec![0u8; 64 * 1024];
    let mut remaining = size;
    while remaining > 0 {
        let want = usize::try_from(remaining.min(buffer.len() as u64)).unwrap_or(buffer.len());
        let read = match source.read(&mut buffer[..want]) {
            Ok(0) => {
                return Err(CopyError::Read(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "member shorter than its header says",
                )))
            }
            Ok(read) => read,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(CopyError::Read(err)),
        };
        target
            .write_all(&buffer[..read])
            .map_err(CopyError::Write)?;
        remaining -= read as u64;
    }
    Ok(size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_mode_keeps_only_the_exec_bit() {
        let cases = [
            (0o644, 0o644),
            (0o600, 0o644),
            (0o666, 0o644),
            (0o755, 0o755),
            (0o700, 0o755),
            (0o4755, 0o755),
            (0o2644, 0o644),
            (0o1777, 0o755),
            (0o001, 0o755),
        ];
        for (archive, expected) in cases {
            assert_eq!(file_mode(archive), expected, "archive mode {archive:o}");
        }
    }
}
