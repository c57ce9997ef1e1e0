//! Planting secrets in fuzzed text: which kinds, what they look like, where they go.
//!
//! The header decides everything, so a crash input replays exactly: byte 0 holds flags (bit 0:
//! also check `redact_json`), then four plants of 15 bytes each (`Plant::from_header`). Values
//! are drawn uniformly from each kind's real alphabet by a generator seeded from the plant's
//! bytes: the shapes real keys, tokens and addresses have, not hand-picked ones.

/// Bytes of the header before the fuzzed text.
pub const HEADER_LEN: usize = 64;
const PLANT_LEN: usize = 15;
const PLANTS: usize = 4;

/// Known secret values the redactor is configured with (sensitive outputs, shared inputs):
/// quotes, backslashes, newlines, non-ASCII, template sequences, the shortest length.
pub const KNOWN_SECRETS: [&str; 6] = [
    "hunter2-Tr0ub4dor&3",
    "p@ss\"w\\rd<!>",
    "línea\nsecreta",
    "4242",
    "${tmpl}%{x}secret",
    "s3cr3t/v4lue+==",
];

/// Bytes that end a value on both sides: whitespace, quotes, brackets and the JSON escapes a
/// log line carries. None of them can be part of any planted value.
const SEPARATORS: [&str; 18] = [
    " ", "\n", "\t", "\r\n", "\"", "'", "`", ",", ";", ")", "]", "}", "|", "\\n", "\\\"", "\\t",
    "\\u0026", "\\u003e",
];

/// Text with values planted in it, and the strings that must not survive redaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planted {
    pub text: String,
    pub must_go: Vec<String>,
}

/// Plants the header's four values into `text`.
pub fn plant_all(header: &[u8], text: &str) -> Planted {
    let mut plants: Vec<(usize, String, Vec<String>)> = header[1..1 + PLANTS * PLANT_LEN]
        .chunks_exact(PLANT_LEN)
        .map(|bytes| {
            let position = usize::from(u16::from_le_bytes([bytes[1], bytes[2]]));
            let before = SEPARATORS[usize::from(bytes[3]) % SEPARATORS.len()];
            let after = SEPARATORS[usize::from(bytes[4]) % SEPARATORS.len()];
            let mut seed = [0u8; 8];
            seed.copy_from_slice(&bytes[5..13]);
            let mut rng = SplitMix(u64::from_le_bytes(seed));
            let (value, must_go) = planted_value(bytes[0], &mut rng);
            let at = char_boundary_at(text, position % (text.len() + 1));
            (at, format!("{before}{value}{after}"), must_go)
        })
        .collect();
    plants.sort_by_key(|(at, _, _)| *at);
    let mut out = String::with_capacity(text.len() + 512);
    let mut copied = 0;
    let mut must_go = Vec::new();
    for (at, piece, gone) in plants {
        out.push_str(&text[copied..at]);
        out.push_str(&piece);
        copied = at;
        must_go.extend(gone);
    }
    out.push_str(&text[copied..]);
    Planted { text: out, must_go }
}

