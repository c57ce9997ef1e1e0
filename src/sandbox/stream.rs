//! Byte-stream bookkeeping for a supervised process (pure): splitting stdout into lines,
//! keeping only the tail of stderr, and counting bytes against the output cap.

/// Splits a byte stream into `\n`-terminated lines (the `\n`, and a `\r` before it, removed;
/// invalid UTF-8 replaced). A line longer than `max_line` bytes is never held: it is dropped
/// (and counted), so memory stays at `max_line` whatever the program prints.
#[derive(Debug)]
pub struct LineSplitter {
    pending: Vec<u8>,
    max_line: usize,
    /// Inside an over-long line: bytes are discarded until its `\n`.
    skipping: bool,
    dropped: u64,
}

impl LineSplitter {
    pub fn new(max_line: usize) -> Self {
        LineSplitter {
            pending: Vec::new(),
            max_line,
            skipping: false,
            dropped: 0,
        }
    }

    /// Feeds a chunk; calls `on_line` for every line it completes.
    pub fn feed(&mut self, chunk: &[u8], mut on_line: impl FnMut(&str)) {
        let mut rest = chunk;
        while let Some(pos) = rest.iter().position(|&b| b == b'\n') {
            if !self.skipping && self.keep(&rest[..pos]) {
                emit(&mut self.pending, &mut on_line);
            }
            self.skipping = false;
            rest = &rest[pos + 1..];
        }
        if !self.skipping {
            self.keep(rest);
        }
    }

    /// Adds `part` to the pending line; false (and the line dropped) when it gets too long.
    fn keep(&mut self, part: &[u8]) -> bool {
        if self.pending.len() + part.len() > self.max_line {
            self.pending = Vec::new();
            self.skipping = true;
            self.dropped += 1;
            return false;
        }
        self.pending.extend_from_slice(part);
        true
    }

    /// Flushes a last line that had no trailing `\n`.
    pub fn finish(&mut self, mut on_line: impl FnMut(&str)) {
        if !self.pending.is_empty() {
            emit(&mut self.pending, &mut on_line);
        }
    }

    /// Lines dropped for being longer than `max_line`.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}

fn emit(pending: &mut Vec<u8>, on_line: &mut impl FnMut(&str)) {
    if pending.last() == Some(&b'\r') {
        pending.pop();
    }
    on_line(&String::from_utf8_lossy(pending));
    pending.clear();
}

/// Keeps the last `capacity` bytes written to it.
#[derive(Debug)]
pub struct TailBuffer {
    capacity: usize,
    bytes: Vec<u8>,
}

impl TailBuffer {
    pub fn new(capacity: usize) -> Self {
        TailBuffer {
            capacity,
            bytes: Vec::new(),
        }
    }

    pub fn push(&mut self, chunk: &[u8]) {
        if chunk.len() >= self.capacity {
            self.bytes.clear();
            self.bytes
                .extend_from_slice(&chunk[chunk.len() - self.capacity..]);
            return;
        }
        let overflow = (self.bytes.len() + chunk.len()).saturating_sub(self.capacity);
        self.bytes.drain(..overflow);
        self.bytes.extend_from_slice(chunk);
    }

    /// The kept bytes as text (a multi-byte character cut at the start is replaced).
    pub fn to_text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }
}

/// Counts output bytes against a cap and says how much of a chunk may still be kept.
#[derive(Debug)]
pub struct OutputBudget {
    cap: usize,
    used: usize,
}

impl OutputBudget {
    pub fn new(cap: usize) -> Self {
        OutputBudget { cap, used: 0 }
    }

    /// Charges a chunk of `len` bytes; returns how many of them fit under the cap.
    pub fn take(&mut self, len: usize) -> usize {
        let fits = len.min(self.cap.saturating_sub(self.used));
        self.used += fits;
        if fits < len {
            // Mark as exceeded even when the cap was hit exactly before.
            self.used = self.cap + 1;
        }
        fits
    }

