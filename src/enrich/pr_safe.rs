//! Which words taken from provider text may be posted on a PR: an IAM action in its
//! `service:Action` shape, an AWS error code in its dotted-word shape, and only when redaction
//! leaves them as they are. Pure; `render::from_outcome` and [`super::view`] both ask.

use crate::redact::{Placeholders, Redactor};

/// An IAM action is posted only in its `service:Action` shape: a known IAM service prefix, and an
/// action name that is a word (not hex digits: `fe80:Abcd` is an IPv6 fragment) without a long
/// digit or capitals run (an account id or key glued to it, `GetRole123456789012`) and that no
/// redaction rule touches (a known value glued to it).
pub fn safe_action(action: Option<String>, redactor: &Redactor) -> Option<String> {
    let action = action?;
    let (svc, op) = action.split_once(':')?;
    let ok = crate::classify::is_iam_prefix(svc)
        && op.len() <= 100
        && op
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'*')
        && op.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'*')
        && op.bytes().any(|b| b == b'*' || !b.is_ascii_hexdigit())
        && (op == "*" || is_code_shaped(op.trim_end_matches('*')))
        && redactor.redact(&action, &mut Placeholders::new()) == action;
    ok.then_some(action)
}

/// An AWS error code is posted only when it looks like one and redaction leaves it as is
/// (a code word is extracted from provider text, so it is checked like any other text).
pub fn safe_code(
    code: Option<String>,
    redactor: &Redactor,
    ph: &mut Placeholders,
) -> Option<String> {
    let code = code?;
    (is_code_shaped(&code) && redactor.redact(&code, ph) == code).then_some(code)
}

/// AWS error codes are words joined by dots (`Client.UnauthorizedOperation`,
/// `InvalidAMIID.NotFound`): each dot-separated part starts with a letter, and no part holds a
/// long digit run or a long run of capitals and digits — the shapes of an account id, an IP
/// address or an access key glued into the word.
fn is_code_shaped(code: &str) -> bool {
    const MAX_DIGIT_RUN: usize = 3;
    const MAX_CAPITALS_RUN: usize = 7;
    let (mut digits, mut capitals) = (0, 0);
    code.len() <= 80
        && code.split('.').all(|part| {
            part.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
                && part.bytes().all(|b| b.is_ascii_alphanumeric())
        })
        && code.bytes().all(|b| {
            digits = if b.is_ascii_digit() { digits + 1 } else { 0 };
            capitals = if b.is_ascii_uppercase() || b.is_ascii_digit() {
                capitals + 1
            } else {
                0
            };
            digits <= MAX_DIGIT_RUN && capitals <= MAX_CAPITALS_RUN
        })
}
