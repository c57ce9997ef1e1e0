//! A reader that stops a decompressed stream at a byte cap and flags the overrun, so a gzip
//! bomb cannot make the extractor read (or buffer) without bound.

use std::cell::Cell;
use std::io::{self, Read};
use std::rc::Rc;

/// Stops the decompressed stream after `remaining` bytes and flags the overrun.
pub(crate) struct CappedReader<R> {
    pub(crate) inner: R,
    pub(crate) remaining: u64,
    pub(crate) exceeded: Rc<Cell<bool>>,
}

impl<R: Read> Read for CappedReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.remaining == 0 {
            let mut probe = [0u8; 1];
            return match self.inner.read(&mut probe)? {
                0 => Ok(0),
                _ => {
                    self.exceeded.set(true);
                    Err(io::Error::other("decompressed archive over limit"))
                }
            };
        }
        let want = usize::try_from(self.remaining.min(buf.len() as u64)).unwrap_or(buf.len());
        let read = self.inner.read(&mut buf[..want])?;
        self.remaining -= read as u64;
        Ok(read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capped_reader_passes_data_up_to_the_cap() {
        let flag = Rc::new(Cell::new(false));
        let mut reader = CappedReader {
            inner: &b"abcdef"[..],
            remaining: 6,
            exceeded: Rc::clone(&flag),
        };
        let mut out = Vec::new();
        reader.read_to_end(&mut out).unwrap();
        assert_eq!(out, b"abcdef");
        assert!(!flag.get());
    }

    #[test]
    fn capped_reader_flags_data_past_the_cap() {
        let flag = Rc::new(Cell::new(false));
        let mut reader = CappedReader {
            inner: &b"abcdefg"[..],
            remaining: 6,
            exceeded: Rc::clone(&flag),
        };
        let mut out = Vec::new();
        assert!(reader.read_to_end(&mut out).is_err());
        assert_eq!(out, b"abcdef");
        assert!(flag.get());
    }
}
