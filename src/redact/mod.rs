//! Redaction of ARNs, account ids, IPs/CIDRs, keys, tokens, emails, request ids and known secret
//! values into stable placeholders (`<arn-1>`, `<cidr-2>` …). Pure. Two passes whatever the
//! number of rules: one regex for rules that may span whitespace (literal-prefixed, so it runs at
//! memchr speed), then the token rules, run only over the windows between delimiters that could
//! hold a match, each with a regex of only the rules it needs ([`windows`]).

mod built;
mod byte_masks;
mod kind;
mod patterns;
mod placeholders;
mod structured;
mod windows;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

pub use kind::Kind;
pub use placeholders::Placeholders;

use patterns::Rule;
use regex::Regex;
use std::borrow::Cow;

/// What to redact beyond the built-in rules.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RedactionConfig {
    /// Admin-supplied regexes; matches become `<redacted-n>`.
    pub extra_patterns: Vec<String>,
    /// Known secret values (sensitive outputs/variables, shared inputs); replaced literally, also
    /// in their JSON-escaped form. Values shorter than [`MIN_SECRET_LEN`] are ignored.
    pub secret_values: Vec<String>,
}

/// Shorter known secret values would redact ordinary words.
pub const MIN_SECRET_LEN: usize = 4;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RedactError {
    #[error("redaction pattern {index} is not a valid regex: {pattern}")]
    BadPattern { index: usize, pattern: String },
    #[error("redaction patterns are too large to compile together")]
    TooLarge,
}

/// A compiled set of redaction rules.
#[derive(Debug, Clone)]
pub struct Redactor {
    /// Known secrets, admin patterns, private keys, encoded messages: one named group per rule.
    spanning: Regex,
    spanning_rules: Vec<(usize, Rule)>,
    /// Token rules (no capture groups: the rule is read from the match's shape), compiled per
    /// set of rules a window needs ([`windows::window_rules`]), on first use.
    token_sets: std::sync::Arc<TokenRegexes>,
}

/// One regex per set of token rules (bit set over [`patterns::token_rules`]).
#[derive(Debug, Default)]
struct TokenRegexes {
    /// `Arc`: a cloned `Regex` would start with an empty lazy-DFA cache.
    compiled: std::sync::RwLock<std::collections::HashMap<u16, std::sync::Arc<Regex>>>,
}

impl TokenRegexes {
    fn get(&self, rules: u16) -> std::sync::Arc<Regex> {
        if let Some(re) = self.compiled.read().expect("regex cache").get(&rules) {
            return re.clone();
        }
        let chosen: Vec<(Rule, String)> = patterns::token_rules()
            .into_iter()
            .filter(|(rule, _)| rules & patterns::bit(*rule) != 0)
            .collect();
        // Built-in patterns: they compile (a test compiles every set).
        let re =
            std::sync::Arc::new(combine(&chosen, false).expect("built-in token rules compile"));
        self.compiled
            .write()
            .expect("regex cache")
            .insert(rules, re.clone());
        re
    }
}

impl Redactor {
    /// The redactor for `config`. Built once per configuration in a process (a policy version:
    /// its patterns and shared-input values) and shared after that, with the token regexes it
    /// compiled so far: a run no longer compiles the rules again ([`built`]).
    pub fn new(config: &RedactionConfig) -> Result<Redactor, RedactError> {
        built::get_or_build(config, Redactor::build)
    }

    fn build(config: &RedactionConfig) -> Result<Redactor, RedactError> {
        let mut spanning: Vec<(Rule, String)> = Vec::new();
        let mut secrets: Vec<String> = Vec::new();
        for value in &config.secret_values {
            if value.trim().chars().count() < MIN_SECRET_LEN {
                continue;
            }
            secrets.extend(
                transformed_forms(value)
                    .iter()
                    .flat_map(|v| written_forms(v)),
            );
        }
        // Longest first, so a value containing another is replaced whole.
        secrets.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        secrets.dedup();
        if !secrets.is_empty() {
            let alternation: Vec<String> = secrets.iter().map(|s| regex::escape(s)).collect();
            spanning.push((Rule::KnownSecret, alternation.join("|")));
        }
        for (index, pattern) in config.extra_patterns.iter().enumerate() {
            Regex::new(pattern).map_err(|_| RedactError::BadPattern {
                index,
                pattern: pattern.clone(),
            })?;
            spanning.push((Rule::Admin, pattern.clone()));
        }
        spanning.extend(patterns::spanning());
        let spanning_re = combine(&spanning, true)?;
        Ok(Redactor {
            spanning_rules: group_indices(&spanning_re, &spanning),
            spanning: spanning_re,
            token_sets: Default::default(),
        })
    }

    /// Replaces every sensitive value in `text` with its placeholder.
    pub fn redact(&self, text: &str, ph: &mut Placeholders) -> String {
        let mut out = String::new();
        self.redact_into(text, ph, &mut out);
        out
    }

