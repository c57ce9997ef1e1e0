//! Leak properties: secrets planted in every position of generated Terraform outputs never
//! survive the real public pipeline into a PR comment or check run.
//!
//! Apply: `parse_ui_stream` → `apply_outcome` → `results::apply_root` → `Renderer::render_apply`.
//! Plan: `parse_plan_json` → `plan_summary` → `results::plan_root` → `Renderer::render_plan`.
//! Runs: `results::runs::plan_model` / `apply_model` (init failures, failed plan streams).
//!
//! Planted: ARNs of every partition (paths, wildcards), bare account ids, IPv4, IPv4 CIDRs,
//! IPv6 (full and `::`-compressed with at least two groups: single-group forms like `fe80::` are
//! the redactor's documented gap), access key ids, GitHub tokens, e-mail addresses, request ids,
//! encoded authorization messages, known secret values (given to `RedactionConfig::secret_values`
//! as shared inputs are) and sensitive-only values (known to no one: only sensitivity marks or
//! "values are never parsed" keep them out). Each sits next to quotes, brackets, newlines, JSON
//! and HCL escapes, in error texts, instance keys, ids, outputs, variables, attribute values,
//! map keys, file names and non-JSON lines.
//!
//! Each property runs `PROPTEST_CASES` cases (default 64). Failures are not persisted (no
//! regression files are written); proptest prints the shrunk input.
//!
//! The properties near the end each isolate one position or shape that leaked once (account ids
//! in names, HCL-escaped keys, `\u003c` boundaries, codes and actions built from planted text);
//! they guard those fixes.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::Config as ProptestConfig;
use regex::Regex;
use serde_json::{json, Map, Value};

use tfgate::redact::{Placeholders, RedactionConfig, Redactor};
use tfgate::render::{
    annotations_for_apply, annotations_for_plan, ApplyComment, CommentMeta, PlanComment, Renderer,
    RootApply, RootPlan,
};
use tfgate::results::runs::{apply_model, plan_model};
use tfgate::results::{apply_root, plan_root, RootIdent};
use tfgate::terraform::{
    apply_outcome, parse_plan_json, parse_ui_stream, plan_summary, Action, PlannedChangeRef,
};

// ------------------------------------------------------------------ configuration

fn cfg() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    ProptestConfig {
        cases,
        failure_persistence: None,
        max_shrink_iters: 4096,
        ..ProptestConfig::default()
    }
}

fn renderer() -> &'static Renderer {
    static R: OnceLock<Renderer> = OnceLock::new();
    R.get_or_init(|| Renderer::new().expect("embedded templates load"))
}

fn root_ident() -> RootIdent {
    RootIdent {
        project: "net".into(),
        dir: "infra/net".into(),
        workspace: "default".into(),
    }
}

fn meta() -> CommentMeta {
    CommentMeta {
        pr: 42,
        marker_root: "all".into(),
        run_id: "r-7".into(),
        head_sha_short: Some("9c1b2d4".into()),
        command_by: Some("octo-dev".into()),
        check_run_url: None,
    }
}

// ------------------------------------------------------------------ secrets

/// A planted value and what it is (for failure messages).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Secret {
    kind: &'static str,
    text: String,
}

impl Secret {
    fn new(kind: &'static str, text: String) -> Secret {
        Secret { kind, text }
    }
    fn is_known(&self) -> bool {
        self.kind == "known"
    }
}

const PARTITIONS: [&str; 5] = ["aws", "aws-cn", "aws-us-gov", "aws-iso", "aws-iso-b"];
const REGIONS: [&str; 6] = [
    "us-east-1",
    "eu-central-1",
    "cn-north-1",
    "us-gov-west-1",
    "us-iso-east-1",
    "us-isob-east-1",
];

fn account() -> impl Strategy<Value = String> {
    "[0-9]{12}"
}

fn iam_name() -> impl Strategy<Value = String> {
    "[A-Za-z][A-Za-z0-9_+=@-]{0,16}[A-Za-z0-9]"
}

fn uuid() -> impl Strategy<Value = String> {
    "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
}

/// ARNs of every partition; `regions` may include `*` (IAM policy wildcards).
fn arn_in(regions: Vec<&'static str>) -> impl Strategy<Value = String> {
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

fn arn() -> impl Strategy<Value = String> {
    arn_in(REGIONS.to_vec())
}

fn ipv4() -> impl Strategy<Value = String> {
    (any::<u8>(), any::<u8>(), any::<u8>(), any::<u8>())
        .prop_map(|(a, b, c, d)| format!("{a}.{b}.{c}.{d}"))
}

fn cidr4() -> impl Strategy<Value = String> {
    (ipv4(), 0u8..=32).prop_map(|(ip, n)| format!("{ip}/{n}"))
}

/// Full, `::`-compressed (at least two groups in all) and IPv4-embedded forms.
fn ipv6() -> impl Strategy<Value = String> {
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

fn access_key() -> impl Strategy<Value = String> {
    (select(vec!["AKIA", "ASIA"]), "[A-Z0-9]{16}").prop_map(|(p, k)| format!("{p}{k}"))
}

fn github_token() -> impl Strategy<Value = String> {
    (select(vec!["ghs_", "ghp_"]), "[A-Za-z0-9]{36}").prop_map(|(p, k)| format!("{p}{k}"))
}

fn email() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9._+-]{0,12}[a-z0-9]@[a-z][a-z0-9-]{0,10}[a-z0-9]\\.(com|org|io|co\\.uk|example)"
}

/// Known secret values (what `inputs::all_values` hands the redactor): 10–30 characters,
/// no `$`/`%` (see the HCL-escape property) and no whitespace.
fn known_value() -> impl Strategy<Value = String> {
    "[A-Za-z0-9!#*+,.=?^_~\"\\\\-]{10,30}"
}

/// A value only sensitivity marks protect: no pattern matches it, no one lists it.
fn sensitive_only() -> impl Strategy<Value = String> {
    "sv[a-z]{14}"
}

