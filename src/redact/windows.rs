//! Which parts of a text the token rules must search, and with which rules.
//!
//! No token rule's match contains a delimiter (ASCII whitespace, quotes, backquote, backslash),
//! so the text splits into windows between delimiters; a JSON log line splits into its strings.
//! Most windows need no rule at all. Rather than classify every byte one by one,
//! [`windows_needing_rules`] finds the spots where some rule's match could be from bit masks of
//! byte classes over 64-byte blocks ([`super::byte_masks`], SSE2): a dot between digits (IPv4),
//! an `@` between a local part and a domain, a colon between hex digits or before another colon
//! (IPv6), the start of a run of 32 token characters, 16 capitals and digits, or 12 digits; plus
//! `arn:aws`, `arn%` (encoded ARN), `eyJ` (JWT) and `ip-` / `ec2-` (host names carrying an
//! address) found with `memmem`. Each is necessary for its rule. Only the
//! windows holding a spot are classified exactly by [`window_rules`].

use super::byte_masks::{class_masks, ClassMasks};
use super::patterns::{bit, is_token_byte, Rule};

/// A delimiter-free span of the text and the token rules that could match in it (a bit set, see
/// [`bit`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub start: usize,
    pub end: usize,
    pub rules: u16,
}

/// Every window of `text` that some token rule could match in, in text order, with the rules
/// it needs. A window left out needs no rule.
pub fn windows_needing_rules(text: &[u8]) -> Vec<Window> {
    let mut spots = Spots::new(text.len());
    mark_spots(text, &mut spots);
    for needle in [
        &b"arn:aws"[..],
        b"arn%",
        b"eyJ",
        b"ip-",
        b"IP-",
        b"ec2-",
        b"EC2-",
    ] {
        for i in memchr::memmem::find_iter(text, needle) {
            spots.mark(i);
        }
    }
    let mut windows = Vec::new();
    let mut classified_until = 0;
    for spot in spots.iter() {
        if spot < classified_until {
            continue;
        }
        let start = text[..spot]
            .iter()
            .rposition(|&b| is_delimiter(b))
            .map_or(0, |i| i + 1);
        let end = text[spot..]
            .iter()
            .position(|&b| is_delimiter(b))
            .map_or(text.len(), |i| spot + i);
        classified_until = end.max(spot + 1);
        let rules = window_rules(&text[start..end]);
        if rules != 0 {
            windows.push(Window { start, end, rules });
        }
    }
    windows
}

/// Marks, 64 bytes at a time, the bytes where a rule's match could be: a dot between digits
/// (IPv4), an `@` with a local part before and a domain after, a colon between hex digits or
/// before another colon (IPv6), and the start of a run of 32 token characters, 16 capitals and
/// digits, or 12 digits.
fn mark_spots(text: &[u8], spots: &mut Spots) {
    let blocks = text.len().div_ceil(64);
    let (mut before, mut block) = (ClassMasks::default(), ClassMasks::default());
    for k in 0..=blocks {
        let after = match text.get(k * 64..) {
            Some(rest) if k < blocks => class_masks(&rest[..rest.len().min(64)]),
            _ => ClassMasks::default(),
        };
        if k > 0 {
            spots.words[k - 1] |= block_spots(&before, &block, &after);
        }
        (before, block) = (block, after);
    }
}

/// The spots of `block`, whose neighbours are `before` (only its last byte matters) and `after`.
fn block_spots(before: &ClassMasks, block: &ClassMasks, after: &ClassMasks) -> u64 {
    // Bits 0..64: this block; 64..128: the next one.
    let pair = |f: fn(&ClassMasks) -> u64| u128::from(f(block)) | (u128::from(f(after)) << 64);
    // Bit i: the class of byte i - 1 / byte i + 1.
    let left = |f: fn(&ClassMasks) -> u64| (pair(f) << 1) | u128::from(f(before) >> 63);
    let right = |f: fn(&ClassMasks) -> u64| pair(f) >> 1;
    let dots = pair(|m| m.dot) & left(|m| m.digit) & right(|m| m.digit);
    let ats = pair(|m| m.at) & left(|m| m.email_local) & right(|m| m.domain);
    let colons = pair(|m| m.colon) & ((left(|m| m.hex) & right(|m| m.hex)) | right(|m| m.colon));
    let runs = run_starts(pair(|m| m.token), 32)
        | run_starts(pair(|m| m.upper_or_digit), 16)
        | run_starts(pair(|m| m.digit), 12);
    // Only this block's half: the next block's spots are found with its own neighbours.
    (dots | ats | colons | runs) as u64
}