    /// [`Self::redact`] into `out` (cleared first), reusing its allocation: for redacting a
    /// stream chunk by chunk.
    pub fn redact_into(&self, text: &str, ph: &mut Placeholders, out: &mut String) {
        let first = self.redact_spanning(text, ph);
        let mut output = Output::with_buffer(&first, std::mem::take(out));
        self.redact_tokens_into(&first, &mut output, ph);
        *out = output.into_string();
    }

    fn redact_spanning<'t>(&self, text: &'t str, ph: &mut Placeholders) -> Cow<'t, str> {
        let mut out = Output::new(text);
        let mut locs = self.spanning.capture_locations();
        let mut pos = 0;
        while pos <= text.len() {
            let Some(whole) = self.spanning.captures_read_at(&mut locs, text, pos) else {
                break;
            };
            let rule = rule_of(&locs, &self.spanning_rules);
            match patterns::accept(rule, text, whole.start(), whole.end()) {
                Some(span) if whole.end() > whole.start() => {
                    out.emit(span, rule, ph);
                    pos = whole.end();
                }
                _ => pos = next_char(text, whole.start()),
            }
        }
        out.finish()
    }

    #[cfg(test)]
    fn redact_tokens<'t>(&self, text: &'t str, ph: &mut Placeholders) -> Cow<'t, str> {
        let mut out = Output::new(text);
        self.redact_tokens_into(text, &mut out, ph);
        out.finish()
    }

    fn redact_tokens_into(&self, text: &str, out: &mut Output<'_>, ph: &mut Placeholders) {
        for window in windows::windows_needing_rules(text.as_bytes()) {
            self.scan_window(text, window.start, window.end, window.rules, out, ph);
        }
    }

    /// The reference for [`Self::redact_tokens`]: every token rule over every
    /// whitespace-delimited token.
    #[cfg(test)]
    fn redact_tokens_on_every_token<'t>(
        &self,
        text: &'t str,
        ph: &mut Placeholders,
    ) -> Cow<'t, str> {
        let all_rules = patterns::token_rules()
            .iter()
            .fold(0, |set, (rule, _)| set | patterns::bit(*rule));
        let bytes = text.as_bytes();
        let mut out = Output::new(text);
        let mut i = 0;
        while i < bytes.len() {
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            let start = i;
            while i < bytes.len() && !bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            if i > start {
                self.scan_window(text, start, i, all_rules, &mut out, ph);
            }
        }
        out.finish()
    }

    /// Runs the token `rules` over `text[from..until]` (a window without delimiters). A long token
    /// that is not a secret is searched again, without the long-token rule: it may still hold an
    /// id or an address.
    fn scan_window(
        &self,
        text: &str,
        from: usize,
        until: usize,
        rules: u16,
        out: &mut Output<'_>,
        ph: &mut Placeholders,
    ) {
        let regex = self.token_sets.get(rules);
        let window = &text[..until];
        let mut pos = from;
        while pos < until {
            let Some(m) = regex.find_at(window, pos) else {
                break;
            };
            let escape = patterns::escape_tail(text.as_bytes(), m.start());
            let after = m.start() + escape;
            let value_after_escape = |n: regex::Match<'_>| {
                let end = patterns::extend(text, n.start(), n.end(), until);
                let rule = patterns::token_rule_of(&text[n.start()..end]);
                n.start() == after && patterns::accept(rule, text, n.start(), end).is_some()
            };
            if escape > 0 && regex.find_at(window, after).is_some_and(value_after_escape) {
                // `\nKEY`, `\u0026eyJ…`: the escape's letters begin no value; the value starts
                // after them. (When no value starts there, the match is taken as it is: text that
                // only looks escaped, like `\u00a0@example.com` or `\f00a…` of a UUID, is still
                // redacted.)
                pos = after;
                continue;
            }
            let end = patterns::extend(text, m.start(), m.end(), until);
            let rule = patterns::token_rule_of(&text[m.start()..end]);
            if let Some(value) = (rule == Rule::Token)
                .then(|| patterns::assignment_value_start(&text[m.start()..end]))
                .flatten()
            {
                // `KEY=value`: the key may hold an id; the value is judged on its own.
                let inner = rules & !patterns::bit(Rule::Token);
                if inner != 0 {
                    self.scan_window(text, m.start(), m.start() + value - 1, inner, out, ph);
                }
                pos = m.start() + value;
                continue;
            }
            match patterns::accept(rule, text, m.start(), end) {
                Some(span) => {
                    out.emit(span, rule, ph);
                    pos = end;
                }
                None if rule == Rule::Token => {
                    let inner = rules & !patterns::bit(Rule::Token);
                    if inner != 0 {
                        self.scan_window(text, m.start() + 1, end, inner, out, ph);
                    }
                    pos = end;
                }
                None => pos = next_char(text, m.start()),
            }
        }
    }

    /// Redacts the instance keys of a Terraform address (`aws_x.y["203.0.113.7/32"]` →
    /// `aws_x.y["<cidr-1>"]`); names stay readable.
    pub fn redact_address(&self, address: &str, ph: &mut Placeholders) -> String {
        structured::redact_address(self, address, ph)
    }

    /// Redacts every string (and object key) in a JSON value; a 12-digit number that is an
    /// account id becomes its placeholder string.
    pub fn redact_json(
        &self,
        value: &serde_json::Value,
        ph: &mut Placeholders,
    ) -> serde_json::Value {
        structured::redact_json(self, value, ph)
    }
}

