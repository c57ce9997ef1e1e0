//! STS names (`SourceIdentity`, `RoleSessionName`): 2–64 characters of `[\w+=,.@-]`.
//!
//! <https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html>. Pure.

/// Shortest and longest value STS accepts.
pub const MIN_LEN: usize = 2;
pub const MAX_LEN: usize = 64;

fn allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '=' | ',' | '.' | '@' | '-')
}

/// Maps `raw` into STS's alphabet: every other character becomes `-`, the result is cut to 64
/// characters and padded with `-` to 2. Empty input gives `tfgate`. The reserved prefix
/// `aws:` cannot survive (`:` is replaced).
pub fn sanitize_sts_name(raw: &str) -> String {
    if raw.is_empty() {
        return "tfgate".to_string();
    }
    let mut name: String = raw
        .chars()
        .map(|c| if allowed(c) { c } else { '-' })
        .take(MAX_LEN)
        .collect();
    while name.len() < MIN_LEN {
        name.push('-');
    }
    name
}

/// True when STS accepts `name` as it is.
pub fn is_valid_sts_name(name: &str) -> bool {
    (MIN_LEN..=MAX_LEN).contains(&name.len()) && name.chars().all(allowed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn sanitizes_to_the_sts_alphabet() {
        let long = "a".repeat(80);
        let cases = [
            ("octocat", "octocat"),
            ("dependabot[bot]", "dependabot-bot-"),
            ("user@example.com", "user@example.com"),
            ("a=b,c+d_e.f-g", "a=b,c+d_e.f-g"),
            ("aws:tfgate", "aws-tfgate"),
            ("pr 42/run#7", "pr-42-run-7"),
            ("한글", "--"),
            ("x", "x-"),
            ("", "tfgate"),
            (long.as_str(), &long[..64]),
        ];
        for (raw, want) in cases {
            let got = sanitize_sts_name(raw);
            assert_eq!(got, want, "{raw}");
            assert!(is_valid_sts_name(&got), "{got}");
        }
    }

    #[test]
    fn validity() {
        assert!(is_valid_sts_name("tfgate-run-42"));
        assert!(!is_valid_sts_name("a"));
        assert!(!is_valid_sts_name("a b"));
        assert!(!is_valid_sts_name(&"a".repeat(65)));
    }

    proptest! {
        #[test]
        fn any_input_becomes_valid(raw in ".{0,100}") {
            prop_assert!(is_valid_sts_name(&sanitize_sts_name(&raw)));
        }
    }
}
