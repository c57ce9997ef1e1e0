//! Built-in patterns and the boundary checks applied to their matches.
//!
//! Two passes: rules that may span whitespace (known secrets, admin patterns, private keys,
//! encoded authorization messages) in one regex with literal prefixes; then the token rules, run
//! only over the windows that could hold a match (`super::windows`). Word
//! boundaries are checked on the match's neighbours in Rust (cheap, ASCII) instead of with
//! Unicode `\b`, which would slow the DFA.

use super::Kind;

/// How a rule's match is checked and what part of it is replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// A literal known secret value.
    KnownSecret,
    /// An admin-supplied pattern.
    Admin,
    PrivateKey,
    /// `Encoded authorization failure message: <blob>`: only the blob is replaced.
    EncodedMessage,
    /// `KEY=value` where the key ends in a secret's name (`db_password=`, `GITHUB_TOKEN=`,
    /// `?client_secret=`): only the value is replaced.
    SecretAssignment,
    Arn,
    /// A percent-encoded ARN (`arn%3Aaws%3Aiam%3A%3A…`, any case of the `%xx`), as in URLs.
    EncodedArn,
    GitHubToken,
    Jwt,
    AccessKey,
    Email,
    Uuid,
    /// IPv6 address, with an optional `/prefix`.
    Ipv6,
    /// IPv4 address, with an optional `/prefix`.
    Ipv4,
    /// An IPv4 address written with dashes in a host name (`ip-10-0-1-23.ec2.internal`,
    /// `ec2-203-0-113-25.compute-1.amazonaws.com`): only the address part is replaced.
    HostIpv4,
    Account,
    /// A long token: an AWS secret access key (40 base64 chars), or any long token mixing upper
    /// case, lower case and digits.
    Token,
}

const OCTET: &str = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";
const H16: &str = r"[0-9A-Fa-f]{1,4}";

fn ipv6() -> String {
    // RFC 4291 text forms: full (8 groups), 6 groups + IPv4, and "::"-compressed forms (written
    // as one greedy alternative so the longest form wins; group counts are not policed).
    let v4 = format!(r"{OCTET}(?:\.{OCTET}){{3}}");
    format!(
        r"(?:(?:{H16}:){{7}}{H16}|(?:{H16}:){{6}}{v4}|(?:{H16}(?::{H16}){{0,6}})?::(?:(?:{H16}:){{0,5}}{v4}|{H16}(?::{H16}){{0,6}})?)(?:/(?:12[0-8]|1[01][0-9]|[1-9]?[0-9]))?"
    )
}

/// Built-in rules that may span whitespace: searched in a first pass (literal prefixes, fast).
pub fn spanning() -> Vec<(Rule, String)> {
    vec![
        (
            Rule::PrivateKey,
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)".into(),
        ),
        (
            Rule::EncodedMessage,
            r"Encoded authorization failure message: [A-Za-z0-9_-]+".into(),
        ),
        (
            Rule::SecretAssignment,
            // Literal names (the end of the key), so the pass keeps its literal prefilter. The
            // value ends where a query parameter, quote, bracket or separator does.
            format!(
                r#"(?:{})="?[^\s&"'`<>;,|()\[\]{{}}\\]+"#,
                SECRET_KEY_NAMES.join("|")
            ),
        ),
    ]
}

/// Ends of key names whose `=` value is a secret, in the three cases keys are written in.
const SECRET_KEY_NAMES: [&str; 19] = [
    "password",
    "passwd",
    "secret",
    "token",
    "api_key",
    "apikey",
    "access_key",
    "private_key",
    "PASSWORD",
    "PASSWD",
    "SECRET",
    "TOKEN",
    "API_KEY",
    "APIKEY",
    "ACCESS_KEY",
    "PRIVATE_KEY",
    "Password",
    "Secret",
    "Token",
];

