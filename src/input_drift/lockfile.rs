//! `tfgate.inputs.lock`: the committed fingerprint of each shared input, so that an input
//! change shows up in a pull request's diff.
//!
//! Format (line based, diff friendly): `#` comment lines and blank lines are ignored; every
//! other line is `NAME = <64 hex digits>`. Names are `[A-Za-z_][A-Za-z0-9_]*`, each at most
//! once. [`render_lockfile`] writes a fixed header and the entries sorted by name.

use std::collections::BTreeMap;

use super::fingerprint::Fingerprint;

/// Repository path of the lock file, relative to the repository root.
pub const LOCKFILE_NAME: &str = "tfgate.inputs.lock";

const HEADER: &str = "\
# tfgate.inputs.lock: keyed fingerprints of shared inputs (never their values).
# A change here makes a shared input change visible in review.
# Regenerate with `tfgate inputs fingerprint` (or comment /inputs on a pull request).
";

/// Parsed lock file: input name → committed fingerprint.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InputsLock {
    pub entries: BTreeMap<String, Fingerprint>,
}

impl InputsLock {
    pub fn get(&self, name: &str) -> Option<&Fingerprint> {
        self.entries.get(name)
    }
}

/// A line of the lock file that cannot be read. `line` is 1-based.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{LOCKFILE_NAME} line {line}: {message}")]
pub struct LockfileError {
    pub line: usize,
    pub message: String,
}

pub fn parse_lockfile(text: &str) -> Result<InputsLock, LockfileError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut entries = BTreeMap::new();
    for (index, raw_line) in text.lines().enumerate() {
        let line = index + 1;
        let trimmed = raw_line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let error = |message: String| LockfileError { line, message };
        let (name, value) = trimmed
            .split_once('=')
            .ok_or_else(|| error("expected `NAME = fingerprint`".to_string()))?;
        let (name, value) = (name.trim(), value.trim());
        if !is_input_name(name) {
            return Err(error(
                "an input name is letters, digits and `_`, not starting with a digit".into(),
            ));
        }
        let fingerprint = Fingerprint::from_hex(value)
            .map_err(|e| error(format!("fingerprint of {name}: {e}")))?;
        if entries.insert(name.to_string(), fingerprint).is_some() {
            return Err(error(format!("{name} appears more than once")));
        }
    }
    Ok(InputsLock { entries })
}

/// The lock file text for these fingerprints: header, then `NAME = hex` sorted by name.
pub fn render_lockfile(fingerprints: &BTreeMap<String, Fingerprint>) -> String {
    let mut out = String::from(HEADER);
    for (name, fingerprint) in fingerprints {
        out.push_str(name);
        out.push_str(" = ");
        out.push_str(fingerprint.as_hex());
        out.push('\n');
    }
    out
}

pub fn is_input_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::super::fingerprint::fingerprint;
    use super::*;
    use proptest::prelude::*;

    fn fp(name: &str, value: &str) -> Fingerprint {
        fingerprint(b"k", name, value)
    }

    fn sample() -> BTreeMap<String, Fingerprint> {
        [("ZETA", "z"), ("ADMIN_CIDRS", "[1]"), ("db_password", "x")]
            .into_iter()
            .map(|(n, v)| (n.to_string(), fp(n, v)))
            .collect()
    }

    #[test]
    fn round_trip_and_sorted() {
        let text = render_lockfile(&sample());
        let names: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.split(' ').next().unwrap())
            .collect();
        assert_eq!(names, vec!["ADMIN_CIDRS", "ZETA", "db_password"]);
        assert_eq!(parse_lockfile(&text).unwrap().entries, sample());
        assert!(!text.contains("[1]"));
    }

    #[test]
    fn snapshot_rendered_lockfile() {
        let mut map = BTreeMap::new();
        map.insert(
            "ADMIN_CIDRS".to_string(),
            Fingerprint::from_hex(&"3f2a".repeat(16)).unwrap(),
        );
        insta::assert_snapshot!(render_lockfile(&map));
    }

    #[test]
    fn tolerates_comments_blank_lines_crlf_bom_and_spacing() {
        let hex = fp("A", "1").as_hex().to_string();
        let text = format!("\u{feff}# c\r\n\r\n  A   =   {}  \r\n", hex.to_uppercase());
        let lock = parse_lockfile(&text).unwrap();
        assert_eq!(lock.get("A"), Some(&fp("A", "1")));
        assert_eq!(parse_lockfile("").unwrap(), InputsLock::default());
    }

    #[test]
    fn rejects_bad_lines_with_line_numbers() {
        let hex = fp("A", "1").as_hex().to_string();
        let cases: Vec<(String, usize, &str)> = vec![
            (
                format!("# ok\nA {hex}\n"),
                2,
                "expected `NAME = fingerprint`",
            ),
            (format!("1A = {hex}\n"), 1, "an input name is"),
            (format!("A-B = {hex}\n"), 1, "an input name is"),
            (
                format!("A = {hex}\nB = {hex}\nA = {hex}\n"),
                3,
                "A appears more than once",
            ),
            (
                format!("A = {}\n", &hex[..60]),
                1,
                "fingerprint of A: a fingerprint is 64",
            ),
            (format!("A = {}zz\n", &hex[..62]), 1, "hex digits"),
            ("A = \n".to_string(), 1, "fingerprint of A"),
        ];
        for (text, line, message) in cases {
            let err = parse_lockfile(&text).unwrap_err();
            assert_eq!(err.line, line, "{text}");
            assert!(err.message.contains(message), "{text}: {}", err.message);
            assert!(err
                .to_string()
                .starts_with(&format!("{LOCKFILE_NAME} line {line}: ")));
        }
    }

    #[test]
    fn a_tampered_digit_no_longer_matches() {
        let live = fp("ADMIN_CIDRS", "[\"10.0.0.1/32\"]");
        let mut map = BTreeMap::new();
        map.insert("ADMIN_CIDRS".to_string(), live.clone());
        let text = render_lockfile(&map);
        let last_hex_digit = text.trim_end().len() - 1;
        let mut tampered = text.clone();
        let replacement = if tampered.as_bytes()[last_hex_digit] == b'0' {
            "1"
        } else {
            "0"
        };
        tampered.replace_range(last_hex_digit..=last_hex_digit, replacement);
        let lock = parse_lockfile(&tampered).unwrap();
        assert_ne!(lock.get("ADMIN_CIDRS"), Some(&live));
        assert_eq!(
            parse_lockfile(&text).unwrap().get("ADMIN_CIDRS"),
            Some(&live)
        );
    }

    proptest! {
        #[test]
        fn any_map_round_trips(entries in proptest::collection::btree_map("[A-Za-z_][A-Za-z0-9_]{0,12}", ".{0,20}", 0..8)) {
            let map: BTreeMap<String, Fingerprint> =
                entries.iter().map(|(n, v)| (n.clone(), fp(n, v))).collect();
            prop_assert_eq!(parse_lockfile(&render_lockfile(&map)).unwrap().entries, map);
        }
    }
}