fn char_boundary_at(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// (text to plant, strings that must be gone afterwards).
fn planted_value(kind: u8, rng: &mut SplitMix) -> (String, Vec<String>) {
    let one = |v: String| (v.clone(), vec![v]);
    match kind % 17 {
        0 => arn(rng),
        1 => one(digits(rng, 12)),
        2 => one(ipv4(rng)),
        3 => one(ipv6(rng)),
        4 => one(access_key(rng)),
        5 => one(rng.string(40, BASE64)),
        6 => one(github_token(rng)),
        7 => one(jwt(rng)),
        8 => one(email(rng)),
        9 => one(uuid(rng)),
        10 => private_key(rng),
        11 => known_secret(rng),
        12 => encoded_message(rng),
        13 => host_name(rng),
        14 => encoded_arn(rng),
        15 => secret_assignment(rng),
        _ => glued_assignment(rng),
    }
}

const DIGITS: &[u8] = b"0123456789";
const HEX: &[u8] = b"0123456789abcdef";
const UPPER_DIGITS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const BASE64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const BASE64URL: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const LOWER: &[u8] = b"abcdefghijklmnopqrstuvwxyz";
const NAME: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+=@-";

fn digits(rng: &mut SplitMix, n: usize) -> String {
    rng.string(n, DIGITS)
}

fn arn(rng: &mut SplitMix) -> (String, Vec<String>) {
    let partition = rng.pick(&["aws", "aws-cn", "aws-us-gov", "aws-iso-b"]);
    let service = rng.pick(&["iam", "s3", "ec2", "sts", "kms", "lambda", "logs"]);
    let region = rng.pick(&["", "us-east-1", "eu-west-3", "cn-north-1"]);
    let account = digits(rng, 12);
    let kind = rng.pick(&["role", "user", "policy", "instance", "key", "function"]);
    let len = 1 + rng.below(20);
    let name = rng.string(len, NAME);
    let arn = format!("arn:{partition}:{service}:{region}:{account}:{kind}/{name}");
    (arn.clone(), vec![arn, account])
}

fn encoded_arn(rng: &mut SplitMix) -> (String, Vec<String>) {
    let (arn, must_go) = arn(rng);
    let encoded = arn
        .replace(':', "%3A")
        .replace('/', "%2F")
        .replace('@', "%40");
    (encoded.clone(), vec![encoded, must_go[1].clone()])
}

fn ipv4(rng: &mut SplitMix) -> String {
    let octets: Vec<String> = (0..4).map(|_| rng.below(256).to_string()).collect();
    let address = octets.join(".");
    if rng.below(3) == 0 {
        format!("{address}/{}", rng.below(33))
    } else {
        address
    }
}

fn ipv6(rng: &mut SplitMix) -> String {
    let groups: Vec<String> = (0..8)
        .map(|_| {
            let len = 1 + rng.below(4);
            rng.string(len, HEX)
        })
        .collect();
    let address = match rng.below(3) {
        0 => groups.join(":"),
        _ => {
            let head = 1 + rng.below(3);
            let tail = 1 + rng.below(3);
            format!(
                "{}::{}",
                groups[..head].join(":"),
                groups[8 - tail..].join(":")
            )
        }
    };
    if rng.below(3) == 0 {
        format!("{address}/{}", rng.below(129))
    } else {
        address
    }
}

fn access_key(rng: &mut SplitMix) -> String {
    let prefix = rng.pick(&["AKIA", "ASIA", "AROA", "AIDA", "ANPA"]);
    format!("{prefix}{}", rng.string(16, UPPER_DIGITS))
}

fn github_token(rng: &mut SplitMix) -> String {
    if rng.below(3) == 0 {
        format!(
            "github_pat_{}_{}",
            rng.string(22, ALNUM),
            rng.string(59, ALNUM)
        )
    } else {
        let kind = rng.pick(&["ghp", "gho", "ghu", "ghs", "ghr"]);
        format!("{kind}_{}", rng.string(36, ALNUM))
    }
}

fn jwt(rng: &mut SplitMix) -> String {
    let header_len = 10 + rng.below(30);
    let body_len = 20 + rng.below(80);
    let signature_len = 20 + rng.below(60);
    format!(
        "eyJ{}.eyJ{}.{}",
        rng.string(header_len, BASE64URL),
        rng.string(body_len, BASE64URL),
        rng.string(signature_len, BASE64URL)
    )
}

fn email(rng: &mut SplitMix) -> String {
    let local_len = 1 + rng.below(12);
    let domain_len = 1 + rng.below(12);
    let tld = rng.pick(&["com", "org", "io", "co.uk", "internal"]);
    let local = rng.string(local_len, b"abcdefghijklmnopqrstuvwxyz0123456789");
    let local = if rng.below(2) == 0 {
        format!("{local}.x+tag")
    } else {
        local
    };
    format!("{local}@{}.{tld}", rng.string(domain_len, LOWER))
}

fn uuid(rng: &mut SplitMix) -> String {
    let parts: Vec<String> = [8, 4, 4, 4, 12]
        .iter()
        .map(|n| rng.string(*n, HEX))
        .collect();
    parts.join("-")
}

fn private_key(rng: &mut SplitMix) -> (String, Vec<String>) {
    let kind = rng.pick(&["RSA ", "EC ", "OPENSSH ", ""]);
    let body = rng.string(64, BASE64);
    let block =
        format!("-----BEGIN {kind}PRIVATE KEY-----\n{body}\n-----END {kind}PRIVATE KEY-----");
    (block, vec![body])
}

fn known_secret(rng: &mut SplitMix) -> (String, Vec<String>) {
    let secret = rng.pick(&KNOWN_SECRETS);
    let escaped = serde_json::to_string(secret).expect("a string serializes");
    let form = match rng.below(4) {
        0 => secret.to_string(),
        1 => escaped[1..escaped.len() - 1].to_string(),
        2 => secret.to_uppercase(),
        _ => secret.to_lowercase(),
    };
    (form.clone(), vec![form])
}

fn encoded_message(rng: &mut SplitMix) -> (String, Vec<String>) {
    let len = 40 + rng.below(200);
    let blob = rng.string(len, BASE64URL);
    (
        format!("Encoded authorization failure message: {blob}"),
        vec![blob],
    )
}

fn host_name(rng: &mut SplitMix) -> (String, Vec<String>) {
    let octets: Vec<String> = (0..4).map(|_| rng.below(256).to_string()).collect();
    let dashed = octets.join("-");
    let host = match rng.below(2) {
        0 => format!("ip-{dashed}.ec2.internal"),
        _ => format!("ec2-{dashed}.compute-1.amazonaws.com"),
    };
    (host, vec![dashed])
}

/// `KEY=value` where the key names a secret: environment dumps, `-var` flags, query strings.
fn secret_assignment(rng: &mut SplitMix) -> (String, Vec<String>) {
    let key = rng.pick(&[
        "password",
        "TF_VAR_db_password",
        "DB_PASSWORD",
        "AWS_SECRET_ACCESS_KEY",
        "GITHUB_TOKEN",
        "https://example.com/cb?state=1&client_secret",
        "?token",
        "api_key",
    ]);
    let len = 8 + rng.below(24);
    let value = rng.string(
        len,
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.+/=@!#$%*~",
    );
    let quote = if rng.below(3) == 0 { "\"" } else { "" };
    let tail = if key.contains('?') { "&x=1" } else { "" };
    (format!("{key}={quote}{value}{quote}{tail}"), vec![value])
}

/// A value of a redacted kind glued with `=` to a key that names nothing secret.
fn glued_assignment(rng: &mut SplitMix) -> (String, Vec<String>) {
    let key = rng.pick(&[
        "x",
        "MY_SETTING",
        "TF_VAR_admin_cidrs",
        "TF_VAR_a_rather_long_variable_name_here",
    ]);
    let value = match rng.below(4) {
        0 => rng.string(40, BASE64),
        1 => ipv4(rng),
        2 => access_key(rng),
        _ => github_token(rng),
    };
    (format!("{key}={value}"), vec![value])
}

/// SplitMix64: small, seedable, good enough to spread a seed over a value's characters.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, options: &[&'a str]) -> &'a str {
        options[self.below(options.len())]
    }

    fn string(&mut self, len: usize, alphabet: &[u8]) -> String {
        (0..len)
            .map(|_| char::from(alphabet[self.below(alphabet.len())]))
            .collect()
    }
}
