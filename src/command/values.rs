//! Validation of flag values: project and workspace names, directories, input names.

use super::error::{echo, DirProblem, ParseError};

const NAME_MAX_CHARS: usize = 64;
const DIR_MAX_CHARS: usize = 255;
const INPUT_NAME_MAX_CHARS: usize = 128;

/// A project or workspace name: `[A-Za-z0-9._-]{1,64}`, not starting with `-` (it would read as
/// a flag) and not made only of dots (`.`/`..` would be paths if a name ever reaches one).
pub(super) fn validate_name(what: &'static str, value: &str) -> Result<String, ParseError> {
    let allowed = |ch: char| ch.is_ascii_alphanumeric() || matches!(ch, '.' | '_' | '-');
    let valid = !value.is_empty()
        && value.len() <= NAME_MAX_CHARS
        && value.chars().all(allowed)
        && !value.starts_with('-')
        && !value.chars().all(|ch| ch == '.');
    if valid {
        Ok(value.to_string())
    } else {
        Err(ParseError::InvalidName {
            what,
            value: echo(value),
        })
    }
}

/// A directory relative to the repository root, normalised: `./` and empty components removed,
/// no trailing `/`; the root itself is `.`.
pub(super) fn validate_dir(value: &str) -> Result<String, ParseError> {
    let refuse = |problem| ParseError::InvalidDir {
        value: echo(value),
        problem,
    };
    if value.chars().any(char::is_control) {
        return Err(refuse(DirProblem::ControlCharacter));
    }
    if value.contains('\\') {
        return Err(refuse(DirProblem::Backslash));
    }
    if value.starts_with('/') || value.starts_with('~') || has_drive_prefix(value) {
        return Err(refuse(DirProblem::Absolute));
    }
    // Stricter than "no `..` component": no `..` anywhere, so no reading of the path can climb.
    if value.contains("..") {
        return Err(refuse(DirProblem::ParentComponent));
    }
    let allowed = |ch: char| {
        ch.is_alphanumeric() || matches!(ch, '/' | '.' | '_' | '-' | '+' | '@' | '=' | ',')
    };
    if !value.chars().all(allowed) {
        return Err(refuse(DirProblem::Character));
    }
    if value.chars().count() > DIR_MAX_CHARS {
        return Err(refuse(DirProblem::TooLong));
    }
    let components: Vec<&str> = value
        .split('/')
        .filter(|component| !component.is_empty() && *component != ".")
        .collect();
    if components.is_empty() {
        Ok(".".to_string())
    } else {
        Ok(components.join("/"))
    }
}

/// `C:` style prefixes, absolute on Windows; refused so no tool ever reads them as absolute.
fn has_drive_prefix(value: &str) -> bool {
    let mut chars = value.chars();
    matches!((chars.next(), chars.next()), (Some(letter), Some(':')) if letter.is_ascii_alphabetic())
}

/// An input name for `--accept-input`: `[A-Za-z_][A-Za-z0-9_]*`, at most 128 characters
/// (secret and variable names, e.g. `ADMIN_CIDRS`).
pub(super) fn validate_input_name(value: &str) -> Result<String, ParseError> {
    let mut chars = value.chars();
    let valid = chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
        && value.len() <= INPUT_NAME_MAX_CHARS;
    if valid {
        Ok(value.to_string())
    } else {
        Err(ParseError::InvalidInputName { value: echo(value) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for good in ["net", "prod-eu.1", "a_b", "A", &"x".repeat(64), "v1..2"] {
            assert_eq!(validate_name("project", good), Ok(good.to_string()));
        }
        for bad in [
            "",
            "-p",
            ".",
            "..",
            "a/b",
            "a b",
            "ü",
            &"x".repeat(65),
            "a\"b",
        ] {
            assert!(validate_name("project", bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn dirs_are_normalised() {
        let cases = [
            ("infra/net", "infra/net"),
            ("./infra/net/", "infra/net"),
            ("infra//net", "infra/net"),
            ("infra/./net", "infra/net"),
            (".", "."),
            ("./", "."),
            ("./.", "."),
            ("envs/prod@eu", "envs/prod@eu"),
            (".terraform-modules/x", ".terraform-modules/x"),
        ];
        for (given, normalised) in cases {
            assert_eq!(validate_dir(given), Ok(normalised.to_string()), "{given}");
        }
    }

    #[test]
    fn dirs_refused() {
        let cases = [
            ("/etc", DirProblem::Absolute),
            ("//server/share", DirProblem::Absolute),
            ("~/x", DirProblem::Absolute),
            ("C:/x", DirProblem::Absolute),
            ("..", DirProblem::ParentComponent),
            ("../x", DirProblem::ParentComponent),
            ("a/../../b", DirProblem::ParentComponent),
            ("a/..", DirProblem::ParentComponent),
            ("a..b", DirProblem::ParentComponent),
            ("a\\b", DirProblem::Backslash),
            ("..\\x", DirProblem::Backslash),
            ("a\u{0}b", DirProblem::ControlCharacter),
            ("a\u{7f}", DirProblem::ControlCharacter),
            ("a*", DirProblem::Character),
            ("a\"b\"", DirProblem::Character),
            ("ab:c", DirProblem::Character),
        ];
        for (given, problem) in cases {
            assert_eq!(
                validate_dir(given),
                Err(ParseError::InvalidDir {
                    value: echo(given),
                    problem
                }),
                "{given:?}"
            );
        }
        assert_eq!(
            validate_dir(&"a".repeat(256)).unwrap_err(),
            ParseError::InvalidDir {
                value: echo(&"a".repeat(256)),
                problem: DirProblem::TooLong
            }
        );
    }

    #[test]
    fn input_names() {
        for good in ["ADMIN_CIDRS", "_X", "vpc_cidr", "A1"] {
            assert_eq!(validate_input_name(good), Ok(good.to_string()));
        }
        for bad in ["", "1A", "A-B", "A.B", "A B", &"A".repeat(129)] {
            assert!(validate_input_name(bad).is_err(), "{bad:?}");
        }
    }
}
