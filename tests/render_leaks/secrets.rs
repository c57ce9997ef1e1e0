use proptest::prelude::*;
use proptest::sample::select;

// ------------------------------------------------------------------ secrets

/// A planted value and what it is (for failure messages).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Secret {
    pub(crate) kind: &'static str,
    pub(crate) text: String,
}

impl Secret {
    pub(crate) fn new(kind: &'static str, text: String) -> Secret {
        Secret { kind, text }
    }
    pub(crate) fn is_known(&self) -> bool {
        self.kind == "known"
    }
}

pub(crate) const PARTITIONS: [&str; 5] = ["aws", "aws-cn", "aws-us-gov", "aws-iso", "aws-iso-b"];
pub(crate) const REGIONS: [&str; 6] = [
    "us-east-1",
    "eu-central-1",
    "cn-north-1",
    "us-gov-west-1",
    "us-iso-east-1",
    "us-isob-east-1",
];

pub(crate) fn account() -> impl Strategy<Value = String> {
    "[0-9]{12}"
}

pub(crate) fn iam_name() -> impl Strategy<Value = String> {
    "[A-Za-z][A-Za-z0-9_+=@-]{0,16}[A-Za-z0-9]"
}

pub(crate) fn uuid() -> impl Strategy<Value = String> {
    "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
}

/// ARNs of every partition; `regions` may include `*` (IAM policy wildcards).
pub(crate) fn arn_in(regions: Vec<&'static str>) -> impl Strategy<Value = String> {
    (
        select(PARTITIONS.to_vec()),
        select(regions),
        account(),
        iam_name(),
        iam_name(),
        0usize..12,
        uuid(),
        "[0-9a-f]{17}",
        select(vec!["", "service-role/", "teams/infra/"]),
    )
        .prop_map(|(p, r, a, n1, n2, shape, u, hex, path)| {
            let bucket = n1.to_ascii_lowercase().replace(['_', '+', '=', '@'], "-");
            match shape {
                0 => format!("arn:{p}:iam::{a}:role/{path}{n1}"),
                1 => format!("arn:{p}:sts::{a}:assumed-role/{n1}/{n2}"),
                2 => format!("arn:{p}:s3:::{bucket}"),
                3 => format!("arn:{p}:s3:::{bucket}/*"),
                4 => format!("arn:{p}:ec2:{r}:{a}:security-group/sg-{hex}"),
                5 => format!("arn:{p}:iam::{a}:policy/{path}{n1}"),
                6 => format!("arn:{p}:kms:{r}:{a}:key/{u}"),
                7 => format!("arn:{p}:lambda:{r}:{a}:function:{n1}:7"),
                8 => format!("arn:{p}:logs:{r}:{a}:log-group:/aws/lambda/{n1}:*"),
                9 => format!("arn:{p}:iam::{a}:role/*"),
                10 => format!("arn:{p}:iam::*:role/{path}{n1}"),
                _ => format!("arn:{p}:ec2:{r}:{a}:instance/*"),
            }
        })
}

pub(crate) fn arn() -> impl Strategy<Value = String> {
    arn_in(REGIONS.to_vec())
}

pub(crate) fn ipv4() -> impl Strategy<Value = String> {
    (any::<u8>(), any::<u8>(), any::<u8>(), any::<u8>())
        .prop_map(|(a, b, c, d)| format!("{a}.{b}.{c}.{d}"))
}

pub(crate) fn cidr4() -> impl Strategy<Value = String> {
    (ipv4(), 0u8..=32).prop_map(|(ip, n)| format!("{ip}/{n}"))
}

/// Full, `::`-compressed (at least two groups in all) and IPv4-embedded forms.
pub(crate) fn ipv6() -> impl Strategy<Value = String> {
    let group = "[0-9a-fA-F]{1,4}";
    (
        prop::collection::vec(group, 8),
        0usize..=7,
        0usize..=7,
        0usize..4,
        ipv4(),
        prop::option::of(0u8..=128),
    )
        .prop_map(|(groups, left, right, shape, v4, prefix)| {
            let (left, right) = if left + right < 2 || left + right > 7 {
                (1, 1)
            } else {
                (left, right)
            };
            let text = match shape {
                0 => groups.join(":"),
                1 | 2 => format!(
                    "{}::{}",
                    groups[..left].join(":"),
                    groups[8 - right..].join(":")
                ),
                _ => format!("::ffff:{v4}"),
            };
            match prefix {
                Some(n) if shape != 3 => format!("{text}/{n}"),
                _ => text,
            }
        })
}

pub(crate) fn access_key() -> impl Strategy<Value = String> {
    (select(vec!["AKIA", "ASIA"]), "[A-Z0-9]{16}").prop_map(|(p, k)| format!("{p}{k}"))
}

