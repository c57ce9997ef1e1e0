//! Plants sensitive values at random positions of generated log-like text, next to punctuation,
//! quotes, JSON escapes and newlines, and checks that none survives redaction.

use super::*;
use proptest::prelude::*;

const PARTITIONS: &[&str] = &[
    "aws",
    "aws-cn",
    "aws-us-gov",
    "aws-iso",
    "aws-iso-b",
    "aws-iso-e",
    "aws-iso-f",
    "aws-eusc",
];
const SEPARATORS: &[&str] = &[
    " ", "\n", "\t", "\"", "'", ",", ";", "(", ")", "[", "]", "{", "}", "=", ": ", "\\n", "\\\"",
    "\\t", "<", ">", "|", "\r\n",
];
const FILLER: &[&str] = &[
    "aws_instance.web",
    "Creating...",
    "Error:",
    "the",
    "status",
    "code:",
    "403,",
    "request",
    "id:",
    "[id=i-0abc]",
    "module.vpc.aws_subnet.private[2]:",
    "{",
    "}",
    "==>",
    "v1.5.7",
    "elapsed]",
    "Still",
    "creating...",
    "[10s",
    "with",
    "on",
    "main.tf",
    "line",
    "42:",
    "resource",
    "\"aws_iam_role\"",
    "Plan:",
    "3",
    "to",
    "add,",
];

fn account() -> impl Strategy<Value = String> {
    "[0-9]{12}"
}

fn arn() -> impl Strategy<Value = (String, Option<String>)> {
    (
        prop::sample::select(PARTITIONS),
        prop::sample::select(&["iam", "s3", "ec2", "sts", "kms", "lambda"][..]),
        prop::sample::select(&["", "us-east-1", "cn-north-1", "us-gov-west-1"][..]),
        prop_oneof![account().prop_map(Some), Just(None)],
        "(role|user|policy|instance|key|function)[/:][A-Za-z0-9_+=@-]{1,12}(/[A-Za-z0-9_+=.@*-]{1,10}){0,2}",
    )
        .prop_map(|(p, svc, region, acct, res)| {
            let a = acct.clone().unwrap_or_default();
            (format!("arn:{p}:{svc}:{region}:{a}:{res}"), acct)
        })
}

fn octet() -> impl Strategy<Value = u8> {
    any::<u8>()
}

fn ipv4() -> impl Strategy<Value = String> {
    (
        octet(),
        octet(),
        octet(),
        octet(),
        prop::option::of(0u8..=32),
    )
        .prop_map(|(a, b, c, d, p)| match p {
            Some(p) => format!("{a}.{b}.{c}.{d}/{p}"),
            None => format!("{a}.{b}.{c}.{d}"),
        })
}

fn ipv6() -> impl Strategy<Value = String> {
    (
        prop::collection::vec("[0-9a-f]{1,4}", 8),
        0usize..3,
        1usize..4,
        1usize..4,
        prop::option::of(0u8..=128),
    )
        .prop_map(|(groups, form, keep_head, keep_tail, prefix)| {
            let addr = if form == 0 {
                groups.join(":")
            } else {
                format!(
                    "{}::{}",
                    groups[..keep_head].join(":"),
                    groups[8 - keep_tail..].join(":")
                )
            };
            match prefix {
                Some(p) => format!("{addr}/{p}"),
                None => addr,
            }
        })
}

fn access_key() -> impl Strategy<Value = String> {
    (
        prop::sample::select(&["AKIA", "ASIA", "AROA", "AIDA", "ANPA"][..]),
        "[A-Z0-9]{16}",
    )
        .prop_map(|(p, r)| format!("{p}{r}"))
}

fn email() -> impl Strategy<Value = String> {
    (
        "[a-z0-9][a-z0-9._+-]{0,9}",
        "[a-z0-9][a-z0-9-]{0,9}",
        prop::sample::select(&["com", "org", "io", "co.uk"][..]),
    )
        .prop_map(|(l, d, t)| format!("{l}@{d}.{t}"))
}

fn uuid() -> impl Strategy<Value = String> {
    "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
}

fn github_token() -> impl Strategy<Value = String> {
    "gh[pousr]_[A-Za-z0-9]{36}"
}

