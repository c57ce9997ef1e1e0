//! Terraform's version numbers and `required_version` constraints
//! (`>= 1.5, < 2.0`, `~> 1.9.0`, `!= 1.6.2`, `1.9.8`).
//!
//! Ordering is semantic versioning's: numbers part by part, and a pre-release
//! (`1.10.0-beta1`) sorts before its release. A missing part is 0 (`1.5` is `1.5.0`).

use std::cmp::Ordering;
use std::fmt;

/// A release version: `1.9.8`, `1.10.0-beta1`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    parts: [u64; 3],
    /// The pre-release label (`beta1`), empty for a release.
    pre: String,
}

impl Version {
    /// `MAJOR.MINOR.PATCH` with an optional `-label`; leading `v` accepted.
    pub fn parse(text: &str) -> Option<Version> {
        let (v, parts) = Self::parse_partial(text)?;
        (parts == 3).then_some(v)
    }

    /// One to three numeric parts (for constraints), and how many were written.
    fn parse_partial(text: &str) -> Option<(Version, usize)> {
        let text = text.trim().strip_prefix('v').unwrap_or(text.trim());
        let (numbers, pre) = match text.split_once('-') {
            Some((n, p)) => (n, p),
            None => (text, ""),
        };
        let pre_ok = pre.chars().all(|c| c.is_ascii_alphanumeric() || c == '.');
        if !pre_ok || (text.contains('-') && pre.is_empty()) {
            return None;
        }
        let mut parts = [0u64; 3];
        let mut count = 0;
        for piece in numbers.split('.') {
            if count == 3 || piece.is_empty() || !piece.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            parts[count] = piece.parse().ok()?;
            count += 1;
        }
        Some((
            Version {
                parts,
                pre: pre.to_string(),
            },
            count,
        ))
    }

    pub fn is_prerelease(&self) -> bool {
        !self.pre.is_empty()
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        self.parts.cmp(&other.parts).then_with(|| {
            match (self.pre.is_empty(), other.pre.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => self.pre.cmp(&other.pre),
            }
        })
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c] = self.parts;
        write!(f, "{a}.{b}.{c}")?;
        if !self.pre.is_empty() {
            write!(f, "-{}", self.pre)?;
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
    /// `~>`: this version or a later one of the last written part's parent.
    Pessimistic,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Term {
    op: Op,
    version: Version,
    written_parts: usize,
}

/// A `required_version` constraint: every comma-separated term must hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Constraint {
    text: String,
    terms: Vec<Term>,
}

impl Constraint {
    pub fn parse(text: &str) -> Result<Constraint, String> {
        let mut terms = Vec::new();
        for raw in text.split(',') {
            let raw = raw.trim();
            let (op, rest) = split_op(raw);
            let Some((version, written_parts)) = Version::parse_partial(rest) else {
                return Err(format!("`{raw}` is not a version constraint"));
            };
            terms.push(Term {
                op,
                version,
                written_parts,
            });
        }
        Ok(Constraint {
            text: text.trim().to_string(),
            terms,
        })
    }

    pub fn allows(&self, v: &Version) -> bool {
        self.terms.iter().all(|t| t.allows(v))
    }

    pub fn text(&self) -> &str {
        &self.text
    }
}

fn split_op(raw: &str) -> (Op, &str) {
    const OPS: [(&str, Op); 7] = [
        ("~>", Op::Pessimistic),
        (">=", Op::Ge),
        ("<=", Op::Le),
        ("!=", Op::Ne),
        (">", Op::Gt),
        ("<", Op::Lt),
        ("=", Op::Eq),
    ];
    for (text, op) in OPS {
        if let Some(rest) = raw.strip_prefix(text) {
            return (op, rest.trim_start());
        }
    }
    (Op::Eq, raw)
}

impl Term {
    fn allows(&self, v: &Version) -> bool {
        let c = &self.version;
        match self.op {
            Op::Eq => v == c,
            Op::Ne => v != c,
            Op::Gt => v > c,
            Op::Ge => v >= c,
            Op::Lt => v < c,
            Op::Le => v <= c,
            Op::Pessimistic => v >= c && v < &self.pessimistic_ceiling(),
        }
    }

    /// `~> 1.2` allows up to (not including) 2.0; `~> 1.2.3` up to 1.3.0; `~> 1` up to 2.0.
    fn pessimistic_ceiling(&self) -> Version {
        let mut parts = self.version.parts;
        let bump = self.written_parts.saturating_sub(2).min(1);
        parts[bump] += 1;
        for p in parts.iter_mut().skip(bump + 1) {
            *p = 0;
        }
        Version {
            parts,
            pre: String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        Version::parse(s).unwrap()
    }

    #[test]
    fn versions_parse_and_order() {
        assert_eq!(v("1.9.8").to_string(), "1.9.8");
        assert_eq!(v("v1.10.0-beta1").to_string(), "1.10.0-beta1");
        assert!(v("1.10.0") > v("1.9.8"));
        assert!(v("1.10.0-beta1") < v("1.10.0"));
        assert!(v("1.10.0-alpha1") < v("1.10.0-beta1"));
        for bad in [
            "1.9",
            "1.9.8.1",
            "",
            "1..2",
            "1.a.3",
            "1.2.3-",
            "1.2.3-be ta",
            " ",
        ] {
            assert!(Version::parse(bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn constraints_table() {
        let cases = [
            (">= 1.5", "1.5.0", true),
            (">= 1.5", "1.4.9", false),
            (">= 1.5, < 2.0", "1.9.8", true),
            (">= 1.5, < 2.0", "2.0.0", false),
            ("~> 1.9.0", "1.9.8", true),
            ("~> 1.9.0", "1.10.0", false),
            ("~> 1.9", "1.10.0", true),
            ("~> 1.9", "2.0.0", false),
            ("~> 1", "1.99.0", true),
            ("~> 1", "2.0.0", false),
            ("1.9.8", "1.9.8", true),
            ("= 1.9.8", "1.9.7", false),
            ("!= 1.6.2", "1.6.2", false),
            ("!= 1.6.2", "1.6.3", true),
            ("> 1.0.3", "1.0.3", false),
            ("<= 1.0.3", "1.0.3", true),
            ("<1.0", "0.15.5", true),
            (">= 1.10.0", "1.10.0-beta1", false),
        ];
        for (constraint, version, allowed) in cases {
            let c = Constraint::parse(constraint).unwrap();
            assert_eq!(c.allows(&v(version)), allowed, "{constraint} vs {version}");
        }
    }

    #[test]
    fn bad_constraints_are_named() {
        for bad in [">= one", "~>", "1.2.3.4", ">= 1.5,"] {
            let e = Constraint::parse(bad).unwrap_err();
            assert!(e.contains("is not a version constraint"), "{bad}: {e}");
        }
    }
}
