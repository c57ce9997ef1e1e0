//! From a request's session to a [`Viewer`]: the person's admin teams and readable
//! repositories, asked of GitHub with their own token and remembered for a minute, so a
//! page load costs at most one call per repository shown.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use super::access::{admin_files, admin_teams, Viewer};
use super::oauth::UserApi;
use super::session::UiSession;
use crate::policy::PolicySet;
use crate::state::AppState;

/// How long a "can read" or "is a member" answer is reused.
const CACHE_FOR: Duration = Duration::from_secs(60);

type Key = (String, String, String);

fn cache() -> &'static Mutex<HashMap<Key, (bool, Instant)>> {
    static CACHE: OnceLock<Mutex<HashMap<Key, (bool, Instant)>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

fn cached(key: &Key) -> Option<bool> {
    let map = cache().lock().expect("viewer cache");
    map.get(key)
        .filter(|(_, at)| at.elapsed() < CACHE_FOR)
        .map(|(answer, _)| *answer)
}

fn remember(key: Key, answer: bool) {
    let mut map = cache().lock().expect("viewer cache");
    if map.len() > 10_000 {
        map.retain(|_, (_, at)| at.elapsed() < CACHE_FOR);
    }
    map.insert(key, (answer, Instant::now()));
}

/// Asks GitHub (or the cache) one yes/no question about the session's person.
async fn ask<F, Fut>(state: &AppState, s: &UiSession, what: String, call: F) -> bool
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<bool>>,
{
    let key = (state.config.github_api_url.clone(), s.login.clone(), what);
    if let Some(answer) = cached(&key) {
        return answer;
    }
    match call().await {
        Ok(answer) => {
            remember(key, answer);
            answer
        }
        Err(e) => {
            // Not cached: the next page asks again. Meanwhile the person sees less, not more.
            tracing::warn!(login = %s.login, error = %format!("{e:#}"), "ui: a GitHub access check failed");
            false
        }
    }
}

/// The viewer of `session`, with read access checked for `repos` (the repositories the page
/// would show).
pub async fn viewer(
    state: &AppState,
    s: &UiSession,
    policies: &PolicySet,
    repos: &BTreeSet<String>,
) -> Viewer {
    let api = UserApi::of(state);
    let mut member_of = BTreeSet::new();
    for team in admin_teams(policies.policies()) {
        let Some((org, slug)) = team.split_once('/') else {
            continue;
        };
        let is_member = ask(state, s, format!("team {team}"), || {
            api.team_member(&s.token, org, slug, &s.login)
        })
        .await;
        if is_member {
            member_of.insert(team.clone());
        }
    }
    let mut v = Viewer {
        login: s.login.clone(),
        admin_files: admin_files(&s.login, &member_of, policies.policies()),
        readable: BTreeSet::new(),
    };
    for repo in repos {
        if v.is_admin_of(policies, repo) {
            continue;
        }
        let readable = ask(
            state,
            s,
            format!("read {}", repo.to_ascii_lowercase()),
            || api.can_read(&s.token, repo),
        )
        .await;
        if readable {
            v.readable.insert(repo.to_ascii_lowercase());
        }
    }
    v
}
