//! The hidden marker at the end of every tfgate comment:
//! `<!-- tfgate:kind=plan:pr=12:root=all:run=r-42 -->`.
//!
//! The bot finds its older comments by it (to minimise a superseded plan). Values are
//! percent-encoded so a root key can never contain `:` or end the HTML comment.

use serde::Serialize;

const PREFIX: &str = "<!-- tfgate:";
const SUFFIX: &str = " -->";

/// What a comment is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CommentKind {
    Plan,
    Apply,
    LockHeld,
    PlanStale,
    CommandRejected,
    PolicyDenied,
    NotEnabled,
    Interrupted,
    Help,
    InternalError,
    LocksReleased,
    CancelReport,
    InputsReport,
    LayoutProblems,
    NotAPullRequest,
    NoAffectedRoot,
    ProjectsGone,
    InputDriftRefused,
    HeadMoved,
    JobFailed,
    RootBusy,
    Outsider,
    RateLimited,
    MoreRejected,
    ApplyInterrupted,
    AffectedRootsIncomplete,
    PlanSpent,
    PlanAuthorRefused,
    DeployAck,
    MergedUnapplied,
    PolicyBlocked,
    PolicyApproval,
}

impl CommentKind {
    pub const ALL: [CommentKind; 32] = [
        CommentKind::Plan,
        CommentKind::Apply,
        CommentKind::LockHeld,
        CommentKind::PlanStale,
        CommentKind::CommandRejected,
        CommentKind::PolicyDenied,
        CommentKind::NotEnabled,
        CommentKind::Interrupted,
        CommentKind::Help,
        CommentKind::InternalError,
        CommentKind::LocksReleased,
        CommentKind::CancelReport,
        CommentKind::InputsReport,
        CommentKind::LayoutProblems,
        CommentKind::NotAPullRequest,
        CommentKind::NoAffectedRoot,
        CommentKind::ProjectsGone,
        CommentKind::InputDriftRefused,
        CommentKind::HeadMoved,
        CommentKind::JobFailed,
        CommentKind::RootBusy,
        CommentKind::Outsider,
        CommentKind::RateLimited,
        CommentKind::MoreRejected,
        CommentKind::ApplyInterrupted,
        CommentKind::AffectedRootsIncomplete,
        CommentKind::PlanSpent,
        CommentKind::PlanAuthorRefused,
        CommentKind::DeployAck,
        CommentKind::MergedUnapplied,
        CommentKind::PolicyBlocked,
        CommentKind::PolicyApproval,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            CommentKind::Plan => "plan",
            CommentKind::Apply => "apply",
            CommentKind::LockHeld => "lock_held",
            CommentKind::PlanStale => "plan_stale",
            CommentKind::CommandRejected => "command_rejected",
            CommentKind::PolicyDenied => "policy_denied",
            CommentKind::NotEnabled => "not_enabled",
            CommentKind::Interrupted => "interrupted",
            CommentKind::Help => "help",
            CommentKind::InternalError => "internal_error",
            CommentKind::LocksReleased => "locks_released",
            CommentKind::CancelReport => "cancel_report",
            CommentKind::InputsReport => "inputs_report",
            CommentKind::LayoutProblems => "layout_problems",
            CommentKind::NotAPullRequest => "not_a_pull_request",
            CommentKind::NoAffectedRoot => "no_affected_root",
            CommentKind::ProjectsGone => "projects_gone",
            CommentKind::InputDriftRefused => "input_drift_refused",
            CommentKind::HeadMoved => "head_moved",
            CommentKind::JobFailed => "job_failed",
            CommentKind::RootBusy => "root_busy",
            CommentKind::Outsider => "outsider",
            CommentKind::RateLimited => "rate_limited",
            CommentKind::MoreRejected => "more_rejected",
            CommentKind::ApplyInterrupted => "apply_interrupted",
            CommentKind::AffectedRootsIncomplete => "affected_roots_incomplete",
            CommentKind::PlanSpent => "plan_spent",
            CommentKind::PlanAuthorRefused => "plan_author_refused",
            CommentKind::DeployAck => "deploy_ack",
            CommentKind::MergedUnapplied => "merged_unapplied",
            CommentKind::PolicyBlocked => "policy_blocked",
            CommentKind::PolicyApproval => "policy_approval",
        }
    }

    pub fn parse(s: &str) -> Option<CommentKind> {
        CommentKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// Which comment slot a marker identifies, besides kind and PR.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MarkerKey {
    /// e.g. `all` or `project/dir/workspace`.
    pub root: String,
    pub run: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Marker {
    pub kind: CommentKind,
    pub pr: u64,
    pub key: MarkerKey,
}

/// Builds the hidden marker line.
pub fn marker(kind: CommentKind, pr: u64, key: &MarkerKey) -> String {
    format!(
        "{PREFIX}kind={}:pr={pr}:root={}:run={}{SUFFIX}",
        kind.as_str(),
        encode(&key.root),
        encode(&key.run)
    )
}

/// Finds the first well-formed tfgate marker in a comment body.
pub fn parse_marker(body: &str) -> Option<Marker> {
    let mut rest = body;
    while let Some(start) = rest.find(PREFIX) {
        let after = &rest[start + PREFIX.len()..];
        if let Some(end) = after.find(SUFFIX) {
            if let Some(found) = parse_fields(&after[..end]) {
                return Some(found);
            }
        }
        rest = after;
    }
    None
}

fn parse_fields(fields: &str) -> Option<Marker> {
    let mut parts = fields.split(':');
    let kind = CommentKind::parse(parts.next()?.strip_prefix("kind=")?)?;
    let pr = parts.next()?.strip_prefix("pr=")?.parse().ok()?;
    let root = decode(parts.next()?.strip_prefix("root=")?)?;
    let run = decode(parts.next()?.strip_prefix("run=")?)?;
    if parts.next().is_some() {
        return None;
    }
    Some(Marker {
        kind,
        pr,
        key: MarkerKey { root, run },
    })
}

fn is_plain(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b'/' | b'+' | b',' | b'=')
}

fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if is_plain(b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn decode(value: &str) -> Option<String> {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = value.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(root: &str, run: &str) -> MarkerKey {
        MarkerKey {
            root: root.into(),
            run: run.into(),
        }
    }

    #[test]
    fn marker_has_the_documented_shape() {
        assert_eq!(
            marker(CommentKind::Plan, 12, &key("all", "r-42")),
            "<!-- tfgate:kind=plan:pr=12:root=all:run=r-42 -->"
        );
        assert_eq!(
            marker(CommentKind::Apply, 7, &key("eks/infra/eks:default", "9")),
            "<!-- tfgate:kind=apply:pr=7:root=eks/infra/eks%3Adefault:run=9 -->"
        );
    }

    #[test]
    fn hostile_root_cannot_end_the_comment() {
        let m = marker(CommentKind::Plan, 1, &key("x --> <b>@you</b>", "r"));
        assert_eq!(m.matches("-->").count(), 1);
        let inner = &m[PREFIX.len()..m.len() - SUFFIX.len()];
        assert!(!inner.contains(['<', '>', '@', ' ']), "{inner}");
    }

    #[test]
    fn parse_finds_marker_inside_a_body_and_skips_lookalikes() {
        let body = format!(
            "## Plan\ntext <!-- tfgate:kind=bogus:pr=1 -->\n{}\n",
            marker(CommentKind::Plan, 5, &key("all", "abc"))
        );
        assert_eq!(
            parse_marker(&body),
            Some(Marker {
                kind: CommentKind::Plan,
                pr: 5,
                key: key("all", "abc"),
            })
        );
        assert_eq!(parse_marker("no marker here"), None);
        assert_eq!(
            parse_marker("<!-- tfgate:kind=plan:pr=x:root=a:run=b -->"),
            None
        );
        assert_eq!(
            parse_marker("<!-- tfgate:kind=plan:pr=1:root=a:run=b:extra=1 -->"),
            None
        );
        assert_eq!(
            parse_marker("<!-- tfgate:kind=plan:pr=1:root=%zz:run=b -->"),
            None
        );
    }

    #[test]
    fn every_kind_round_trips_by_name() {
        for kind in CommentKind::ALL {
            assert_eq!(CommentKind::parse(kind.as_str()), Some(kind));
        }
    }

    proptest::proptest! {
        #[test]
        fn marker_round_trips(kind_index in 0usize..CommentKind::ALL.len(), pr in proptest::num::u64::ANY, root in "\\PC{0,40}", run in "\\PC{0,20}") {
            let kind = CommentKind::ALL[kind_index];
            let k = key(&root, &run);
            let text = marker(kind, pr, &k);
            proptest::prop_assert_eq!(parse_marker(&text), Some(Marker { kind, pr, key: k }));
        }
    }
}