/// Where the value of a `KEY=value` token match starts: after its first `=` that is followed by
/// a value (base64 padding only ends a token, so an `=` inside one is an assignment).
pub fn assignment_value_start(m: &str) -> Option<usize> {
    let b = m.as_bytes();
    (1..b.len().saturating_sub(1))
        .find(|&i| b[i] == b'=' && b[i + 1] != b'=')
        .map(|i| i + 1)
}

/// Built-in rules whose matches never contain ASCII whitespace, quotes or backslashes, in
/// priority order. They run only over the windows between those bytes that could hold one (see
/// [`super::windows`]).
pub fn token_rules() -> Vec<(Rule, String)> {
    vec![
        (
            Rule::Arn,
            r#"arn:aws[a-z-]*:[a-zA-Z0-9-]*:[a-z0-9*-]*:[^:\s"'`\\]*:[^\s"'`\\<>,;)\]}|]+"#.into(),
        ),
        (
            Rule::EncodedArn,
            // `%253A`: encoded twice. The rest is what URL-encoded text is made of, up to `&`.
            r"arn%(?:25)?3[Aa]aws[A-Za-z0-9%._~*+=,@/:-]*".into(),
        ),
        (
            Rule::GitHubToken,
            // Minimum lengths only: [`extend`] takes the rest (bounded repetitions such as
            // `{36,255}` multiply the lazy DFA's states and kept it rebuilding them).
            r"(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{22})".into(),
        ),
        (
            Rule::Jwt,
            r"eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*".into(),
        ),
        (
            Rule::AccessKey,
            r"(?:AKIA|ASIA|AROA|AIDA|ANPA|ANVA|AGPA|AIPA|APKA|ABIA|ACCA|ASCA)[A-Z0-9]{12}".into(),
        ),
        (
            Rule::Email,
            r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,24}".into(),
        ),
        (
            Rule::Uuid,
            r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}".into(),
        ),
        (Rule::Ipv6, ipv6()),
        (
            Rule::Ipv4,
            format!(r"{OCTET}(?:\.{OCTET}){{3}}(?:/(?:3[0-2]|[12]?[0-9]))?"),
        ),
        (
            Rule::HostIpv4,
            format!(r"(?:ip|IP|ec2|EC2)-{OCTET}(?:-{OCTET}){{3}}"),
        ),
        (Rule::Account, r"[0-9]{12}".into()),
        (Rule::Token, r"[A-Za-z0-9/+=_-]{32}".into()),
    ]
}

/// The end of a token-rule match whose pattern gives only the minimum length (GitHub tokens,
/// access key ids, long tokens): extended greedily over the rule's characters, up to its maximum
/// length, never past `limit`. Other matches keep their end.
pub fn extend(text: &str, start: usize, end: usize, limit: usize) -> usize {
    let b = text.as_bytes();
    let m = &b[start..end];
    let (class, max_len): (fn(u8) -> bool, usize) = if m.starts_with(b"github_pat_") {
        (|c| c.is_ascii_alphanumeric() || c == b'_', 266)
    } else if m.len() == 40 && m.starts_with(b"gh") && m[3] == b'_' {
        (|c| c.is_ascii_alphanumeric(), 259)
    } else if m.len() == 16
        && ACCESS_KEY_PREFIXES
            .iter()
            .any(|p| m.starts_with(p.as_bytes()))
    {
        (|c| c.is_ascii_uppercase() || c.is_ascii_digit(), 128)
    } else if m.len() == 32 && m.iter().copied().all(is_token_byte) {
        (is_token_byte, usize::MAX)
    } else {
        return end;
    };
    let stop = limit.min(b.len()).min(start.saturating_add(max_len));
    let mut end = end;
    while end < stop && class(b[end]) {
        end += 1;
    }
    end
}

/// `[A-Za-z0-9/+=_-]`: what long tokens (and the long-token rule) are made of.
pub const fn is_token_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'/' | b'+' | b'=' | b'_' | b'-')
}

const ACCESS_KEY_PREFIXES: [&str; 12] = [
    "AKIA", "ASIA", "AROA", "AIDA", "ANPA", "ANVA", "AGPA", "AIPA", "APKA", "ABIA", "ACCA", "ASCA",
];