pub(crate) fn github_token() -> impl Strategy<Value = String> {
    (select(vec!["ghs_", "ghp_"]), "[A-Za-z0-9]{36}").prop_map(|(p, k)| format!("{p}{k}"))
}

pub(crate) fn email() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9._+-]{0,12}[a-z0-9]@[a-z][a-z0-9-]{0,10}[a-z0-9]\\.(com|org|io|co\\.uk|example)"
}

/// Known secret values (what `inputs::all_values` hands the redactor): 10–30 characters,
/// no `$`/`%` (see the HCL-escape property) and no whitespace.
pub(crate) fn known_value() -> impl Strategy<Value = String> {
    "[A-Za-z0-9!#*+,.=?^_~\"\\\\-]{10,30}"
}

/// A value only sensitivity marks protect: no pattern matches it, no one lists it.
pub(crate) fn sensitive_only() -> impl Strategy<Value = String> {
    "sv[a-z]{14}"
}

pub(crate) fn any_secret() -> impl Strategy<Value = Secret> {
    prop_oneof![
        3 => arn().prop_map(|s| Secret::new("arn", s)),
        2 => account().prop_map(|s| Secret::new("account", s)),
        2 => ipv4().prop_map(|s| Secret::new("ipv4", s)),
        2 => cidr4().prop_map(|s| Secret::new("cidr", s)),
        2 => ipv6().prop_map(|s| Secret::new("ipv6", s)),
        1 => access_key().prop_map(|s| Secret::new("access-key", s)),
        1 => github_token().prop_map(|s| Secret::new("github-token", s)),
        1 => email().prop_map(|s| Secret::new("email", s)),
        1 => uuid().prop_map(|s| Secret::new("request-id", s)),
        2 => known_value().prop_map(|s| Secret::new("known", s)),
    ]
}

/// Neighbours a secret is planted between.
pub(crate) const WRAPS: &[(&str, &str)] = &[
    ("", ""),
    ("\"", "\""),
    ("'", "'"),
    ("(", ")"),
    ("[", "]"),
    ("{", "}"),
    ("<", ">"),
    ("\n", "\n"),
    ("\\n", "\\n"),
    ("\\\"", "\\\""),
    ("\\t", ""),
    ("\\\\", ""),
    ("=", ","),
    ("", "."),
    ("", ";"),
    ("`", "`"),
    ("/", "/"),
    ("[\"", "\"]"),
    ("{\"k\":\"", "\"}"),
    (": ", ""),
    ("&", "&"),
];

/// A secret, its neighbours and where it goes (word index, taken modulo the word count).
#[derive(Debug, Clone)]
pub(crate) struct Plant {
    pub(crate) secret: Secret,
    pub(crate) wrap: usize,
    pub(crate) at: usize,
}

impl Plant {
    pub(crate) fn text(&self) -> String {
        let (before, after) = WRAPS[self.wrap];
        format!("{before}{}{after}", self.secret.text)
    }
}

pub(crate) fn plant_of(secret: impl Strategy<Value = Secret>) -> impl Strategy<Value = Plant> {
    (secret, 0..WRAPS.len(), any::<usize>()).prop_map(|(secret, wrap, at)| Plant {
        secret,
        wrap,
        at,
    })
}

pub(crate) fn plant() -> impl Strategy<Value = Plant> {
    plant_of(any_secret())
}

pub(crate) fn plants(max: usize) -> impl Strategy<Value = Vec<Plant>> {
    prop::collection::vec(plant(), 0..=max)
}

/// Inserts each plant at a byte offset of `text` (on a character boundary), inside words too;
/// plants with an even `at` go, without their neighbours, inside the `focus` word (the AWS
/// code) when the text has it.
pub(crate) fn plant_mid_word(text: &str, plants: &[Plant], focus: Option<&str>) -> String {
    let mut out = text.to_string();
    for p in plants {
        let inside = focus
            .filter(|f| p.at % 2 == 0 && f.len() > 1)
            .and_then(|f| {
                out.find(f)
                    .map(|start| start + 1 + (p.at / 2) % (f.len() - 1))
            });
        let mut at = inside.unwrap_or(p.at % (out.len() + 1));
        while !out.is_char_boundary(at) {
            at -= 1;
        }
        // Glued into the code word the secret has no neighbours of its own.
        let text = if inside.is_some() {
            p.secret.text.clone()
        } else {
            p.text()
        };
        out.insert_str(at, &text);
    }
    out
}

/// Inserts each plant between two words of `text`.
pub(crate) fn plant_into(text: &str, plants: &[Plant]) -> String {
    let mut words: Vec<String> = text.split(' ').map(str::to_string).collect();
    for p in plants {
        let at = p.at % (words.len() + 1);
        words.insert(at, p.text());
    }
    words.join(" ")
}