/// Bit i set where bits i .. i + len of `mask` are all set, only for the first such i of each
/// run (`len` ≤ 64).
fn run_starts(mask: u128, len: u32) -> u128 {
    let mut run = mask;
    let mut have = 1;
    while have * 2 <= len {
        run &= run >> have;
        have *= 2;
    }
    if have < len {
        // Two overlapping runs of `have` cover `len`.
        run &= run >> (len - have);
    }
    run & !(run << 1)
}

/// A set of byte positions, read back in order.
struct Spots {
    words: Vec<u64>,
}

impl Spots {
    fn new(len: usize) -> Self {
        Spots {
            words: vec![0; len / 64 + 1],
        }
    }

    fn mark(&mut self, at: usize) {
        self.words[at / 64] |= 1 << (at % 64);
    }

    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                if rest == 0 {
                    return None;
                }
                let bit = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                Some(i * 64 + bit)
            })
        })
    }
}

/// Which token rules could match in a window (no delimiters inside), as a bit set (see [`bit`]):
/// a byte scan for what each rule needs (`arn:`, `eyJ`, `@` between a local part and a domain,
/// 32+ token characters, 16+ capitals and digits, 12 digits in a row, three digit-dot-digit
/// joints, `::` or 7 colons or 6 colons with a dotted quad, `arn%`, `ip-` or `ec2-` before a
/// digit). Each condition is necessary for its
/// rule, so a rule left out could not have matched. A window is searched with a regex of only
/// the rules it needs, which keeps the lazy DFA small (the union of all rules made it build
/// states all the time).
pub fn window_rules(w: &[u8]) -> u16 {
    if w.len() < 4 {
        return 0;
    }
    // Run lengths are kept by multiplying with the class bit, not by branching on it (such a
    // branch is mispredicted at every word boundary); only the rare special bytes branch.
    let (mut token_run, mut digit_run, mut upper_run) = (0u32, 0u32, 0u32);
    let (mut token_max, mut digit_max, mut upper_max) = (0u32, 0u32, 0u32);
    let (mut colons, mut joints) = (0u32, 0u32);
    let mut rules = 0u16;
    for (i, &b) in w.iter().enumerate() {
        let class = BYTE_CLASS[b as usize];
        token_run = (token_run + 1) * u32::from(class & TOKEN != 0);
        digit_run = (digit_run + 1) * u32::from(class & DIGIT != 0);
        upper_run = (upper_run + 1) * u32::from(class & UPPER_OR_DIGIT != 0);
        token_max = token_max.max(token_run);
        digit_max = digit_max.max(digit_run);
        upper_max = upper_max.max(upper_run);
        if class & SPECIAL != 0 {
            match b {
                b'@' => {
                    // The address needs a local part and a domain around the `@`.
                    let local = i >= 1 && BYTE_CLASS[w[i - 1] as usize] & EMAIL_LOCAL != 0;
                    let domain = w
                        .get(i + 1)
                        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'-');
                    if local && domain {
                        rules |= bit(Rule::Email);
                    }
                }
                b'J' => {
                    if i >= 2 && &w[i - 2..i] == b"ey" {
                        rules |= bit(Rule::Jwt);
                    }
                }
                b':' => {
                    colons += 1;
                    if i >= 1 && w[i - 1] == b':' {
                        rules |= bit(Rule::Ipv6);
                    }
                    if i >= 3 && &w[i - 3..i] == b"arn" {
                        rules |= bit(Rule::Arn);
                    }
                }
                _ => {
                    // '.' between digits
                    let between_digits = i >= 1
                        && w[i - 1].is_ascii_digit()
                        && w.get(i + 1).is_some_and(u8::is_ascii_digit);
                    joints += u32::from(between_digits);
                }
            }
        }
    }
    if token_max >= 32 {
        rules |= bit(Rule::GitHubToken) | bit(Rule::Token) | bit(Rule::Uuid) | bit(Rule::Jwt);
    }
    if upper_max >= 16 {
        rules |= bit(Rule::AccessKey);
    }
    // 12 or more: a JSON `\\u0026` before an id adds digits to its run.
    if digit_max >= 12 {
        rules |= bit(Rule::Account);
    }
    if joints >= 3 {
        rules |= bit(Rule::Ipv4);
    }
    rules |= prefixed_rules(w);
    if colons >= 7 || (colons >= 6 && joints >= 3) {
        rules |= bit(Rule::Ipv6);
    }
    rules
}