/// The bit of a token rule in a window's rule set (`super::windows::window_rules`): its index
/// in [`token_rules`].
pub fn bit(rule: Rule) -> u16 {
    let index = match rule {
        Rule::Arn => 0,
        Rule::EncodedArn => 1,
        Rule::GitHubToken => 2,
        Rule::Jwt => 3,
        Rule::AccessKey => 4,
        Rule::Email => 5,
        Rule::Uuid => 6,
        Rule::Ipv6 => 7,
        Rule::Ipv4 => 8,
        Rule::HostIpv4 => 9,
        Rule::Account => 10,
        Rule::Token => 11,
        _ => return 0,
    };
    1 << index
}

/// Which token rule produced a match, from its shape (exactly mirrors the alternation order, so
/// no capture groups are needed on the hot path).
pub fn token_rule_of(m: &str) -> Rule {
    let b = m.as_bytes();
    if m.starts_with("arn:aws") {
        return Rule::Arn;
    }
    if m.starts_with("arn%") {
        return Rule::EncodedArn;
    }
    let github_classic = b.len() >= 40
        && b.len() <= 259
        && m.starts_with("gh")
        && b"pousr".contains(&b[2])
        && b[3] == b'_'
        && b[4..].iter().all(u8::is_ascii_alphanumeric);
    let github_pat = m.starts_with("github_pat_")
        && (33..=266).contains(&b.len())
        && b[11..]
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'_');
    if github_classic || github_pat {
        return Rule::GitHubToken;
    }
    if m.starts_with("eyJ") && m.contains('.') {
        return Rule::Jwt;
    }
    if (16..=128).contains(&b.len())
        && ACCESS_KEY_PREFIXES.iter().any(|p| m.starts_with(p))
        && b[4..]
            .iter()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
    {
        return Rule::AccessKey;
    }
    if m.contains('@') {
        return Rule::Email;
    }
    if is_uuid(b) {
        return Rule::Uuid;
    }
    if m.contains(':') {
        return Rule::Ipv6;
    }
    if m.contains('.')
        && b.iter()
            .all(|c| c.is_ascii_digit() || *c == b'.' || *c == b'/')
    {
        return Rule::Ipv4;
    }
    if host_ipv4_prefix(m).is_some() {
        return Rule::HostIpv4;
    }
    if b.len() == 12 && b.iter().all(u8::is_ascii_digit) {
        return Rule::Account;
    }
    Rule::Token
}

/// The length of the `ip-` / `ec2-` prefix of a host name that carries an IPv4 address.
pub fn host_ipv4_prefix(m: &str) -> Option<usize> {
    ["ip-", "IP-", "ec2-", "EC2-"]
        .iter()
        .find(|p| m.starts_with(*p) && m.as_bytes().get(p.len()).is_some_and(u8::is_ascii_digit))
        .map(|p| p.len())
}