/// (text planted in the log, values that must not survive)
fn planted() -> impl Strategy<Value = (String, Vec<String>)> {
    prop_oneof![
        arn().prop_map(|(a, acct)| {
            let mut must_go = vec![a.clone()];
            must_go.extend(acct);
            (a, must_go)
        }),
        account().prop_map(|a| (a.clone(), vec![a])),
        ipv4().prop_map(|a| (a.clone(), vec![a])),
        ipv6().prop_map(|a| (a.clone(), vec![a])),
        access_key().prop_map(|a| (a.clone(), vec![a])),
        email().prop_map(|a| (a.clone(), vec![a])),
        uuid().prop_map(|a| (a.clone(), vec![a])),
        github_token().prop_map(|a| (a.clone(), vec![a])),
    ]
}

fn known_secret() -> impl Strategy<Value = String> {
    "[A-Za-z0-9!#$%&*\"\\\\]{8,20}"
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn planted_values_never_survive(
        filler in prop::collection::vec(prop::sample::select(FILLER), 0..30),
        plants in prop::collection::vec((planted(), any::<prop::sample::Index>(), prop::sample::select(SEPARATORS), prop::sample::select(SEPARATORS)), 1..6),
        secret in known_secret(),
        secret_at in any::<prop::sample::Index>(),
    ) {
        let mut pieces: Vec<String> = filler.iter().map(|s| s.to_string()).collect();
        let mut must_go: Vec<String> = Vec::new();
        for ((text, gone), at, before, after) in plants {
            let i = at.index(pieces.len() + 1);
            pieces.insert(i, format!("{before}{text}{after}"));
            must_go.extend(gone);
        }
        let i = secret_at.index(pieces.len() + 1);
        pieces.insert(i, format!("={secret}\n"));
        // The known secret also appears JSON-escaped.
        let escaped = serde_json::to_string(&secret).unwrap();
        pieces.push(format!("{{\"v\":{escaped}}}"));
        let text = pieces.join(" ");

        let r = Redactor::new(&RedactionConfig { extra_patterns: vec![], secret_values: vec![secret.clone()] }).unwrap();
        let out = r.redact(&text, &mut Placeholders::new());
        for value in &must_go {
            prop_assert!(!out.contains(value.as_str()), "{value:?} survived in {out:?}");
        }
        prop_assert!(!out.contains(secret.as_str()), "secret survived in {out:?}");
        prop_assert!(!out.contains(&escaped[1..escaped.len() - 1]), "escaped secret survived in {out:?}");
        let again = r.redact(&out, &mut Placeholders::new());
        prop_assert_eq!(&again, &out);
    }
}

/// Pieces glued together without spaces: planted values, log words, and the bytes the window
/// scan looks at (colons, dots, `@`, runs of digits, capitals and token characters, delimiters).
fn glued_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        planted().prop_map(|(text, _)| text),
        prop::sample::select(FILLER).prop_map(str::to_string),
        prop::sample::select(SEPARATORS).prop_map(str::to_string),
        prop::sample::select(
            &[
                ":", "::", ".", "@", "-", "_", "/", "+", "=", "arn:aws", "eyJ", "\\u003c", "`",
                "\\",
            ][..]
        )
        .prop_map(str::to_string),
        "[0-9]{1,14}",
        "[A-Z0-9]{1,20}",
        "[A-Za-z0-9/+=_-]{1,40}",
        "[0-9a-f]{1,4}",
        "[0-9a-f]{1,4}::[0-9a-f]{1,4}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    /// Searching only the windows the scan picks, with only the rules they need, finds exactly
    /// what every token rule finds on every whitespace-delimited token.
    #[test]
    fn the_window_scan_finds_what_every_rule_on_every_token_finds(
        pieces in prop::collection::vec(glued_piece(), 0..60),
    ) {
        let text = pieces.concat();
        let r = Redactor::new(&RedactionConfig::default()).unwrap();
        let scanned = r.redact_tokens(&text, &mut Placeholders::new());
        let reference = r.redact_tokens_on_every_token(&text, &mut Placeholders::new());
        prop_assert_eq!(scanned, reference);
    }
}
