//! The Terraform flags a comment may pass after `--`: an allowlist, validated value by value.

use super::error::{echo, ParseError};
use super::TerraformArg;

/// Longest accepted resource address, in bytes.
const ADDRESS_MAX_LEN: usize = 1024;
/// Longest accepted `-lock-timeout`, in milliseconds (10 minutes).
const LOCK_TIMEOUT_MAX_MS: u64 = 10 * 60 * 1000;

/// Flags refused with a reason of their own (matched with one or two leading dashes).
const FORBIDDEN: [(&str, &str); 11] = [
    (
        "chdir",
        "tfgate runs Terraform in the project's directory; use `-d DIR`.",
    ),
    (
        "plugin-dir",
        "tfgate installs providers from its own mirror.",
    ),
    (
        "state",
        "tfgate uses the project's configured backend; state paths are not set from comments.",
    ),
    (
        "state-out",
        "tfgate uses the project's configured backend; state paths are not set from comments.",
    ),
    (
        "backup",
        "tfgate uses the project's configured backend; state paths are not set from comments.",
    ),
    (
        "var-file",
        "variables come from the repository and tfgate's configuration, not from comments.",
    ),
    (
        "var",
        "variables come from the repository and tfgate's configuration, not from comments.",
    ),
    (
        "lock",
        "tfgate always locks the state; use `-lock-timeout=` to wait longer.",
    ),
    ("out", "tfgate saves the plan itself."),
    (
        "auto-approve",
        "`/apply` always applies the plan saved by `/plan`.",
    ),
    ("destroy", "destroying from a comment is not supported."),
];

/// Allowlisted flag names, for the "put it after `--`" hint.
const ALLOWED: [&str; 4] = ["target", "replace", "refresh", "lock-timeout"];

/// One token after `--`.
pub(super) fn parse_terraform_arg(token: &str) -> Result<TerraformArg, ParseError> {
    let Some(flag) = split_flag(token) else {
        return Err(ParseError::UnsupportedTerraformFlag { flag: echo(token) });
    };
    if let Some(error) = forbidden(&flag) {
        return Err(error);
    }
    if flag.dashes != 1 {
        return Err(ParseError::UnsupportedTerraformFlag {
            flag: echo(flag.written),
        });
    }
    match (flag.name, flag.value) {
        ("target", Some(value)) => {
            parse_address(value, Target::ResourceOrModule).map(TerraformArg::Target)
        }
        ("replace", Some(value)) => {
            parse_address(value, Target::Resource).map(TerraformArg::Replace)
        }
        ("target", None) => Err(ParseError::TerraformValueNeedsEquals {
            flag: "-target",
            example: "aws_s3_bucket.logs",
        }),
        ("replace", None) => Err(ParseError::TerraformValueNeedsEquals {
            flag: "-replace",
            example: "aws_s3_bucket.logs",
        }),
        ("refresh", Some("false")) => Ok(TerraformArg::RefreshFalse),
        ("lock-timeout", Some(value)) => parse_lock_timeout(value).map(TerraformArg::LockTimeout),
        ("lock-timeout", None) => Err(ParseError::TerraformValueNeedsEquals {
            flag: "-lock-timeout",
            example: "5m",
        }),
        ("refresh", _) => Err(ParseError::UnsupportedTerraformFlag { flag: echo(token) }),
        _ => Err(ParseError::UnsupportedTerraformFlag {
            flag: echo(flag.written),
        }),
    }
}

/// The error for a Terraform flag written before `--`, or `None` if `token` is not one.
pub(super) fn misplaced_terraform_flag(
    token: &str,
    command: super::CommandKind,
) -> Option<ParseError> {
    let flag = split_flag(token)?;
    if let Some(error) = forbidden(&flag) {
        return Some(error);
    }
    ALLOWED
        .contains(&flag.name)
        .then(|| ParseError::TerraformFlagBeforeSeparator {
            command,
            flag: echo(token),
        })
}