fn is_uuid(b: &[u8]) -> bool {
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

fn is_digit(b: Option<u8>) -> bool {
    b.is_some_and(|b| b.is_ascii_digit())
}

/// Exactly twelve digits, also glued to letters (`logs123456789012`); not part of a longer
/// number or of a decimal (`1.123456789012`, `123456789012.5`).
fn is_lone_twelve_digits(bytes: &[u8], start: usize, end: usize) -> bool {
    let before = byte_before(bytes, start);
    let decimal_before =
        before == Some(b'.') && start >= 2 && is_digit(byte_before(bytes, start - 1));
    let decimal_after = bytes.get(end) == Some(&b'.') && is_digit(bytes.get(end + 1).copied());
    !is_digit(before) && !is_digit(bytes.get(end).copied()) && !decimal_before && !decimal_after
}

fn is_alnum(b: Option<u8>) -> bool {
    b.is_some_and(|b| b.is_ascii_alphanumeric())
}

/// The byte before `start`, read as a boundary: the end of an escape sequence (`\n`, `\t`,
/// `\u003c` in JSON or Go-quoted text) counts as punctuation.
fn byte_before(bytes: &[u8], start: usize) -> Option<u8> {
    let b = *bytes.get(start.checked_sub(1)?)?;
    let letter_escape = start >= 2 && bytes[start - 2] == b'\\' && b"ntrbfv".contains(&b);
    let unicode_escape = start >= 6
        && bytes[start - 6] == b'\\'
        && bytes[start - 5] == b'u'
        && bytes[start - 4..start].iter().all(u8::is_ascii_hexdigit);
    Some(if letter_escape || unicode_escape {
        b' '
    } else {
        b
    })
}

/// How many bytes at `start` end an escape sequence begun just before it: 1 for the letter of
/// `\n` / `\t` …, 5 for the `u0026` of `\u0026`, else 0. A window starts after the backslash, so
/// a rule whose characters include letters and digits could match the escape's tail too.
pub fn escape_tail(bytes: &[u8], start: usize) -> usize {
    // Any run of backslashes counts, even one that JSON reads as escaped backslashes: in JSON
    // held inside a JSON string (a policy document in a plan, a message in the UI stream),
    // `\\t` is the inner text's tab. The caller keeps the match as written when no value
    // starts after the escape's letters, so a plain `\\f…` loses nothing.
    if start == 0 || bytes[start - 1] != b'\\' {
        return 0;
    }
    match bytes.get(start) {
        Some(b) if b"ntrbfv".contains(b) => 1,
        Some(b'u')
            if bytes
                .get(start + 1..start + 5)
                .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) =>
        {
            5
        }
        _ => 0,
    }
}

fn one_of(b: Option<u8>, set: &[u8]) -> bool {
    b.is_some_and(|b| set.contains(&b))
}

/// Checks a match's neighbours and shape; returns the span to replace (relative to the text),
/// or `None` when the match is not what the rule means.
pub fn accept(rule: Rule, text: &str, start: usize, end: usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let before = byte_before(bytes, start);
    let after = bytes.get(end).copied();
    let after2 = bytes.get(end + 1).copied();
    let digit_follows_dot = after == Some(b'.') && after2.is_some_and(|b| b.is_ascii_digit());
    let m = &text[start..end];
    match rule {
        Rule::KnownSecret | Rule::Admin | Rule::PrivateKey | Rule::GitHubToken | Rule::Jwt => {
            Some((start, end))
        }
        Rule::EncodedMessage => {
            let prefix = "Encoded authorization failure message: ".len();
            Some((start + prefix, end))
        }
        Rule::SecretAssignment => {
            let value = m.find('=')? + 1;
            let value = value + usize::from(m[value..].starts_with('"'));
            (value < m.len()).then_some((start + value, end))
        }
        Rule::Arn => {
            if is_alnum(before) || one_of(before, b"_-") {
                return None;
            }
            let trimmed = m.trim_end_matches(['.', ',', ':']);
            Some((start, start + trimmed.len()))
        }
        Rule::EncodedArn => {
            // No boundary before: an encoded ARN may follow another escape (`%3Darn%3A…`).
            let trimmed = m.trim_end_matches(['.', ',', ':']);
            Some((start, start + trimmed.len()))
        }
        Rule::HostIpv4 => {
            let prefix = host_ipv4_prefix(m)?;
            (!is_alnum(before) && !is_digit(after)).then_some((start + prefix, end))
        }
        Rule::AccessKey => (!is_alnum(before) && !is_alnum(after)).then_some((start, end)),
        Rule::Email => accept_email(text, start, end),
        Rule::Uuid => {
            (!is_alnum(before) && !is_alnum(after) && !one_of(before, b"-") && !one_of(after, b"-"))
                .then_some((start, end))
        }
        Rule::Ipv6 => {
            let groups = m.split(':').filter(|g| !g.is_empty()).count();
            // "2001:db8::1: error" ends the address; "1:2:3:4:5:6:7:8:9" does not.
            let more_groups_follow =
                after == Some(b':') && after2.is_some_and(|b| b.is_ascii_hexdigit() || b == b':');
            let ok = groups >= 2
                && !is_alnum(before)
                && !one_of(before, b":.")
                && !is_alnum(after)
                && !more_groups_follow
                && !digit_follows_dot;
            ok.then_some((start, end))
        }
        Rule::Ipv4 => {
            let ok = !is_alnum(before)
                && !one_of(before, b".")
                && !is_alnum(after)
                && !digit_follows_dot;
            ok.then_some((start, end))
        }
        Rule::Account => is_lone_twelve_digits(bytes, start, end).then_some((start, end)),
        Rule::Token => is_token_shaped(m).then_some((start, end)),
    }
}