fn any_secret() -> impl Strategy<Value = Secret> {
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
const WRAPS: &[(&str, &str)] = &[
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
struct Plant {
    secret: Secret,
    wrap: usize,
    at: usize,
}

impl Plant {
    fn text(&self) -> String {
        let (before, after) = WRAPS[self.wrap];
        format!("{before}{}{after}", self.secret.text)
    }
}

fn plant_of(secret: impl Strategy<Value = Secret>) -> impl Strategy<Value = Plant> {
    (secret, 0..WRAPS.len(), any::<usize>()).prop_map(|(secret, wrap, at)| Plant {
        secret,
        wrap,
        at,
    })
}

fn plant() -> impl Strategy<Value = Plant> {
    plant_of(any_secret())
}

fn plants(max: usize) -> impl Strategy<Value = Vec<Plant>> {
    prop::collection::vec(plant(), 0..=max)
}

/// Inserts each plant at a byte offset of `text` (on a character boundary), inside words too;
/// plants with an even `at` go, without their neighbours, inside the `focus` word (the AWS
/// code) when the text has it.
fn plant_mid_word(text: &str, plants: &[Plant], focus: Option<&str>) -> String {
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
fn plant_into(text: &str, plants: &[Plant]) -> String {
    let mut words: Vec<String> = text.split(' ').map(str::to_string).collect();
    for p in plants {
        let at = p.at % (words.len() + 1);
        words.insert(at, p.text());
    }
    words.join(" ")
}

// ------------------------------------------------------------------ the checker

/// Terraform's `toHCLQuotedString` (addrs.StringKey.String): how instance keys appear in
/// addresses.
fn hcl_quote(s: &str) -> String {
    let mut out = String::from("\"");
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '$' | '%' => {
                out.push(c);
                if chars.get(i + 1) == Some(&'{') {
                    out.push(c);
                }
            }
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The markdown with its escaping undone: zero-width spaces removed, `\x` → `x`, entities
/// decoded. A secret must appear neither in the raw nor in the decoded text.
fn decoded(md: &str) -> String {
    let no_zwsp = md.replace('\u{200B}', "");
    let mut out = String::with_capacity(no_zwsp.len());
    let mut chars = no_zwsp.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(&next) = chars.peek() {
                if next.is_ascii_punctuation() {
                    out.push(next);
                    chars.next();
                    continue;
                }
            }
        }
        out.push(c);
    }
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

struct Shapes {
    checks: Vec<(&'static str, Regex)>,
}

fn shapes() -> &'static Shapes {
    static S: OnceLock<Shapes> = OnceLock::new();
    S.get_or_init(|| Shapes {
        checks: [
            // Exactly twelve digits (an account id), also glued to letters.
            ("12-digit run", r"(?:^|[^0-9])([0-9]{12})(?:[^0-9]|$)"),
            // An ARN as far as its service (`arn:aws:iam:`); a bare partition (`arn:aws`)
            // names nothing: that case is `planted_secrets_never_become_the_code_or_iam_action`.
            ("arn: prefix", r"\barn:[A-Za-z0-9-]*:[A-Za-z0-9*-]*:"),
            ("dotted quad", r"\b[0-9]{1,3}(?:\.[0-9]{1,3}){3}\b"),
            ("access key id", r"\b(?:AKIA|ASIA)[A-Z0-9]{16}"),
            ("GitHub token", r"gh[ps]_[A-Za-z0-9]{36}"),
            (
                "uuid",
                r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
            ),
            (
                "e-mail",
                r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}",
            ),
        ]
        .into_iter()
        .map(|(name, re)| (name, Regex::new(re).unwrap()))
        .collect(),
    })
}

/// Every way `texts` leak planted `secrets` (raw, JSON- or HCL-escaped) or secret shapes.
fn leaks(texts: &[String], secrets: &BTreeSet<Secret>) -> Vec<String> {
    let mut found = Vec::new();
    for text in texts {
        let plain = decoded(text);
        for s in secrets {
            let json = serde_json::to_string(&s.text).unwrap();
            let json = json[1..json.len() - 1].to_string();
            let hcl = hcl_quote(&s.text);
            let hcl = hcl[1..hcl.len() - 1].to_string();
            for form in [s.text.clone(), json, hcl] {
                if text.contains(&form) || plain.contains(&form) {
                    found.push(format!("{} {:?} (as {form:?})", s.kind, s.text));
                    break;
                }
            }
        }
        for (name, re) in &shapes().checks {
            for m in re.find_iter(&plain) {
                found.push(format!("{name}: {:?}", m.as_str()));
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

fn has_placeholder(md: &str) -> bool {
    static P: OnceLock<Regex> = OnceLock::new();
    P.get_or_init(|| {
        Regex::new(
            r"<(?:arn|account|ipv4|cidr|ipv6|access-key|secret|email|request-id|redacted)-[0-9]+>",
        )
        .unwrap()
    })
    .is_match(&decoded(md))
}

fn check(texts: &[String], secrets: &BTreeSet<Secret>) -> Result<(), TestCaseError> {
    let found = leaks(texts, secrets);
    prop_assert!(
        found.is_empty(),
        "leaked: {found:#?}\n----- rendered -----\n{}",
        texts.join("\n----- next -----\n")
    );
    Ok(())
}

fn render_err(e: tfgate::render::RenderError) -> TestCaseError {
    TestCaseError::fail(e.to_string())
}

fn annotation_texts(a: &[tfgate::render::AnnotationView]) -> Vec<String> {
    a.iter()
        .flat_map(|a| [a.path.clone(), a.title.clone(), a.message.clone()])
        .collect()
}

/// Everything of an apply that reaches GitHub: the comment, the check run, its annotations.
fn apply_published(roots: Vec<RootApply>) -> Result<Vec<String>, TestCaseError> {
    let comment = ApplyComment {
        meta: meta(),
        roots,
        notes: vec![],
    };
    let md = renderer().render_apply(&comment).map_err(render_err)?;
    let run = renderer().check_run_apply(&comment).map_err(render_err)?;
    let mut texts = vec![md, run.title, run.summary, run.text];
    texts.extend(annotation_texts(&annotations_for_apply(&comment)));
    Ok(texts)
}

/// Everything of a plan that reaches GitHub: the comment, the check run, its annotations.
fn plan_published(roots: Vec<RootPlan>) -> Result<Vec<String>, TestCaseError> {
    let comment = PlanComment {
        meta: meta(),
        repo_root_summaries: roots,
        drift_warnings: vec![],
        denials: vec![],
        notes: vec![],
    };
    let md = renderer().render_plan(&comment).map_err(render_err)?;
    let run = renderer().check_run_plan(&comment).map_err(render_err)?;
    let mut texts = vec![md, run.title, run.summary, run.text];
    texts.extend(annotation_texts(&annotations_for_plan(&comment)));
    Ok(texts)
}

fn redactor_for(secrets: &BTreeSet<Secret>) -> Redactor {
    Redactor::new(&RedactionConfig {
        extra_patterns: Vec::new(),
        secret_values: secrets
            .iter()
            .filter(|s| s.is_known())
            .map(|s| s.text.clone())
            .collect(),
    })
    .expect("redactor builds")
}

// ------------------------------------------------------------------ error texts

/// Secrets an AWS error text carries in their natural places.
#[derive(Debug, Clone)]
struct Natural {
    principal: String,
    resource: String,
    request_id: String,
    cidr: String,
    ipv6: String,
    access_key: String,
    account: String,
    email: String,
    token: String,
    known: String,
    blob: String,
}

impl Natural {
    fn secrets(&self) -> Vec<Secret> {
        vec![
            Secret::new("arn", self.principal.clone()),
            Secret::new("arn", self.resource.clone()),
            Secret::new("request-id", self.request_id.clone()),
            Secret::new("cidr", self.cidr.clone()),
            Secret::new("ipv6", self.ipv6.clone()),
            Secret::new("access-key", self.access_key.clone()),
            Secret::new("account", self.account.clone()),
            Secret::new("email", self.email.clone()),
            Secret::new("github-token", self.token.clone()),
            Secret::new("known", self.known.clone()),
            Secret::new("encoded-message", self.blob.clone()),
        ]
    }
}

prop_compose! {
    fn natural()(
        principal in arn(),
        resource in arn(),
        request_id in uuid(),
        cidr in cidr4(),
        ipv6 in ipv6(),
        access_key in access_key(),
        account in account(),
        email in email(),
        token in github_token(),
        known in known_value(),
        blob in "[A-Za-z0-9_-]{60,120}",
    ) -> Natural {
        Natural { principal, resource, request_id, cidr, ipv6, access_key, account, email, token, known, blob }
    }
}

const OLD_CODES: [&str; 6] = [
    "MalformedPolicyDocument",
    "EntityAlreadyExists",
    "LimitExceeded",
    "InvalidInput",
    "DeleteConflict",
    "ConcurrentModification",
];

/// AWS provider error wordings (SDK v2, SDK v1, legacy, credentials, encoded message).
fn error_text(shape: usize, n: &Natural) -> String {
    let Natural {
        principal: p,
        resource: r,
        request_id: id,
        ..
    } = n;
    match shape % 8 {
        0 => format!(
            "creating IAM Role ({}): operation error IAM: GetRole, https response error StatusCode: 403, RequestID: {id}, api error AccessDenied: User: {p} is not authorized to perform: iam:GetRole on resource: {r} because no identity-based policy allows the iam:GetRole action",
            n.known
        ),
        1 => format!(
            "Error creating Security Group Rule: InvalidPermission.Duplicate: the specified rule \"peer: {}, TCP, from port: 22, to port: 22, ALLOW\" already exists\n\tstatus code: 400, request id: {id}",
            n.cidr
        ),
        2 => format!(
            "AccessDenied: User: {p} is not authorized to perform: s3:PutObject on resource: \"{r}\" with an explicit deny in a service control policy\n\tstatus code: 403, request id: {id}"
        ),
        3 => format!(
            "error configuring Terraform AWS Provider: validating provider credentials: retrieving caller identity from STS: operation error STS: GetCallerIdentity, https response error StatusCode: 403, RequestID: {id}, api error InvalidClientTokenId: The security token included in the request is invalid. (access key {}, account {})",
            n.access_key, n.account
        ),
        4 => format!(
            "UnauthorizedOperation: You are not authorized to perform this operation. User: {p} is not authorized to perform: ec2:RunInstances on resource: {r} because no identity-based policy allows the ec2:RunInstances action. Encoded authorization failure message: {}\n\tstatus code: 403, request id: {id}",
            n.blob
        ),
        5 => format!(
            "creating EC2 Network Interface: operation error EC2: CreateNetworkInterface, https response error StatusCode: 400, RequestID: {id}, api error InvalidParameterValue: Address {} is in subnet's reserved address range (owner {}, token {})",
            n.ipv6, n.email, n.token
        ),
        6 => format!(
            "Error creating IAM Role ({}): {}: Invalid principal in policy: \"AWS\":\"{p}\"\n\tstatus code: 400, request id: {id}",
            n.known,
            OLD_CODES[shape / 8 % OLD_CODES.len()]
        ),
        _ => format!(
            "reading S3 Bucket ({r}): operation error S3: HeadBucket, https response error StatusCode: 301, RequestID: {id}, HostID: {}, api error MovedPermanently: Moved Permanently",
            n.blob
        ),
    }
}

/// The AWS error code each wording of [`error_text`] carries.
fn named_code(shape: usize) -> &'static str {
    match shape % 8 {
        0 | 2 => "AccessDenied",
        1 => "InvalidPermission.Duplicate",
        3 => "InvalidClientTokenId",
        4 => "UnauthorizedOperation",
        5 => "InvalidParameterValue",
        6 => OLD_CODES[shape / 8 % OLD_CODES.len()],
        _ => "MovedPermanently",
    }
}

/// An error diagnostic's text plus secrets planted between its words.
#[derive(Debug, Clone)]
struct ErrorSpec {
    shape: usize,
    natural: Natural,
    plants: Vec<Plant>,
    /// Summary only (SDK v2 style), or summary + detail.
    split: bool,
    file: FileSpec,
    /// Replaces the generated wording (targeted properties).
    raw: Option<String>,
    /// Plants go at byte offsets, inside words too (adversarial).
    mid_word: bool,
    /// Plants with an even `at` go right after `perform:` (where the IAM action is read).
    after_perform: bool,
}

impl ErrorSpec {
    fn text(&self) -> String {
        let (base, code) = match &self.raw {
            Some(raw) => (raw.clone(), None),
            None => (
                error_text(self.shape, &self.natural),
                Some(named_code(self.shape)),
            ),
        };
        if self.mid_word {
            plant_mid_word(&base, &self.plants, code)
        } else if self.after_perform {
            let words: Vec<&str> = base.split(' ').collect();
            match words.iter().position(|w| *w == "perform:") {
                Some(i) => {
                    let plants: Vec<Plant> = self
                        .plants
                        .iter()
                        .map(|p| Plant {
                            at: if p.at % 2 == 0 { i + 1 } else { p.at },
                            ..p.clone()
                        })
                        .collect();
                    plant_into(&base, &plants)
                }
                None => plant_into(&base, &self.plants),
            }
        } else {
            plant_into(&base, &self.plants)
        }
    }

    fn summary_detail(&self) -> (String, String) {
        let text = self.text();
        if self.split {
            if let Some((s, d)) = text.split_once(": ") {
                return (s.to_string(), d.to_string());
            }
        }
        (text, String::new())
    }

    fn secrets(&self) -> Vec<Secret> {
        let mut out = self.natural.secrets();
        out.extend(self.plants.iter().map(|p| p.secret.clone()));
        out.extend(self.file.secret.clone());
        out
    }
}

/// A diagnostic's `range.filename`, sometimes with a secret as a directory name.
#[derive(Debug, Clone)]
struct FileSpec {
    secret: Option<Secret>,
    shape: usize,
}

impl FileSpec {
    fn name(&self) -> String {
        match &self.secret {
            None => "main.tf".into(),
            Some(s) => match self.shape % 3 {
                0 => format!("envs/{}/main.tf", s.text),
                1 => format!("modules/{}/iam.tf", s.text),
                _ => format!("{}.tf", s.text),
            },
        }
    }
}

/// `main.tf`: for positions whose file name is covered by its own property.
const NO_FILE: FileSpec = FileSpec {
    secret: None,
    shape: 0,
};

fn file_spec(secret: impl Strategy<Value = Secret>) -> impl Strategy<Value = FileSpec> {
    (prop::option::weighted(0.5, secret), 0usize..3)
        .prop_map(|(secret, shape)| FileSpec { secret, shape })
}

/// Secrets that can name a directory in a repository.
fn path_secret() -> impl Strategy<Value = Secret> {
    prop_oneof![
        account().prop_map(|s| Secret::new("account", s)),
        ipv4().prop_map(|s| Secret::new("ipv4", s)),
        email().prop_map(|s| Secret::new("email", s)),
        "[A-Za-z0-9_.=+-]{10,30}".prop_map(|s| Secret::new("known", s)),
    ]
}

fn error_spec_with(
    file: impl Strategy<Value = FileSpec>,
    plants: impl Strategy<Value = Vec<Plant>>,
) -> impl Strategy<Value = ErrorSpec> {
    (0usize..48, natural(), plants, any::<bool>(), file).prop_map(
        |(shape, natural, plants, split, file)| ErrorSpec {
            shape,
            natural,
            plants,
            split,
            file,
            raw: None,
            mid_word: false,
            after_perform: false,
        },
    )
}

fn error_spec() -> impl Strategy<Value = ErrorSpec> {
    error_spec_with(file_spec(path_secret()), plants(3))
}

fn diagnostic(spec: &ErrorSpec, address: Option<&str>) -> Value {
    let (summary, detail) = spec.summary_detail();
    let mut d = json!({
        "severity": "error",
        "summary": summary,
        "detail": detail,
        "range": {
            "filename": spec.file.name(),
            "start": {"line": 20, "column": 30, "byte": 810},
            "end": {"line": 20, "column": 31, "byte": 811}
        },
        "snippet": {
            "context": "resource \"aws_iam_role\" \"this\"",
            "code": format!("  assume_role = \"{}\"", spec.natural.principal),
            "start_line": 20,
            "highlight_start_offset": 29,
            "highlight_end_offset": 30,
            "values": [{"traversal": "var.admin_cidr", "statement": format!("is \"{}\"", spec.natural.cidr)}]
        }
    });
    if let Some(a) = address {
        d["address"] = json!(a);
    }
    d
}

// ------------------------------------------------------------------ addresses

/// An instance key: none, a count index, a plain word, or planted text.
#[derive(Debug, Clone)]
enum KeySpec {
    None,
    Index(u8),
    Word(&'static str),
    Planted(Plant),
}

impl KeySpec {
    fn suffix(&self) -> String {
        match self {
            KeySpec::None => String::new(),
            KeySpec::Index(i) => format!("[{i}]"),
            KeySpec::Word(w) => format!("[{}]", hcl_quote(w)),
            KeySpec::Planted(p) => format!("[{}]", hcl_quote(&p.text())),
        }
    }

    fn secret(&self) -> Option<Secret> {
        match self {
            KeySpec::Planted(p) => Some(p.secret.clone()),
            _ => None,
        }
    }
}

fn key_spec_of(plant: impl Strategy<Value = Plant>) -> impl Strategy<Value = KeySpec> {
    prop_oneof![
        1 => Just(KeySpec::None),
        1 => (0u8..5).prop_map(KeySpec::Index),
        1 => select(vec!["primary", "us-east-1", "Name tag", "a.b"]).prop_map(KeySpec::Word),
        3 => plant.prop_map(KeySpec::Planted),
    ]
}

fn key_spec() -> impl Strategy<Value = KeySpec> {
    key_spec_of(plant())
}

#[derive(Debug, Clone)]
struct AddressSpec {
    module: Option<(String, KeySpec)>,
    type_: &'static str,
    name: String,
    key: KeySpec,
    /// Secrets inside module or resource names (targeted property).
    in_names: Vec<Secret>,
}

impl AddressSpec {
    fn module_address(&self) -> Option<String> {
        self.module
            .as_ref()
            .map(|(m, k)| format!("module.{m}{}", k.suffix()))
    }

    fn resource(&self) -> String {
        format!("{}.{}{}", self.type_, self.name, self.key.suffix())
    }

    fn address(&self) -> String {
        match self.module_address() {
            Some(m) => format!("{m}.{}", self.resource()),
            None => self.resource(),
        }
    }

    fn secrets(&self) -> Vec<Secret> {
        let mut out: Vec<Secret> = self.key.secret().into_iter().collect();
        out.extend(self.in_names.iter().cloned());
        if let Some((_, k)) = &self.module {
            out.extend(k.secret());
        }
        out
    }

    fn index(&self) -> Value {
        match &self.key {
            KeySpec::None => Value::Null,
            KeySpec::Index(i) => json!(i),
            KeySpec::Word(w) => json!(w),
            KeySpec::Planted(p) => json!(p.text()),
        }
    }
}

fn address_spec_with(
    key: impl Strategy<Value = KeySpec> + Clone,
) -> impl Strategy<Value = AddressSpec> {
    (
        prop::option::weighted(
            0.4,
            (
                select(vec!["net", "acct", "iam"]).prop_map(String::from),
                key.clone(),
            ),
        ),
        select(vec![
            "aws_iam_role",
            "aws_security_group_rule",
            "aws_s3_bucket",
            "aws_instance",
            "aws_vpc",
        ]),
        select(vec!["this", "admin", "deploy", "logs", "web"]).prop_map(String::from),
        key,
    )
        .prop_map(|(module, type_, name, key)| AddressSpec {
            module,
            type_,
            name,
            key,
            in_names: Vec::new(),
        })
}

fn address_spec() -> impl Strategy<Value = AddressSpec> {
    address_spec_with(key_spec().boxed())
}

fn hook_resource(a: &AddressSpec) -> Value {
    json!({
        "addr": a.address(),
        "module": a.module_address().unwrap_or_default(),
        "resource": a.resource(),
        "implied_provider": "aws",
        "resource_type": a.type_,
        "resource_name": a.name,
        "resource_key": a.index(),
    })
}

// ------------------------------------------------------------------ apply streams

#[derive(Debug, Clone)]
enum Fate {
    /// `apply_complete` with a provider id (often an ARN).
    Done {
        id: Secret,
    },
    /// `apply_errored` + error diagnostic addressed to the instance.
    Failed(ErrorSpec),
    /// Only an error diagnostic (e.g. a refresh failure during apply).
    DiagnosticOnly(ErrorSpec),
    NotReached,
    /// `apply_start` + `apply_progress`, then nothing.
    Interrupted,
}

#[derive(Debug, Clone)]
struct ResourceSpec {
    address: AddressSpec,
    action: &'static str,
    fate: Fate,
}

fn fate() -> impl Strategy<Value = Fate> {
    prop_oneof![
        3 => any_secret().prop_map(|id| Fate::Done { id }),
        3 => error_spec().prop_map(Fate::Failed),
        1 => error_spec().prop_map(Fate::DiagnosticOnly),
        1 => Just(Fate::NotReached),
        1 => Just(Fate::Interrupted),
    ]
}

fn resource_spec_with(
    address: impl Strategy<Value = AddressSpec>,
) -> impl Strategy<Value = ResourceSpec> {
    (
        address,
        select(vec!["create", "update", "delete", "replace"]),
        fate(),
    )
        .prop_map(|(address, action, fate)| ResourceSpec {
            address,
            action,
            fate,
        })
}

#[derive(Debug, Clone)]
struct ApplySpec {
    /// (terraform version, ui version)
    version: (&'static str, &'static str),
    resources: Vec<ResourceSpec>,
    /// Configuration / provider errors tied to no instance.
    unattached: Vec<(bool, ErrorSpec)>,
    /// Crash output and `log` lines.
    noise: Vec<Vec<Plant>>,
    /// Outputs (UI 1.0 prints sensitive values in clear).
    outputs: Vec<(bool, Secret, String)>,
}

fn apply_spec_with(
    resource: impl Strategy<Value = ResourceSpec>,
) -> impl Strategy<Value = ApplySpec> {
    (
        select(vec![("1.0.3", "0.1.0"), ("1.3.7", "1.0"), ("1.5.7", "1.1")]),
        prop::collection::vec(resource, 1..6),
        prop::collection::vec((any::<bool>(), error_spec()), 0..2),
        prop::collection::vec(plants(2), 0..3),
        prop::collection::vec((any::<bool>(), any_secret(), sensitive_only()), 0..3),
    )
        .prop_map(
            |(version, resources, unattached, noise, outputs)| ApplySpec {
                version,
                resources,
                unattached,
                noise,
                outputs,
            },
        )
}

fn apply_spec() -> impl Strategy<Value = ApplySpec> {
    apply_spec_with(resource_spec_with(address_spec()))
}

/// A rendered stream, what the plan meant to do, and everything planted in it.
struct ApplyCase {
    text: String,
    planned: Vec<PlannedChangeRef>,
    secrets: BTreeSet<Secret>,
    addresses: BTreeSet<String>,
    failed: BTreeSet<String>,
}

fn ui_action(action: &str) -> Option<Action> {
    Action::from_ui(action)
}

fn line(level: &str, message: &str, type_: &str, extra: Value) -> String {
    let mut v = json!({
        "@level": level,
        "@message": message,
        "@module": "terraform.ui",
        "@timestamp": "2026-12-02T09:46:49.081570Z",
        "type": type_,
    });
    if let (Value::Object(m), Value::Object(e)) = (&mut v, extra) {
        m.extend(e);
    }
    v.to_string()
}

fn build_apply(spec: &ApplySpec) -> ApplyCase {
    let mut lines = Vec::new();
    let mut secrets = BTreeSet::new();
    let mut planned = Vec::new();
    let mut addresses = BTreeSet::new();
    let mut failed = BTreeSet::new();
    let (tf, ui) = spec.version;
    lines.push(line(
        "info",
        &format!("Terraform {tf}"),
        "version",
        json!({"terraform": tf, "ui": ui}),
    ));
    for r in &spec.resources {
        let addr = r.address.address();
        secrets.extend(r.address.secrets());
        if addresses.insert(addr.clone()) {
            planned.push(PlannedChangeRef {
                address: addr.clone(),
                action: ui_action(r.action).unwrap(),
            });
        }
        lines.push(line(
            "info",
            &format!("{addr}: Plan to {}", r.action),
            "planned_change",
            json!({"change": {"resource": hook_resource(&r.address), "action": r.action}}),
        ));
    }
    for (i, r) in spec.resources.iter().enumerate() {
        let addr = r.address.address();
        let hook = |extra: Value| {
            let mut h = json!({"resource": hook_resource(&r.address), "action": r.action});
            if let (Value::Object(m), Value::Object(e)) = (&mut h, extra) {
                m.extend(e);
            }
            json!({ "hook": h })
        };
        let start = line(
            "info",
            &format!("{addr}: Creating..."),
            "apply_start",
            hook(json!({})),
        );
        match &r.fate {
            Fate::Done { id } => {
                secrets.insert(id.clone());
                lines.push(start);
                lines.push(line(
                    "info",
                    &format!("{addr}: Creation complete after 1s [id={}]", id.text),
                    "apply_complete",
                    hook(json!({"id_key": "id", "id_value": id.text, "elapsed_seconds": 1})),
                ));
            }
            Fate::Failed(e) => {
                secrets.extend(e.secrets());
                failed.insert(addr.clone());
                lines.push(start);
                lines.push(line(
                    "info",
                    &format!("{addr}: Creation errored after 1s"),
                    "apply_errored",
                    hook(json!({"elapsed_seconds": 1})),
                ));
                lines.push(line(
                    "error",
                    &format!("Error: {}", e.text()),
                    "diagnostic",
                    json!({"diagnostic": diagnostic(e, Some(&addr))}),
                ));
            }
            Fate::DiagnosticOnly(e) => {
                secrets.extend(e.secrets());
                failed.insert(addr.clone());
                lines.push(line(
                    "error",
                    &format!("Error: {}", e.text()),
                    "diagnostic",
                    json!({"diagnostic": diagnostic(e, Some(&addr))}),
                ));
            }
            Fate::NotReached => {}
            Fate::Interrupted => {
                lines.push(start);
                lines.push(line(
                    "info",
                    &format!("{addr}: Still creating... [10s elapsed]"),
                    "apply_progress",
                    hook(json!({"elapsed_seconds": 10})),
                ));
            }
        }
        if let Some(noise) = spec.noise.get(i) {
            for p in noise {
                secrets.insert(p.secret.clone());
            }
            lines.push(plant_into(
                "panic: runtime error: invalid memory address",
                noise,
            ));
            lines.push(line(
                "info",
                &plant_into("provider: retrying request", noise),
                "log",
                json!({}),
            ));
        }
    }
    for (with_provider, e) in &spec.unattached {
        secrets.extend(e.secrets());
        let mut d = diagnostic(e, None);
        if *with_provider {
            d["address"] = json!("provider[\"registry.terraform.io/hashicorp/aws\"]");
        }
        lines.push(line(
            "error",
            &format!("Error: {}", e.text()),
            "diagnostic",
            json!({ "diagnostic": d }),
        ));
    }
    if !spec.outputs.is_empty() {
        let mut outputs = Map::new();
        for (i, (sensitive, secret, hidden)) in spec.outputs.iter().enumerate() {
            secrets.insert(secret.clone());
            secrets.insert(Secret::new("sensitive-only", hidden.clone()));
            let value = if *sensitive { hidden } else { &secret.text };
            outputs.insert(
                format!("out_{i}"),
                json!({"sensitive": sensitive, "type": "string", "value": value}),
            );
            outputs.insert(
                format!("pair_{i}"),
                json!({"sensitive": true, "type": ["tuple", ["string", "string"]], "value": [secret.text, hidden]}),
            );
        }
        lines.push(line(
            "info",
            &format!("Outputs: {}", outputs.len()),
            "outputs",
            json!({ "outputs": outputs }),
        ));
    }
    if failed.is_empty() {
        lines.push(line(
            "info",
            "Apply complete!",
            "change_summary",
            json!({"changes": {"add": 1, "change": 0, "remove": 0, "operation": "apply"}}),
        ));
    }
    ApplyCase {
        text: lines.join("\n") + "\n",
        planned,
        secrets,
        addresses,
        failed,
    }
}

fn apply_markdown(case: &ApplyCase) -> Result<(RootApply, String), TestCaseError> {
    let redactor = redactor_for(&case.secrets);
    let stream = parse_ui_stream(&case.text).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let outcome = apply_outcome(&stream, &case.planned);
    let mut ph = Placeholders::new();
    let root = apply_root(&root_ident(), &outcome, &|_| false, &redactor, &mut ph);
    // The pipeline really saw every resource and every failure.
    prop_assert_eq!(root.rows.len(), case.addresses.len());
    prop_assert_eq!(root.counts.failed as usize, {
        let interrupted = root
            .rows
            .iter()
            .filter(|r| r.result == tfgate::render::ApplyResult::Interrupted)
            .count();
        case.failed.len() + interrupted
    });
    let md = renderer()
        .render_apply(&ApplyComment {
            meta: meta(),
            roots: vec![root.clone()],
            notes: vec![],
        })
        .map_err(render_err)?;
    prop_assert!(
        case.failed.is_empty() || md.contains("❌ failed"),
        "failed rows are shown"
    );
    Ok((root, md))
}

// ------------------------------------------------------------------ plan documents

/// One attribute of a planned resource.
#[derive(Debug, Clone)]
enum AttrSpec {
    /// A string with planted secrets (before / after).
    Text(Vec<Plant>, Vec<Plant>),
    /// A list of bare secrets (`cidr_blocks`).
    List(Vec<Secret>),
    /// A map whose keys and values hold secrets (`tags`).
    Tags(Vec<(Plant, Plant)>),
    /// An account id as a JSON number.
    AccountNumber(String),
    /// Marked sensitive: values never shown.
    Sensitive(Secret, String),
    /// Known after apply; the old value holds a secret.
    Unknown(Plant),
    /// A nested block list (`ingress`).
    Block(Vec<Secret>, Plant),
    /// An IAM policy document as a JSON string.
    Policy(Vec<Secret>),
    /// A sensitive attribute nested in a block.
    NestedSensitive(String, Secret),
    /// A known secret value that is all digits, as a JSON number (targeted property).
    KnownNumber(String),
    /// A `jsonencode`d document: Go's encoder writes `<`, `>`, `&` as `\u003c`, `\u003e`,
    /// `\u0026` (targeted property).
    GoJson(Vec<Plant>),
}

fn attr_spec() -> impl Strategy<Value = AttrSpec> {
    prop_oneof![
        3 => (plants(2), plants(2)).prop_map(|(b, a)| AttrSpec::Text(b, a)),
        2 => prop::collection::vec(any_secret(), 1..3).prop_map(AttrSpec::List),
        2 => prop::collection::vec((plant(), plant()), 1..3).prop_map(AttrSpec::Tags),
        1 => account().prop_map(AttrSpec::AccountNumber),
        2 => (any_secret(), sensitive_only()).prop_map(|(s, h)| AttrSpec::Sensitive(s, h)),
        1 => plant().prop_map(AttrSpec::Unknown),
        1 => (prop::collection::vec(any_secret(), 1..3), plant())
            .prop_map(|(c, d)| AttrSpec::Block(c, d)),
        2 => prop::collection::vec(arn().prop_map(|s| Secret::new("arn", s)), 1..4)
            .prop_map(AttrSpec::Policy),
        1 => (sensitive_only(), any_secret()).prop_map(|(h, s)| AttrSpec::NestedSensitive(h, s)),
    ]
}

/// before, after, after_unknown, sensitive marks of one attribute, and its secrets.
struct AttrValues {
    before: Value,
    after: Value,
    unknown: Option<Value>,
    sensitive: Option<Value>,
    secrets: Vec<Secret>,
}

fn attr_values(spec: &AttrSpec) -> AttrValues {
    let text = |plants: &[Plant], base: &str| plant_into(base, plants);
    let mut secrets = Vec::new();
    let (before, after, unknown, sensitive) = match spec {
        AttrSpec::Text(b, a) => {
            secrets.extend(b.iter().chain(a).map(|p| p.secret.clone()));
            (
                json!(text(b, "allow admin access from")),
                json!(text(a, "allow office access via")),
                None,
                None,
            )
        }
        AttrSpec::List(items) => {
            secrets.extend(items.iter().cloned());
            let list: Vec<&str> = items.iter().map(|s| s.text.as_str()).collect();
            (json!([]), json!(list), None, None)
        }
        AttrSpec::Tags(pairs) => {
            let mut map = Map::new();
            for (k, v) in pairs {
                secrets.push(k.secret.clone());
                secrets.push(v.secret.clone());
                map.insert(k.text(), json!(v.text()));
            }
            (json!({"Name": "old"}), Value::Object(map), None, None)
        }
        AttrSpec::AccountNumber(a) => {
            secrets.push(Secret::new("account", a.clone()));
            let n: u64 = a.parse().unwrap();
            (json!(1), json!(n), None, None)
        }
        AttrSpec::Sensitive(s, hidden) => {
            secrets.push(s.clone());
            secrets.push(Secret::new("sensitive-only", hidden.clone()));
            (json!(s.text), json!(hidden), None, Some(json!(true)))
        }
        AttrSpec::Unknown(p) => {
            secrets.push(p.secret.clone());
            (json!(p.text()), Value::Null, Some(json!(true)), None)
        }
        AttrSpec::Block(cidrs, desc) => {
            secrets.extend(cidrs.iter().cloned());
            secrets.push(desc.secret.clone());
            let list: Vec<&str> = cidrs.iter().map(|s| s.text.as_str()).collect();
            (
                json!([]),
                json!([{"cidr_blocks": list, "description": desc.text(), "from_port": 443}]),
                None,
                None,
            )
        }
        AttrSpec::Policy(arns) => {
            secrets.extend(arns.iter().cloned());
            let resources: Vec<&str> = arns.iter().map(|s| s.text.as_str()).collect();
            let doc = json!({
                "Version": "2012-10-17",
                "Statement": [{"Effect": "Allow", "Action": ["s3:GetObject"], "Resource": resources}]
            });
            (json!(null), json!(doc.to_string()), None, None)
        }
        AttrSpec::NestedSensitive(hidden, s) => {
            secrets.push(s.clone());
            secrets.push(Secret::new("sensitive-only", hidden.clone()));
            (
                json!([{"user": "admin", "password": s.text}]),
                json!([{"user": "admin", "password": hidden}]),
                None,
                Some(json!([{"password": true}])),
            )
        }
        AttrSpec::KnownNumber(digits) => {
            secrets.push(Secret::new("known", digits.clone()));
            let n: u64 = digits.parse().unwrap();
            (json!(n + 1), json!(n), None, None)
        }
        AttrSpec::GoJson(plants) => {
            secrets.extend(plants.iter().map(|p| p.secret.clone()));
            let notes: Vec<String> = plants.iter().map(Plant::text).collect();
            let doc = json!({"Statement": [{"Sid": "Owners", "Condition": {"StringLike": {"aws:PrincipalTag/owner": notes}}}]});
            (json!(null), json!(go_json_encode(&doc)), None, None)
        }
    };
    AttrValues {
        before,
        after,
        unknown,
        sensitive,
        secrets,
    }
}

fn go_json_encode(value: &Value) -> String {
    value
        .to_string()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

#[derive(Debug, Clone)]
struct PlanResourceSpec {
    address: AddressSpec,
    actions: usize,
    attrs: Vec<AttrSpec>,
}

const PLAN_ACTIONS: [&[&str]; 5] = [
    &["create"],
    &["update"],
    &["delete"],
    &["delete", "create"],
    &["create", "delete"],
];

fn plan_resource_spec() -> impl Strategy<Value = PlanResourceSpec> {
    (
        address_spec(),
        0..PLAN_ACTIONS.len(),
        prop::collection::vec(attr_spec(), 1..5),
    )
        .prop_map(|(address, actions, attrs)| PlanResourceSpec {
            address,
            actions,
            attrs,
        })
}

#[derive(Debug, Clone)]
struct PlanSpec {
    format: &'static str,
    resources: Vec<PlanResourceSpec>,
    variables: Vec<(Secret, String)>,
    outputs: Vec<(Secret, String)>,
    drift: Vec<Plant>,
    provider_role: String,
}

fn plan_spec() -> impl Strategy<Value = PlanSpec> {
    (
        select(vec!["0.1", "0.2", "1.0", "1.1", "1.2"]),
        prop::collection::vec(plan_resource_spec(), 1..5),
        prop::collection::vec((any_secret(), sensitive_only()), 0..3),
        prop::collection::vec((any_secret(), sensitive_only()), 0..3),
        plants(3),
        arn(),
    )
        .prop_map(
            |(format, resources, variables, outputs, drift, provider_role)| PlanSpec {
                format,
                resources,
                variables,
                outputs,
                drift,
                provider_role,
            },
        )
}

struct PlanCase {
    text: String,
    secrets: BTreeSet<Secret>,
    changed: usize,
}

fn resource_change(r: &PlanResourceSpec, secrets: &mut BTreeSet<Secret>) -> Value {
    let actions = PLAN_ACTIONS[r.actions];
    let (mut before, mut after, mut unknown) = (Map::new(), Map::new(), Map::new());
    let mut sensitive = Map::new();
    for (i, a) in r.attrs.iter().enumerate() {
        let v = attr_values(a);
        let name = format!("attr_{i}");
        secrets.extend(v.secrets);
        before.insert(name.clone(), v.before);
        after.insert(name.clone(), v.after);
        if let Some(u) = v.unknown {
            unknown.insert(name.clone(), u);
        }
        if let Some(s) = v.sensitive {
            sensitive.insert(name, s);
        }
    }
    let (before, after) = match actions {
        ["create"] => (Value::Null, Value::Object(after)),
        ["delete"] => (Value::Object(before), Value::Null),
        _ => (Value::Object(before), Value::Object(after)),
    };
    let sens = Value::Object(sensitive);
    let mut rc = json!({
        "address": r.address.address(),
        "mode": "managed",
        "type": r.address.type_,
        "name": r.address.name,
        "provider_name": "registry.terraform.io/hashicorp/aws",
        "change": {
            "actions": actions,
            "before": before,
            "after": after,
            "after_unknown": Value::Object(unknown),
            "before_sensitive": sens,
            "after_sensitive": sens,
        },
    });
    if let Some(m) = r.address.module_address() {
        rc["module_address"] = json!(m);
    }
    if !r.address.index().is_null() {
        rc["index"] = r.address.index();
    }
    if actions.len() == 2 {
        rc["action_reason"] = json!("replace_because_tainted");
    }
    rc
}

fn build_plan(spec: &PlanSpec) -> PlanCase {
    let mut secrets = BTreeSet::new();
    let mut changes = Vec::new();
    let mut addresses = BTreeSet::new();
    for r in &spec.resources {
        secrets.extend(r.address.secrets());
        addresses.insert(r.address.address());
        changes.push(resource_change(r, &mut secrets));
    }
    let mut variables = Map::new();
    for (i, (s, hidden)) in spec.variables.iter().enumerate() {
        secrets.insert(s.clone());
        secrets.insert(Secret::new("sensitive-only", hidden.clone()));
        variables.insert(format!("var_{i}"), json!({"value": s.text}));
        variables.insert(format!("password_{i}"), json!({"value": hidden}));
    }
    let mut outputs = Map::new();
    for (i, (s, hidden)) in spec.outputs.iter().enumerate() {
        secrets.insert(s.clone());
        secrets.insert(Secret::new("sensitive-only", hidden.clone()));
        outputs.insert(
            format!("out_{i}"),
            json!({"actions": ["create"], "before": null, "after": s.text, "after_unknown": false, "before_sensitive": false, "after_sensitive": false}),
        );
        outputs.insert(
            format!("token_{i}"),
            json!({"actions": ["create"], "before": null, "after": hidden, "after_unknown": false, "before_sensitive": true, "after_sensitive": true}),
        );
    }
    secrets.extend(spec.drift.iter().map(|p| p.secret.clone()));
    secrets.insert(Secret::new("arn", spec.provider_role.clone()));
    let drift_text = plant_into("changed outside of Terraform", &spec.drift);
    let planned: Vec<Value> = changes
        .iter()
        .map(|c| json!({"address": c["address"], "values": c["change"]["after"], "sensitive_values": {}}))
        .collect();
    let doc = json!({
        "format_version": spec.format,
        "terraform_version": "1.5.7",
        "variables": variables,
        "planned_values": {"root_module": {"resources": planned}},
        "resource_drift": [{
            "address": "aws_vpc.main",
            "mode": "managed",
            "type": "aws_vpc",
            "name": "main",
            "change": {"actions": ["update"], "before": {"description": "x"}, "after": {"description": drift_text}}
        }],
        "resource_changes": changes,
        "output_changes": outputs,
        "prior_state": {"values": {"root_module": {"resources": [{"address": "aws_vpc.main", "values": {"description": drift_text}}]}}},
        "configuration": {
            "provider_config": {"aws": {"name": "aws", "expressions": {
                "region": {"constant_value": "us-east-1"},
                "assume_role": [{"role_arn": {"constant_value": spec.provider_role}}]
            }}},
            "root_module": {"variables": {"admin_cidrs": {"default": drift_text, "sensitive": false}}}
        }
    });
    PlanCase {
        text: serde_json::to_string_pretty(&doc).unwrap(),
        secrets,
        changed: addresses.len(),
    }
}

fn plan_markdown(case: &PlanCase) -> Result<(RootPlan, String), TestCaseError> {
    let redactor = redactor_for(&case.secrets);
    let plan = parse_plan_json(&case.text).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let summary = plan_summary(&plan);
    let mut ph = Placeholders::new();
    let root = plan_root(&root_ident(), &summary, &redactor, &mut ph);
    prop_assert!(root.resources.len() >= case.changed);
    let md = renderer()
        .render_plan(&PlanComment {
            meta: meta(),
            repo_root_summaries: vec![root.clone()],
            drift_warnings: vec![],
            denials: vec![],
            notes: vec![],
        })
        .map_err(render_err)?;
    prop_assert!(md.contains("attribute"), "details table rendered");
    Ok((root, md))
}

// ------------------------------------------------------------------ properties: comments

proptest! {
    #![proptest_config(cfg())]

    /// The apply comment (and check run, annotations) shows addresses (keys redacted), actions,
    /// results, codes, categories, IAM actions and file names: nothing planted in keys, ids,
    /// error texts, file names, outputs or crash output survives.
    #[test]
    fn apply_comment_never_shows_planted_secrets(spec in apply_spec()) {
        let case = build_apply(&spec);
        let (root, md) = apply_markdown(&case)?;
        check(&apply_published(vec![root])?, &case.secrets)?;
        let planted_key = spec.resources.iter().any(|r| matches!(r.address.key, KeySpec::Planted(_)));
        prop_assert!(!planted_key || has_placeholder(&md), "planted keys show placeholders");
    }

    /// The plan comment (and check run) shows attribute diffs: values are redacted, sensitive
    /// values hidden, shared-input values replaced, outputs and variables never shown.
    #[test]
    fn plan_comment_never_shows_planted_secrets(spec in plan_spec()) {
        let case = build_plan(&spec);
        let (root, md) = plan_markdown(&case)?;
        check(&plan_published(vec![root])?, &case.secrets)?;
        let planted_text = spec.resources.iter().filter(|r| PLAN_ACTIONS[r.actions] != ["delete"]).flat_map(|r| &r.attrs).any(|a| matches!(a, AttrSpec::List(_) | AttrSpec::Tags(_)));
        prop_assert!(!planted_text || has_placeholder(&md), "planted values show placeholders");
    }

    /// Init failures and failed plan / apply streams, through `results::runs`.
    #[test]
    fn run_models_never_show_planted_secrets(
        init in error_spec(),
        errors in prop::collection::vec((prop::option::of(address_spec()), error_spec()), 1..4),
        apply in apply_spec(),
    ) {
        let mut secrets: BTreeSet<Secret> = init.secrets().into_iter().collect();
        let stream = failed_plan_stream(&errors, &mut secrets);
        let applied = build_apply(&apply);
        secrets.extend(applied.secrets.iter().cloned());
        let redactor = redactor_for(&secrets);
        let mut ph = Placeholders::new();
        let root = root_ident();
        let init_text = init.text();
        let plans = vec![
            plan_model(&root, false, &init_text, None, None, &redactor, &mut ph),
            plan_model(&root, true, "", Some(&stream), None, &redactor, &mut ph),
            plan_model(&root, true, "", Some(&init_text), None, &redactor, &mut ph),
        ];
        for p in &plans {
            prop_assert_eq!(p.status, tfgate::render::PlanStatus::Failed);
            prop_assert!(!p.errors.is_empty());
        }
        prop_assert_eq!(plans[1].errors.len(), errors.len());
        let applies = vec![
            apply_model(&root, false, &init_text, None, &applied.planned, &redactor, &mut ph),
            apply_model(&root, true, "", Some(&applied.text), &applied.planned, &redactor, &mut ph),
        ];
        prop_assert_eq!(applies[1].rows.len(), applied.addresses.len());
        let mut texts = plan_published(plans)?;
        texts.extend(apply_published(applies)?);
        check(&texts, &secrets)?;
    }
}

/// A `plan -json` stream that stopped on error diagnostics (some addressed).
fn failed_plan_stream(
    errors: &[(Option<AddressSpec>, ErrorSpec)],
    secrets: &mut BTreeSet<Secret>,
) -> String {
    let mut lines = vec![line(
        "info",
        "Terraform 1.5.7",
        "version",
        json!({"terraform": "1.5.7", "ui": "1.1"}),
    )];
    for (address, e) in errors {
        secrets.extend(e.secrets());
        let addr = address.as_ref().map(|a| {
            secrets.extend(a.secrets());
            a.address()
        });
        lines.push(line(
            "error",
            &format!("Error: {}", e.text()),
            "diagnostic",
            json!({"diagnostic": diagnostic(e, addr.as_deref())}),
        ));
    }
    lines.join("\n") + "\n"
}

// ------------------------------------------------------------------ the checker can fail

#[test]
fn checker_sees_every_kind_through_markdown_escaping() {
    let samples = [
        Secret::new("arn", "arn:aws-us-gov:iam::123456789012:role/a_b*c".into()),
        Secret::new("account", "000000000042".into()),
        Secret::new("ipv4", "203.0.113.7".into()),
        Secret::new("cidr", "10.0.0.0/8".into()),
        Secret::new("ipv6", "2001:db8::1:2/64".into()),
        Secret::new("access-key", "AKIAABCDEFGHIJKLMNOP".into()),
        Secret::new("github-token", format!("ghs_{}", "aB3".repeat(12))),
        Secret::new("email", "a.b+c@example.co.uk".into()),
        Secret::new("request-id", "8e4e6bf7-f2c9-45ea-82f3-d6609702de85".into()),
        Secret::new("known", "p|a_s*s`w<o>r&d\"x\\y".into()),
        Secret::new("sensitive-only", "svabcdefghijklmn".into()),
    ];
    for s in &samples {
        // Unredacted values pushed through the real renderer, in every escaping context.
        let root = RootPlan {
            project: s.text.clone(),
            dir: "d".into(),
            workspace: "w".into(),
            status: tfgate::render::PlanStatus::Changes,
            counts: Default::default(),
            warnings: vec![s.text.clone()],
            resources: vec![tfgate::render::PlannedResourceView {
                address: format!("aws_x.y[{}]", hcl_quote(&s.text)),
                action: "update".into(),
                action_reason: None,
                omitted_attributes: 0,
                attributes: vec![tfgate::render::AttrView {
                    path: "p".into(),
                    before: Some(s.text.clone()),
                    after: None,
                    sensitive: false,
                    unknown: false,
                }],
            }],
            errors: vec![],
            advice: vec![],
        };
        let md = renderer()
            .render_plan(&PlanComment {
                meta: meta(),
                repo_root_summaries: vec![root],
                drift_warnings: vec![],
                denials: vec![],
                notes: vec![],
            })
            .unwrap();
        let found = leaks(std::slice::from_ref(&md), &BTreeSet::from([s.clone()]));
        assert!(
            found.iter().any(|f| f.starts_with(s.kind)),
            "{s:?} not seen in:\n{md}"
        );
    }
    // A clean comment has no finding at all (no false positives from the templates).
    let md = renderer()
        .render_apply(&ApplyComment {
            meta: meta(),
            roots: vec![],
            notes: vec![],
        })
        .unwrap();
    assert_eq!(leaks(&[md], &BTreeSet::new()), Vec::<String>::new());
}

// ------------------------------------------------------------------ targeted properties
//
// Each isolates one position or shape; each failed before `src/` was fixed and now guards the
// fix.

fn plain_address(type_: &'static str) -> AddressSpec {
    AddressSpec {
        module: None,
        type_,
        name: "this".into(),
        key: KeySpec::None,
        in_names: Vec::new(),
    }
}

fn one_resource_plan(attrs: Vec<AttrSpec>) -> PlanSpec {
    PlanSpec {
        format: "1.2",
        resources: vec![PlanResourceSpec {
            address: plain_address("aws_iam_policy"),
            actions: 1,
            attrs,
        }],
        variables: Vec::new(),
        outputs: Vec::new(),
        drift: Vec::new(),
        provider_role: "arn:aws:iam::123456789012:role/tfgate-plan".into(),
    }
}

fn one_resource_apply(address: AddressSpec, fate: Fate) -> ApplySpec {
    ApplySpec {
        version: ("1.5.7", "1.1"),
        resources: vec![ResourceSpec {
            address,
            action: "create",
            fate,
        }],
        unattached: Vec::new(),
        noise: Vec::new(),
        outputs: Vec::new(),
    }
}

fn plan_md_of(spec: &PlanSpec) -> Result<(PlanCase, String), TestCaseError> {
    let case = build_plan(spec);
    let (_, md) = plan_markdown(&case)?;
    Ok((case, md))
}

/// ARNs whose region is `*` (IAM policy resources such as `arn:aws:ec2:*:123456789012:instance/*`).
fn wildcard_region_arn() -> impl Strategy<Value = Secret> {
    arn_in(vec!["*"])
        .prop_filter("region is *", |a| a.split(':').nth(3) == Some("*"))
        .prop_map(|a| Secret::new("arn", a))
}

/// Known secret values holding an HCL template introducer (`${`, `%{`).
fn template_known() -> impl Strategy<Value = Secret> {
    "[A-Za-z0-9]{3,10}[$%]\\{[A-Za-z0-9]{3,10}\\}?".prop_map(|s| Secret::new("known", s))
}

/// A shared-input value made of digits (not 12: those are account ids).
fn numeric_known() -> impl Strategy<Value = String> {
    prop_oneof!["[1-9][0-9]{4,10}", "[1-9][0-9]{12,14}"]
}

/// Plants wrapped in `<…>` or `&…&` (what Go's JSON encoder escapes).
fn html_wrapped_plant() -> impl Strategy<Value = Plant> {
    let angle = WRAPS.iter().position(|w| *w == ("<", ">")).unwrap();
    let amp = WRAPS.iter().position(|w| *w == ("&", "&")).unwrap();
    (any_secret(), select(vec![angle, amp]), any::<usize>()).prop_map(|(secret, wrap, at)| Plant {
        secret,
        wrap,
        at,
    })
}

/// Module and resource names carrying an account id (`module.acct_123456789012`).
fn address_with_account_in_name() -> impl Strategy<Value = AddressSpec> {
    (account(), 0usize..2, address_spec()).prop_map(|(a, shape, mut spec)| {
        match shape {
            0 => spec.module = Some((format!("acct_{a}"), KeySpec::None)),
            _ => spec.name = format!("role_{a}"),
        }
        spec.in_names.push(Secret::new("account", a));
        spec
    })
}

/// An old-provider wording that names the resource before the code, without parentheses:
/// `Error creating IAM Role NAME: CODE: …` (NAME is a shared-input value).
fn legacy_wording_error() -> impl Strategy<Value = ErrorSpec> {
    (
        "[A-Z][a-z]{2,6}[A-Z][a-z]{2,6}[0-9]{0,4}",
        select(vec![
            "EntityAlreadyExists",
            "UnmodifiableEntity",
            "MalformedPolicyDocument",
            "PasswordPolicyViolation",
            "DuplicateSSHPublicKey",
            "ReportInProgress",
        ]),
        error_spec_with(Just(NO_FILE), Just(Vec::new())),
    )
        .prop_map(|(name, code, mut spec)| {
            spec.raw = Some(format!(
                "Error creating IAM Role {name}: {code}: Role with name {name} cannot be created.\n\tstatus code: 409, request id: {}",
                spec.natural.request_id
            ));
            spec.natural.known = name;
            spec
        })
}

/// ARNs and IPv6 addresses (`x:y` shapes) bare or on their own line: what an IAM-action
/// pattern could read.
fn colon_plant() -> impl Strategy<Value = Plant> {
    let bare = WRAPS.iter().position(|w| *w == ("", "")).unwrap();
    let line = WRAPS.iter().position(|w| *w == ("\n", "\n")).unwrap();
    (
        prop_oneof![
            arn().prop_map(|s| Secret::new("arn", s)),
            ipv6().prop_map(|s| Secret::new("ipv6", s)),
        ],
        select(vec![bare, line]),
        any::<usize>(),
    )
        // An even `at`: with `after_perform` it goes right after `perform:`.
        .prop_map(|(secret, wrap, at)| Plant {
            secret,
            wrap,
            at: at & !1,
        })
}

fn always_file() -> impl Strategy<Value = FileSpec> {
    (path_secret(), 0usize..3).prop_map(|(s, shape)| FileSpec {
        secret: Some(s),
        shape,
    })
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn arns_with_wildcard_region_are_redacted(
        arns in prop::collection::vec(wildcard_region_arn(), 1..3),
        plants in prop::collection::vec(plant_of(wildcard_region_arn()), 1..3),
    ) {
        let (case, md) = plan_md_of(&one_resource_plan(vec![
            AttrSpec::Policy(arns),
            AttrSpec::Text(Vec::new(), plants),
        ]))?;
        check(&[md], &case.secrets)?;
    }

    #[test]
    fn instance_keys_with_template_sequences_are_redacted(
        spec in apply_spec_with(resource_spec_with(address_spec_with(
            key_spec_of(plant_of(template_known())).boxed(),
        ))),
    ) {
        let case = build_apply(&spec);
        let (_, md) = apply_markdown(&case)?;
        check(&[md], &case.secrets)?;
    }

    #[test]
    fn numeric_shared_input_values_are_redacted(digits in numeric_known()) {
        let (case, md) = plan_md_of(&one_resource_plan(vec![AttrSpec::KnownNumber(digits)]))?;
        check(&[md], &case.secrets)?;
    }

    #[test]
    fn jsonencoded_values_with_html_escapes_are_redacted(
        plants in prop::collection::vec(html_wrapped_plant(), 1..3),
    ) {
        let (case, md) = plan_md_of(&one_resource_plan(vec![AttrSpec::GoJson(plants)]))?;
        check(&[md], &case.secrets)?;
    }

    #[test]
    fn account_ids_in_module_and_resource_names_are_redacted(
        address in address_with_account_in_name(),
        fate in fate(),
        attrs in prop::collection::vec(attr_spec(), 1..3),
    ) {
        let applied = build_apply(&one_resource_apply(address.clone(), fate));
        let (_, apply_md) = apply_markdown(&applied)?;
        let mut plan = one_resource_plan(attrs);
        plan.resources[0].address = address;
        let (planned, plan_md) = plan_md_of(&plan)?;
        let mut secrets = applied.secrets.clone();
        secrets.extend(planned.secrets);
        check(&[apply_md, plan_md], &secrets)?;
    }

    #[test]
    fn legacy_wording_does_not_turn_a_shared_input_into_the_aws_code(
        error in legacy_wording_error(),
    ) {
        let case = build_apply(&one_resource_apply(plain_address("aws_iam_role"), Fate::Failed(error)));
        let (_, md) = apply_markdown(&case)?;
        check(&[md], &case.secrets)?;
    }

    #[test]
    fn secrets_inside_words_of_error_texts_do_not_reach_codes_or_actions(
        error in error_spec_with(Just(NO_FILE), plants(3)).prop_map(|e| ErrorSpec { mid_word: true, ..e }),
    ) {
        let case = build_apply(&one_resource_apply(plain_address("aws_iam_role"), Fate::Failed(error.clone())));
        let (_, apply_md) = apply_markdown(&case)?;
        let redactor = redactor_for(&case.secrets);
        let mut ph = Placeholders::new();
        let init = plan_model(&root_ident(), false, &error.text(), None, None, &redactor, &mut ph);
        let mut texts = plan_published(vec![init])?;
        texts.push(apply_md);
        check(&texts, &case.secrets)?;
    }

    #[test]
    fn plan_failure_locations_and_annotations_are_redacted(
        errors in prop::collection::vec(
            (prop::option::of(address_spec()), error_spec_with(always_file(), plants(1))),
            1..3,
        ),
    ) {
        let mut secrets = BTreeSet::new();
        let stream = failed_plan_stream(&errors, &mut secrets);
        let redactor = redactor_for(&secrets);
        let mut ph = Placeholders::new();
        let model = plan_model(&root_ident(), true, "", Some(&stream), None, &redactor, &mut ph);
        prop_assert_eq!(model.errors.len(), errors.len());
        let texts = plan_published(vec![model])?;
        // Comment, check-run title/summary/text, then path, title, message per failure.
        prop_assert_eq!(texts.len(), 4 + 3 * errors.len());
        check(&texts, &secrets)?;
    }

}

proptest! {
    #![proptest_config(cfg())]

    /// Secrets planted between the words of an error text never become the AWS code or the IAM
    /// action the comment shows: with the plants, each is the clean text's value or absent.
    #[test]
    fn planted_secrets_never_become_the_code_or_iam_action(
        error in error_spec_with(Just(NO_FILE), prop::collection::vec(prop_oneof![plant(), colon_plant()], 1..=3))
            .prop_map(|e| ErrorSpec { after_perform: true, ..e }),
    ) {
        let row_of = |e: &ErrorSpec| -> Result<tfgate::render::ApplyRow, TestCaseError> {
            let case = build_apply(&one_resource_apply(plain_address("aws_iam_role"), Fate::Failed(e.clone())));
            let (root, _) = apply_markdown(&case)?;
            Ok(root.rows[0].clone())
        };
        let planted = row_of(&error)?;
        let clean = row_of(&ErrorSpec { plants: Vec::new(), ..error.clone() })?;
        prop_assert!(
            planted.aws_code.is_none() || planted.aws_code == clean.aws_code,
            "aws_code {:?} (clean text: {:?})", planted.aws_code, clean.aws_code
        );
        prop_assert!(
            planted.iam_action.is_none() || planted.iam_action == clean.iam_action,
            "iam_action {:?} (clean text: {:?})", planted.iam_action, clean.iam_action
        );
    }
}