/// Rules whose matches start with a literal that the byte classes do not see: an encoded ARN
/// (`arn%`) and a host name carrying an address (`ip-10-…`, `ec2-203-…`).
fn prefixed_rules(w: &[u8]) -> u16 {
    let mut rules = 0;
    if memchr::memmem::find(w, b"arn%").is_some() {
        rules |= bit(Rule::EncodedArn);
    }
    let host = [&b"ip-"[..], b"IP-", b"ec2-", b"EC2-"].iter().any(|p| {
        memchr::memmem::find_iter(w, p).any(|i| w.get(i + p.len()).is_some_and(u8::is_ascii_digit))
    });
    if host {
        rules |= bit(Rule::HostIpv4);
    }
    rules
}

const TOKEN: u8 = 1;
const DIGIT: u8 = 2;
const UPPER_OR_DIGIT: u8 = 4;
const SPECIAL: u8 = 8;
const DELIMITER: u8 = 16;
const EMAIL_LOCAL: u8 = 32;

/// Bytes no token rule's match can contain (ASCII whitespace, quotes, backquote, backslash): the
/// token rules run over the windows between them, so a JSON line splits into its strings.
pub fn is_delimiter(b: u8) -> bool {
    BYTE_CLASS[b as usize] & DELIMITER != 0
}

static BYTE_CLASS: [u8; 256] = byte_classes();

const fn byte_classes() -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        let mut class = 0;
        if is_token_byte(c) {
            class |= TOKEN;
        }
        if c.is_ascii_digit() {
            class |= DIGIT | UPPER_OR_DIGIT;
        }
        if c.is_ascii_uppercase() {
            class |= UPPER_OR_DIGIT;
        }
        if c == b'@' || c == b':' || c == b'.' || c == b'J' {
            class |= SPECIAL;
        }
        if c.is_ascii_whitespace() || c == b'"' || c == b'\'' || c == b'`' || c == b'\\' {
            class |= DELIMITER;
        }
        if c.is_ascii_alphanumeric()
            || c == b'.'
            || c == b'_'
            || c == b'%'
            || c == b'+'
            || c == b'-'
        {
            class |= EMAIL_LOCAL;
        }
        t[b] = class;
        b += 1;
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn windows(text: &str) -> Vec<(&str, u16)> {
        windows_needing_rules(text.as_bytes())
            .into_iter()
            .map(|w| (&text[w.start..w.end], w.rules))
            .collect()
    }

    #[test]
    fn run_starts_marks_the_first_byte_of_each_long_enough_run() {
        assert_eq!(run_starts(0b111 << 5, 3), 1 << 5);
        assert_eq!(run_starts(0b11 << 5, 3), 0);
        assert_eq!(run_starts(0b1111 << 5, 3), 1 << 5);
        let across_blocks = ((1u128 << 12) - 1) << 58;
        assert_eq!(run_starts(across_blocks, 12), 1 << 58);
        assert_eq!(run_starts(u128::MAX >> 96, 32), 1);
    }

    #[test]
    fn a_json_log_line_needs_only_its_address_window() {
        let line = r#"{"@level":"info","ip":"10.0.0.1","@timestamp":"2024-12-02T09:00:00.039921Z","n":28}"#;
        assert_eq!(windows(line), vec![("10.0.0.1", bit(Rule::Ipv4))]);
    }

    #[test]
    fn spots_on_both_sides_of_a_block_boundary_are_found() {
        for offset in 50..70 {
            let pad = ".".repeat(offset);
            let token = "Zm9vYmFyQmF6UXV4MTIzNDU2Nzg5MHF3ZXJ0";
            let text = format!("{pad} {token} a::b ops@example.com 123456789012");
            let found = windows(&text);
            let texts: Vec<&str> = found.iter().map(|(w, _)| *w).collect();
            assert_eq!(
                texts,
                vec![token, "a::b", "ops@example.com", "123456789012"],
                "offset {offset}"
            );
        }
    }

    #[test]
    fn words_timestamps_and_addresses_need_no_rule() {
        for text in [
            "module.web_02.aws_subnet.this[28]: Creating...",
            "\"@message\":\"Still creating... [10s elapsed]\"",
            "2024-12-02T09:00:00.039921Z",
            "@level arn:",
        ] {
            assert_eq!(windows(text), vec![], "{text}");
        }
    }
}