fn accept_email(text: &str, start: usize, end: usize) -> Option<(usize, usize)> {
    // `\\nuser@example.com`: the escape's letter is not part of the address.
    let from = if start >= 1 && byte_before(text.as_bytes(), start + 1) == Some(b' ') {
        start + 1
    } else {
        start
    };
    let trimmed = text[from..end].trim_end_matches('.');
    (trimmed.contains('@') && !trimmed.starts_with('@')).then_some((from, from + trimmed.len()))
}

fn is_token_shaped(m: &str) -> bool {
    // With `/` it may be a path (`modules/NetworkStack2/…`): only base64 shapes count.
    let aws_secret_key = m.len() == 40 && (m.contains('/') || m.contains('+'));
    let base64_like = !m.contains('/') || aws_secret_key || m.ends_with('=') || m.contains('+');
    // 40 characters is an AWS secret access key's length; about one in a hundred such keys
    // has at most one digit, so at that length digits are not asked for.
    let min_digits = if m.len() == 40 { 0 } else { 2 };
    base64_like && mixes_classes(m, min_digits)
}

/// Upper case, lower case and digits all present, and enough distinct characters: the shape of
/// generated keys and tokens, not of words, hex digests or names.
fn mixes_classes(s: &str, min_digits: usize) -> bool {
    let b = s.as_bytes();
    let upper = b.iter().filter(|c| c.is_ascii_uppercase()).count();
    let lower = b.iter().filter(|c| c.is_ascii_lowercase()).count();
    let digit = b.iter().filter(|c| c.is_ascii_digit()).count();
    if upper < 2 || lower < 2 || digit < min_digits {
        return false;
    }
    let mut seen = [false; 128];
    for &c in b {
        seen[(c & 0x7f) as usize] = true;
    }
    seen.iter().filter(|s| **s).count() >= 16
}

/// The kind a rule's match is replaced as.
pub fn kind_of(rule: Rule, matched: &str) -> Kind {
    match rule {
        Rule::KnownSecret
        | Rule::SecretAssignment
        | Rule::PrivateKey
        | Rule::GitHubToken
        | Rule::Jwt
        | Rule::Token => Kind::Secret,
        Rule::Admin | Rule::EncodedMessage => Kind::Redacted,
        Rule::Arn | Rule::EncodedArn => Kind::Arn,
        Rule::AccessKey => Kind::AccessKey,
        Rule::Email => Kind::Email,
        Rule::Uuid => Kind::RequestId,
        Rule::Ipv6 if matched.contains('/') => Kind::Cidr,
        Rule::Ipv6 => Kind::Ipv6,
        Rule::Ipv4 if matched.contains('/') => Kind::Cidr,
        Rule::Ipv4 | Rule::HostIpv4 => Kind::Ipv4,
        Rule::Account => Kind::Account,
    }
}

/// The value a match is numbered by: an address written with dashes in a host name gets the
/// placeholder of its dotted form.
pub fn placeholder_value(rule: Rule, matched: &str) -> std::borrow::Cow<'_, str> {
    match rule {
        Rule::HostIpv4 => matched.replace('-', ".").into(),
        _ => matched.into(),
    }
}