/// A known value and what Terraform functions commonly make of it before it reaches an
/// attribute: `lower()`, `upper()`, `base64encode()` (and the URL-safe alphabet, with and
/// without padding).
fn transformed_forms(value: &str) -> Vec<String> {
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
    use base64::Engine;
    let mut forms = vec![
        value.to_string(),
        value.to_lowercase(),
        value.to_uppercase(),
    ];
    for engine in [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD] {
        forms.push(engine.encode(value.as_bytes()));
    }
    forms.sort();
    forms.dedup();
    forms
}

/// Every form in which Terraform or Go may print a known value: as is, HCL-escaped (`$${`, `%%{`
/// in instance keys and config), JSON-escaped, and Go-JSON-escaped (`\u003c`, `\u003e`,
/// `\u0026`).
fn written_forms(value: &str) -> Vec<String> {
    let hcl = value.replace("${", "$${").replace("%{", "%%{");
    let mut forms = vec![value.to_string()];
    for plain in [value.to_string(), hcl] {
        let json = serde_json::to_string(&plain).expect("a string serializes");
        let json = json[1..json.len() - 1].to_string();
        let go_json = json
            .replace('<', "\\u003c")
            .replace('>', "\\u003e")
            .replace('&', "\\u0026");
        forms.extend([plain, json, go_json]);
    }
    forms.sort();
    forms.dedup();
    forms
}

/// The redacted copy of a text under construction.
struct Output<'t> {
    text: &'t str,
    out: String,
    /// `text[..copied]` is already in `out`.
    copied: usize,
}

impl<'t> Output<'t> {
    fn new(text: &'t str) -> Self {
        Self::with_buffer(text, String::new())
    }

    fn emit(&mut self, span: (usize, usize), rule: Rule, ph: &mut Placeholders) {
        let (start, end) = span;
        if start < self.copied || start >= end {
            return;
        }
        let value = &self.text[start..end];
        if is_placeholder(value) {
            return;
        }
        if self.out.is_empty() {
            self.out.reserve(self.text.len() + 64);
        }
        self.out.push_str(&self.text[self.copied..start]);
        let numbered = patterns::placeholder_value(rule, value);
        ph.push_placeholder(patterns::kind_of(rule, value), &numbered, &mut self.out);
        self.copied = end;
    }

    /// An output that writes into `buffer` (its content is dropped, its capacity kept).
    fn with_buffer(text: &'t str, mut buffer: String) -> Self {
        buffer.clear();
        Output {
            text,
            out: buffer,
            copied: 0,
        }
    }

    /// The redacted text as an owned string (in the buffer given, if any).
    fn into_string(mut self) -> String {
        self.out.push_str(&self.text[self.copied..]);
        self.out
    }

    fn finish(self) -> Cow<'t, str> {
        if self.copied == 0 {
            return Cow::Borrowed(self.text);
        }
        Cow::Owned(self.into_string())
    }
}

fn combine(rules: &[(Rule, String)], named: bool) -> Result<Regex, RedactError> {
    let joined: Vec<String> = rules
        .iter()
        .enumerate()
        .map(|(i, (_, p))| {
            if named {
                format!("(?P<p{i}>{p})")
            } else {
                format!("(?:{p})")
            }
        })
        .collect();
    regex::RegexBuilder::new(&joined.join("|"))
        .size_limit(64 << 20)
        .dfa_size_limit(64 << 20)
        .build()
        .map_err(|_| RedactError::TooLarge)
}

/// Each rule's capture group index (admin patterns may bring groups of their own).
fn group_indices(re: &Regex, rules: &[(Rule, String)]) -> Vec<(usize, Rule)> {
    let names: Vec<Option<&str>> = re.capture_names().collect();
    rules
        .iter()
        .enumerate()
        .map(|(i, (rule, _))| {
            let name = format!("p{i}");
            let index = names
                .iter()
                .position(|n| *n == Some(name.as_str()))
                .expect("named group exists");
            (index, *rule)
        })
        .collect()
}

fn rule_of(locs: &regex::CaptureLocations, rules: &[(usize, Rule)]) -> Rule {
    rules
        .iter()
        .find(|(index, _)| locs.get(*index).is_some())
        .map(|(_, rule)| *rule)
        .unwrap_or(Rule::Admin)
}

/// Redacting twice must change nothing: an admin pattern matching our own placeholder is ignored.
fn is_placeholder(s: &str) -> bool {
    let Some(inner) = s.strip_prefix('<').and_then(|s| s.strip_suffix('>')) else {
        return false;
    };
    let Some((prefix, n)) = inner.rsplit_once('-') else {
        return false;
    };
    Kind::ALL.iter().any(|k| k.prefix() == prefix)
        && !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_digit())
}

fn next_char(text: &str, at: usize) -> usize {
    at + text[at..].chars().next().map_or(1, char::len_utf8)
}