    /// True once a chunk did not fit entirely.
    pub fn exceeded(&self) -> bool {
        self.used > self.cap
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(chunks: &[&[u8]]) -> Vec<String> {
        split_capped(chunks, 1 << 20).0
    }

    fn split_capped(chunks: &[&[u8]], max_line: usize) -> (Vec<String>, u64) {
        let mut lines = Vec::new();
        let mut splitter = LineSplitter::new(max_line);
        for chunk in chunks {
            splitter.feed(chunk, |l| lines.push(l.to_string()));
        }
        splitter.finish(|l| lines.push(l.to_string()));
        (lines, splitter.dropped())
    }

    #[test]
    fn over_long_lines_are_dropped_and_counted() {
        // (chunks, max line, lines kept, dropped)
        type Case<'a> = (&'a [&'a [u8]], usize, &'a [&'a str], u64);
        let table: &[Case] = &[
            (&[b"abcd\n"], 4, &["abcd"], 0),
            (&[b"abcde\nxy\n"], 4, &["xy"], 1),
            (&[b"ab", b"cd", b"e", b"fgh\nok\n"], 4, &["ok"], 1),
            (&[b"abcdefgh", b"ijkl", b"mn\nok"], 4, &["ok"], 1),
            (&[b"abcde\nfghij\n1\n"], 4, &["1"], 2),
            (&[b"abcdefgh"], 4, &[], 1),
            (&[b"ab\n", b"cdefgh", b"\n", b"ij\n"], 4, &["ab", "ij"], 1),
        ];
        for (chunks, max_line, expected, dropped) in table {
            let (lines, got_dropped) = split_capped(chunks, *max_line);
            assert_eq!(lines, *expected, "{chunks:?}");
            assert_eq!(got_dropped, *dropped, "{chunks:?}");
        }
    }

    #[test]
    fn memory_stays_at_the_line_cap() {
        let mut splitter = LineSplitter::new(1024);
        let chunk = vec![b'x'; 64 * 1024];
        for _ in 0..64 {
            splitter.feed(&chunk, |_| panic!("no line is complete"));
            assert!(
                splitter.pending.capacity() <= 1024,
                "{}",
                splitter.pending.capacity()
            );
        }
        assert_eq!(splitter.dropped(), 1);
    }

    #[test]
    fn line_splitting_table() {
        let table: &[(&[&[u8]], &[&str])] = &[
            (&[b""], &[]),
            (&[b"a\n"], &["a"]),
            (&[b"a\nb\n"], &["a", "b"]),
            (&[b"a", b"b\nc"], &["ab", "c"]),
            (&[b"a\r\n", b"\n"], &["a", ""]),
            (
                &[b"{\"x\":", b"1}\n{\"y\"", b":2}\n"],
                &["{\"x\":1}", "{\"y\":2}"],
            ),
            (&[b"\xff\n"], &["\u{fffd}"]),
            (&[b"\xc3", b"\xa9\n"], &["é"]),
        ];
        for (chunks, expected) in table {
            assert_eq!(split(chunks), *expected, "{chunks:?}");
        }
    }

    #[test]
    fn tail_keeps_last_bytes() {
        let table: &[(usize, &[&str], &str)] = &[
            (5, &["abc"], "abc"),
            (5, &["abc", "def"], "bcdef"),
            (5, &["abcdefgh"], "defgh"),
            (5, &["ab", "cdefghij", "k"], "ghijk"),
            (5, &[], ""),
        ];
        for (cap, chunks, expected) in table {
            let mut tail = TailBuffer::new(*cap);
            for c in *chunks {
                tail.push(c.as_bytes());
            }
            assert_eq!(tail.to_text(), *expected, "{chunks:?}");
        }
    }

    #[test]
    fn budget_table() {
        // (cap, chunk lengths, kept per chunk, exceeded at end)
        let table: &[(usize, &[usize], &[usize], bool)] = &[
            (10, &[3, 3], &[3, 3], false),
            (10, &[10], &[10], false),
            (10, &[10, 0], &[10, 0], false),
            (10, &[10, 1], &[10, 0], true),
            (10, &[4, 8], &[4, 6], true),
            (0, &[1], &[0], true),
            (5, &[9, 4], &[5, 0], true),
        ];
        for (cap, lens, kept, exceeded) in table {
            let mut budget = OutputBudget::new(*cap);
            let got: Vec<usize> = lens.iter().map(|&l| budget.take(l)).collect();
            assert_eq!(got, *kept, "cap {cap} lens {lens:?}");
            assert_eq!(budget.exceeded(), *exceeded, "cap {cap} lens {lens:?}");
        }
    }
}
