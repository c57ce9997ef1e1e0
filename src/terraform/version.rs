//! `major.minor` format versions (UI stream `ui`, plan `format_version`) and the version line.

use serde::Serialize;

/// A `major.minor[.patch]` format version; only major and minor matter for compatibility.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct FormatVersion {
    pub major: u32,
    pub minor: u32,
}

impl FormatVersion {
    /// Parses `"1.2"`, `"0.1.0"`; anything else (empty, letters, one number) is `None`.
    pub fn parse(text: &str) -> Option<FormatVersion> {
        let mut parts = text.trim().split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        for rest in parts {
            rest.parse::<u32>().ok()?;
        }
        Some(FormatVersion { major, minor })
    }
}

impl std::fmt::Display for FormatVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// Which program wrote a UI stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Program {
    Terraform,
    OpenTofu,
}

/// The stream's `version` line: program, its version and the UI format version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VersionInfo {
    pub program: Program,
    /// `terraform` (or `tofu`) key, e.g. `"1.3.7"`; empty when absent.
    pub program_version: String,
    pub ui: FormatVersion,
}

/// Shortens an untrusted version string for an error message.
pub(crate) fn clip_for_message(text: &str) -> String {
    const MAX: usize = 24;
    let clean: String = text
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'))
        .take(MAX)
        .collect();
    if clean.is_empty() {
        "(empty)".to_string()
    } else {
        clean
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_versions_in_the_wild() {
        let cases = [
            ("0.1.0", Some((0, 1))),
            ("1.0", Some((1, 0))),
            ("1.2", Some((1, 2))),
            ("2.0", Some((2, 0))),
            ("10.11.12", Some((10, 11))),
            ("1", None),
            ("", None),
            ("v1.0", None),
            ("1.x", None),
            ("1.0.beta", None),
        ];
        for (text, want) in cases {
            let got = FormatVersion::parse(text).map(|v| (v.major, v.minor));
            assert_eq!(got, want, "{text:?}");
        }
    }

    #[test]
    fn orders_by_major_then_minor() {
        let a = FormatVersion::parse("1.10").unwrap();
        let b = FormatVersion::parse("1.9").unwrap();
        assert!(a > b);
        assert_eq!(a.to_string(), "1.10");
    }

    #[test]
    fn clips_untrusted_text() {
        assert_eq!(clip_for_message("2.0"), "2.0");
        assert_eq!(clip_for_message("<arn:aws:iam::1>"), "arnawsiam1");
        assert_eq!(clip_for_message(""), "(empty)");
        assert_eq!(clip_for_message(&"9".repeat(100)).len(), 24);
    }
}