/// A `-name[=value]` token split up; `written` is the name with its dashes.
struct Flag<'a> {
    written: &'a str,
    dashes: usize,
    name: &'a str,
    value: Option<&'a str>,
}

fn split_flag(token: &str) -> Option<Flag<'_>> {
    let (written, value) = match token.split_once('=') {
        Some((written, value)) => (written, Some(value)),
        None => (token, None),
    };
    let name = written.trim_start_matches('-');
    let dashes = written.len() - name.len();
    (dashes > 0 && !name.is_empty()).then_some(Flag {
        written,
        dashes,
        name,
        value,
    })
}

fn forbidden(flag: &Flag<'_>) -> Option<ParseError> {
    if flag.dashes > 2 {
        return None;
    }
    FORBIDDEN
        .iter()
        .find(|(name, _)| *name == flag.name)
        .map(|(_, reason)| ParseError::ForbiddenTerraformFlag {
            flag: echo(flag.written),
            reason,
        })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    /// `-replace`: a resource (instance).
    Resource,
    /// `-target`: a resource or a module call.
    ResourceOrModule,
}

/// Validates a Terraform address:
/// `(module.NAME[INDEX].)* ( module.NAME[INDEX] | [data.]TYPE.NAME[INDEX] )`
/// where NAME/TYPE are identifiers and INDEX is `[123]` or `["key"]` (key without `"`, `\`).
fn parse_address(value: &str, target: Target) -> Result<String, ParseError> {
    let refuse = || match target {
        Target::Resource => ParseError::InvalidAddress {
            flag: "-replace",
            what: "resource",
            value: echo(value),
            example: "aws_s3_bucket.logs",
        },
        Target::ResourceOrModule => ParseError::InvalidAddress {
            flag: "-target",
            what: "resource or module",
            value: echo(value),
            example: "module.net.aws_subnet.a[\"x\"]",
        },
    };
    if value.len() > ADDRESS_MAX_LEN {
        return Err(refuse());
    }
    match address_kind(value) {
        Some(AddressKind::Resource) => Ok(value.to_string()),
        Some(AddressKind::Module) if target == Target::ResourceOrModule => Ok(value.to_string()),
        _ => Err(refuse()),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AddressKind {
    Resource,
    Module,
}

fn address_kind(value: &str) -> Option<AddressKind> {
    let mut rest = value;
    loop {
        let (first, after) = identifier(rest)?;
        if first == "module" {
            let after = after.strip_prefix('.')?;
            let (_, after) = identifier(after)?;
            let after = index(after)?;
            if after.is_empty() {
                return Some(AddressKind::Module);
            }
            rest = after.strip_prefix('.')?;
            continue;
        }
        let after = if first == "data" {
            identifier(after.strip_prefix('.')?)?.1
        } else {
            after
        };
        let (_, after) = identifier(after.strip_prefix('.')?)?;
        return index(after)?.is_empty().then_some(AddressKind::Resource);
    }
}

/// `[A-Za-z_][A-Za-z0-9_-]*` at the start of `text`: (identifier, rest).
fn identifier(text: &str) -> Option<(&str, &str)> {
    let first = text.chars().next()?;
    if !(first.is_ascii_alphabetic() || first == '_') {
        return None;
    }
    let end = text
        .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_' || ch == '-'))
        .unwrap_or(text.len());
    Some(text.split_at(end))
}

/// An optional `[digits]` or `["key"]` at the start of `text`; returns the rest.
fn index(text: &str) -> Option<&str> {
    let Some(inner) = text.strip_prefix('[') else {
        return Some(text);
    };
    if let Some(key) = inner.strip_prefix('"') {
        let close = key.find('"')?;
        let valid_key = key[..close]
            .chars()
            .all(|ch| ch != '\\' && !ch.is_control());
        if !valid_key {
            return None;
        }
        return key[close + 1..].strip_prefix(']');
    }
    let digits = inner
        .find(|ch: char| !ch.is_ascii_digit())
        .unwrap_or(inner.len());
    (1..=10)
        .contains(&digits)
        .then(|| inner[digits..].strip_prefix(']'))
        .flatten()
}

/// A Go-style duration made of `<digits><unit>` parts (units `ms`, `s`, `m`, `h`), at most 10m.
fn parse_lock_timeout(value: &str) -> Result<String, ParseError> {
    let refuse = || ParseError::InvalidLockTimeout { value: echo(value) };
    let mut rest = value;
    let mut total_ms: u64 = 0;
    if rest.is_empty() {
        return Err(refuse());
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|ch: char| !ch.is_ascii_digit())
            .unwrap_or(rest.len());
        if !(1..=6).contains(&digits) {
            return Err(refuse());
        }
        let amount: u64 = rest[..digits].parse().map_err(|_| refuse())?;
        let after = &rest[digits..];
        let (unit_ms, unit_len) = if after.starts_with("ms") {
            (1, 2)
        } else if after.starts_with('s') {
            (1000, 1)
        } else if after.starts_with('m') {
            (60 * 1000, 1)
        } else if after.starts_with('h') {
            (60 * 60 * 1000, 1)
        } else {
            return Err(refuse());
        };
        total_ms += amount * unit_ms;
        rest = &after[unit_len..];
    }
    if total_ms > LOCK_TIMEOUT_MAX_MS {
        return Err(refuse());
    }
    Ok(value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_accepted() {
        let resources = [
            "aws_s3_bucket.b",
            "aws_s3_bucket.b[0]",
            r#"aws_s3_bucket.b["k"]"#,
            r#"aws_s3_bucket.b["a.b/c d"]"#,
            r#"aws_s3_bucket.b[""]"#,
            "data.aws_iam_policy_document.p",
            "module.net.aws_subnet.a",
            r#"module.net["eu"].module.sub[2].aws_subnet.a["x"]"#,
            "_x.y-z",
        ];
        for address in resources {
            assert_eq!(
                address_kind(address),
                Some(AddressKind::Resource),
                "{address}"
            );
        }
        for address in ["module.net", "module.net[0]", r#"module.a.module.b["k"]"#] {
            assert_eq!(
                address_kind(address),
                Some(AddressKind::Module),
                "{address}"
            );
        }
    }

    #[test]
    fn addresses_refused() {
        let bad = [
            "",
            "aws_s3_bucket",
            "aws_s3_bucket.",
            ".b",
            "1x.y",
            "aws_s3_bucket.b.c",
            r#""aws_s3_bucket.b""#,
            r#"aws_s3_bucket.b["k]"#,
            r#"aws_s3_bucket.b["k"]x"#,
            r#"aws_s3_bucket.b["k\"]"#,
            "aws_s3_bucket.b[k]",
            "aws_s3_bucket.b[]",
            "aws_s3_bucket.b[-1]",
            "aws_s3_bucket.b[*]",
            "aws_s3_bucket.b[12345678901]",
            "module",
            "module.",
            "module.a.",
            "data.x",
            "aws_x.y/../z",
        ];
        for address in bad {
            assert_eq!(address_kind(address), None, "{address}");
        }
    }

    #[test]
    fn replace_needs_a_resource() {
        assert!(parse_address("module.net", Target::Resource).is_err());
        assert!(parse_address("module.net", Target::ResourceOrModule).is_ok());
    }

    #[test]
    fn lock_timeouts() {
        for good in [
            "0s", "30s", "5m", "10m", "1m30s", "500ms", "599s", "600s", "0h",
        ] {
            assert_eq!(parse_lock_timeout(good), Ok(good.to_string()), "{good}");
        }
        for bad in [
            "", "5", "11m", "601s", "1h", "5 m", "m", "-5s", "1.5m", "1000000s", "5min",
        ] {
            assert!(parse_lock_timeout(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn cli_args_round_trip() {
        for token in [
            "-target=aws_s3_bucket.b",
            r#"-replace=aws_s3_bucket.b["k"]"#,
            "-refresh=false",
            "-lock-timeout=30s",
        ] {
            assert_eq!(parse_terraform_arg(token).unwrap().to_cli_arg(), token);
        }
    }
}
