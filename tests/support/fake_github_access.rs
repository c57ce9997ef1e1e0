//! The fake's App and access answers: installation tokens, a user's permission on the
//! repository, team membership.

use serde_json::json;
use wiremock::{Request, ResponseTemplate};

use super::{seg, GitHubState};

pub fn token(st: &mut GitHubState, id: i64) -> ResponseTemplate {
    st.token_requests += 1;
    let expires = chrono_like_in_one_hour();
    ResponseTemplate::new(201).set_body_json(json!({
        "token": format!("ghs_fake{id}"), "expires_at": expires,
        "permissions": {}, "repository_selection": "all"
    }))
}

pub fn permission(st: &GitHubState, req: &Request) -> ResponseTemplate {
    let user = seg(req, 4);
    let p = st
        .permissions
        .get(&user)
        .cloned()
        .unwrap_or_else(|| "read".into());
    let (permission, role) = match p.as_str() {
        "maintain" => ("write", "maintain"),
        "triage" => ("read", "triage"),
        other => (other, other),
    };
    ResponseTemplate::new(200).set_body_json(
        json!({"permission": permission, "role_name": role, "user": {"login": user}}),
    )
}

pub fn team_membership(st: &GitHubState, req: &Request) -> ResponseTemplate {
    let (team, user) = (seg(req, 3), seg(req, 5));
    if st
        .team_members
        .iter()
        .any(|(t, u)| *t == team && *u == user)
    {
        ResponseTemplate::new(200).set_body_json(json!({"state": "active", "role": "member"}))
    } else {
        ResponseTemplate::new(404).set_body_json(json!({"message": "Not Found"}))
    }
}

fn chrono_like_in_one_hour() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 3600;
    // RFC 3339 in UTC from epoch seconds (civil-from-days).
    let days = (secs / 86400) as i64;
    let rem = secs % 86400;
    let (h, m, s) = (rem / 3600, (rem % 3600) / 60, rem % 60);
    let z = days + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if mo <= 2 { y + 1 } else { y };
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{m:02}:{s:02}Z")
}
