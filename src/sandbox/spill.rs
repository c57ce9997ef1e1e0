//! A run's stdout spilled to an unlinked temporary file (effects): memory stays bounded while
//! the run goes on; the bytes are read back once it ended.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};

/// Bytes written so far to an anonymous file in the server's temporary directory (never in
/// the workdir: the sandbox cannot see or change it).
#[derive(Debug)]
pub struct Spill {
    file: File,
    len: u64,
}

impl Spill {
    pub fn new() -> io::Result<Spill> {
        Ok(Spill {
            file: tempfile::tempfile()?,
            len: 0,
        })
    }

    pub fn write(&mut self, chunk: &[u8]) -> io::Result<()> {
        self.file.write_all(chunk)?;
        self.len += chunk.len() as u64;
        Ok(())
    }

    /// All bytes written, or only the last `tail` of them.
    pub fn read_back(&mut self, tail: Option<u64>) -> io::Result<Vec<u8>> {
        let keep = tail.map_or(self.len, |t| t.min(self.len));
        self.file.seek(SeekFrom::Start(self.len - keep))?;
        let mut bytes = Vec::with_capacity(keep as usize);
        (&mut self.file).take(keep).read_to_end(&mut bytes)?;
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_back_all_or_the_tail() {
        let mut spill = Spill::new().unwrap();
        assert_eq!(spill.read_back(None).unwrap(), b"");
        spill.write(b"hello ").unwrap();
        spill.write(b"world").unwrap();
        assert_eq!(spill.read_back(None).unwrap(), b"hello world");
        assert_eq!(spill.read_back(Some(5)).unwrap(), b"world");
        assert_eq!(spill.read_back(Some(100)).unwrap(), b"hello world");
        spill.write(b"!").unwrap();
        assert_eq!(spill.read_back(Some(2)).unwrap(), b"d!");
    }
}
