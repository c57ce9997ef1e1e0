//! Builds tar.gz archives byte by byte, including members a well-behaved tar writer would
//! refuse to produce (`..`, absolute paths, devices).

use std::io::Write;

use flate2::write::GzEncoder;
use flate2::Compression;
use tar::{EntryType, Header};

pub const SHA: &str = "3f1c9a0b2d4e6f8091a2b3c4d5e6f708192a3b4c";
pub const TOP: &str = "octo-infra-3f1c9a0";

/// `TOP/` followed by `rest`.
pub fn under_top(rest: &str) -> String {
    format!("{TOP}/{rest}")
}

#[derive(Default)]
pub struct Tarball {
    bytes: Vec<u8>,
}

impl Tarball {
    /// Starts like a GitHub tarball: a pax global header with the commit, then the top dir.
    pub fn github() -> Self {
        let comment = format!("52 comment={SHA}\n");
        Tarball::default()
            .member(
                "pax_global_header",
                EntryType::XGlobalHeader,
                0o666,
                "",
                comment.as_bytes(),
            )
            .dir(&format!("{TOP}/"))
    }

    pub fn member(
        mut self,
        name: &str,
        kind: EntryType,
        mode: u32,
        link: &str,
        data: &[u8],
    ) -> Self {
        self.push_header(name, kind, mode, link, data.len() as u64);
        self.push_data(data);
        self
    }

    pub fn file(self, name: &str, data: &[u8]) -> Self {
        self.member(name, EntryType::Regular, 0o644, "", data)
    }

    pub fn file_with_mode(self, name: &str, mode: u32, data: &[u8]) -> Self {
        self.member(name, EntryType::Regular, mode, "", data)
    }

    pub fn dir(self, name: &str) -> Self {
        self.member(name, EntryType::Directory, 0o755, "", b"")
    }

    pub fn symlink(self, name: &str, target: &str) -> Self {
        self.member(name, EntryType::Symlink, 0o777, target, b"")
    }

    pub fn hardlink(self, name: &str, target: &str) -> Self {
        self.member(name, EntryType::Link, 0o644, target, b"")
    }

    /// A regular-file header claiming `size` bytes, with no data after it.
    pub fn file_header_only(mut self, name: &str, size: u64) -> Self {
        self.push_header(name, EntryType::Regular, 0o644, "", size);
        self
    }

    /// The tar stream with its end-of-archive marker, gzip-compressed.
    pub fn gzip(mut self) -> Vec<u8> {
        self.bytes.extend_from_slice(&[0u8; 1024]);
        let mut encoder = GzEncoder::new(Vec::new(), Compression::fast());
        encoder.write_all(&self.bytes).unwrap();
        encoder.finish().unwrap()
    }

    fn push_header(&mut self, name: &str, kind: EntryType, mode: u32, link: &str, size: u64) {
        assert!(
            name.len() <= 100 && link.len() <= 100,
            "names over 100 bytes unsupported"
        );
        let mut header = Header::new_gnu();
        header.as_mut_bytes()[..name.len()].copy_from_slice(name.as_bytes());
        header.as_mut_bytes()[157..157 + link.len()].copy_from_slice(link.as_bytes());
        header.set_entry_type(kind);
        header.set_mode(mode);
        header.set_size(size);
        header.set_mtime(1_700_000_000);
        header.set_cksum();
        self.bytes.extend_from_slice(header.as_bytes());
    }

    fn push_data(&mut self, data: &[u8]) {
        self.bytes.extend_from_slice(data);
        let padding = (512 - data.len() % 512) % 512;
        self.bytes.extend(std::iter::repeat(0u8).take(padding));
    }
}
