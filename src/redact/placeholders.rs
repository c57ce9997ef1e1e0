//! Stable value → placeholder mapping for one comment or session.

use super::Kind;
use std::collections::HashMap;

/// foldhash with a per-process random seed: much faster than SipHash on short values, still
/// seeded so that planted values cannot aim at collisions.
type Map = HashMap<String, usize, foldhash::fast::RandomState>;

/// Hands out `<kind-n>` placeholders: the same (kind, value) always gets the same placeholder,
/// numbers count up per kind in order of first appearance (never in hash order).
#[derive(Debug, Clone, Default)]
pub struct Placeholders {
    /// Per kind: value → number.
    assigned: [Map; Kind::ALL.len()],
    /// (placeholder, value) in order of first appearance.
    order: Vec<(String, String)>,
}

impl Placeholders {
    pub fn new() -> Self {
        Self::default()
    }

    /// The placeholder for `value` of `kind`, assigning the next number on first sight.
    pub fn placeholder(&mut self, kind: Kind, value: &str) -> String {
        let mut s = String::new();
        self.push_placeholder(kind, value, &mut s);
        s
    }

    /// Appends the placeholder for `value` to `out` (no allocation when the value was seen).
    pub fn push_placeholder(&mut self, kind: Kind, value: &str, out: &mut String) {
        let known = &mut self.assigned[kind.index()];
        let n = match known.get(value) {
            Some(n) => *n,
            None => {
                let n = known.len() + 1;
                known.insert(value.to_string(), n);
                self.order
                    .push((format_placeholder(kind, n), value.to_string()));
                n
            }
        };
        out.push('<');
        out.push_str(kind.prefix());
        out.push('-');
        push_number(out, n);
        out.push('>');
    }

    /// Number of distinct values redacted so far.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// (placeholder, original value) pairs in order of first appearance. The values are raw:
    /// for the server-side, admin-only record, never for a PR.
    pub fn entries(&self) -> &[(String, String)] {
        &self.order
    }
}

fn push_number(out: &mut String, n: usize) {
    use std::fmt::Write;
    let _ = write!(out, "{n}");
}

fn format_placeholder(kind: Kind, n: usize) -> String {
    format!("<{}-{n}>", kind.prefix())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_value_same_placeholder_kinds_counted_separately() {
        let mut ph = Placeholders::new();
        assert_eq!(ph.placeholder(Kind::Ipv4, "10.0.0.1"), "<ipv4-1>");
        assert_eq!(
            ph.placeholder(Kind::Arn, "arn:aws:iam::1:role/x"),
            "<arn-1>"
        );
        assert_eq!(ph.placeholder(Kind::Ipv4, "10.0.0.2"), "<ipv4-2>");
        assert_eq!(ph.placeholder(Kind::Ipv4, "10.0.0.1"), "<ipv4-1>");
        assert_eq!(
            ph.placeholder(Kind::AccessKey, "AKIAIOSFODNN7EXAMPLE"),
            "<access-key-1>"
        );
        assert_eq!(ph.len(), 4);
        assert_eq!(
            ph.entries()[2],
            ("<ipv4-2>".to_string(), "10.0.0.2".to_string())
        );
    }

    #[test]
    fn numbering_follows_first_appearance_not_hashing() {
        let values: Vec<String> = (0..200).map(|i| format!("value-{i}")).collect();
        let mut ph = Placeholders::new();
        for (i, v) in values.iter().enumerate() {
            assert_eq!(
                ph.placeholder(Kind::Secret, v),
                format!("<secret-{}>", i + 1)
            );
        }
    }
}
