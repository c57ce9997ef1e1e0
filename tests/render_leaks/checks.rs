use std::collections::BTreeSet;
use std::sync::OnceLock;

use proptest::prelude::*;
use regex::Regex;
use tfgate::model::view::{ApplyComment, PlanComment, RootApply, RootPlan};
use tfgate::redact::{RedactionConfig, Redactor};
use tfgate::render::{annotations_for_apply, annotations_for_plan};

use crate::config::{meta, renderer};
use crate::secrets::Secret;

// ------------------------------------------------------------------ the checker

/// Terraform's `toHCLQuotedString` (addrs.StringKey.String): how instance keys appear in
/// addresses.
pub(crate) fn hcl_quote(s: &str) -> String {
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
pub(crate) fn decoded(md: &str) -> String {
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

pub(crate) struct Shapes {
    pub(crate) checks: Vec<(&'static str, Regex)>,
}

pub(crate) fn shapes() -> &'static Shapes {
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
pub(crate) fn leaks(texts: &[String], secrets: &BTreeSet<Secret>) -> Vec<String> {
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

pub(crate) fn has_placeholder(md: &str) -> bool {
    static P: OnceLock<Regex> = OnceLock::new();
    P.get_or_init(|| {
        Regex::new(
            r"<(?:arn|account|ipv4|cidr|ipv6|access-key|secret|email|request-id|redacted)-[0-9]+>",
        )
        .unwrap()
    })
    .is_match(&decoded(md))
}

pub(crate) fn check(texts: &[String], secrets: &BTreeSet<Secret>) -> Result<(), TestCaseError> {
    let found = leaks(texts, secrets);
    prop_assert!(
        found.is_empty(),
        "leaked: {found:#?}\n----- rendered -----\n{}",
        texts.join("\n----- next -----\n")
    );
    Ok(())
}

pub(crate) fn render_err(e: tfgate::render::RenderError) -> TestCaseError {
    TestCaseError::fail(e.to_string())
}

pub(crate) fn annotation_texts(a: &[tfgate::model::view::AnnotationView]) -> Vec<String> {
    a.iter()
        .flat_map(|a| [a.path.clone(), a.title.clone(), a.message.clone()])
        .collect()
}

/// Everything of an apply that reaches GitHub: the comment, the check run, its annotations.
pub(crate) fn apply_published(roots: Vec<RootApply>) -> Result<Vec<String>, TestCaseError> {
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
pub(crate) fn plan_published(roots: Vec<RootPlan>) -> Result<Vec<String>, TestCaseError> {
    let comment = PlanComment {
        meta: meta(),
        repo_root_summaries: roots,
        drift_warnings: vec![],
        denials: vec![],
        notes: vec![],
        still_planning: Vec::new(),
    };
    let md = renderer().render_plan(&comment).map_err(render_err)?;
    let run = renderer().check_run_plan(&comment).map_err(render_err)?;
    let mut texts = vec![md, run.title, run.summary, run.text];
    texts.extend(annotation_texts(&annotations_for_plan(&comment)));
    Ok(texts)
}

pub(crate) fn redactor_for(secrets: &BTreeSet<Secret>) -> Redactor {
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
