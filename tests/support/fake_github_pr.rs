//! The fake's pull-request reads: the PR, its changed files, paginated lists (reviews, check
//! runs, the PR's commits), the base/head comparison and the repository itself.

use serde_json::{json, Value};
use wiremock::{Request, ResponseTemplate};

use super::{seg, GitHubState};

/// One commit of the PR: the GitHub logins matched to its author and committer (`None`: the
/// email matches no GitHub user).
#[derive(Debug, Clone, Default)]
pub struct FakeCommit {
    pub author: Option<String>,
    pub committer: Option<String>,
}

/// The page asked for (`page`, `per_page`; GitHub's defaults 1 and 30).
pub fn page_of<T: Clone>(req: &Request, items: &[T]) -> Vec<T> {
    let query = |name: &str, default: usize| {
        req.url
            .query_pairs()
            .find(|(k, _)| k == name)
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(default)
    };
    let (page, per_page) = (query("page", 1).max(1), query("per_page", 30).min(100));
    items
        .iter()
        .skip((page - 1) * per_page)
        .take(per_page)
        .cloned()
        .collect()
}

pub fn reviews(st: &GitHubState, req: &Request) -> ResponseTemplate {
    let list: Vec<Value> = st
        .reviews
        .iter()
        .enumerate()
        .map(|(i, r)| {
            json!({
                "id": i + 1, "state": r.state, "commit_id": r.commit_id,
                "user": {"login": r.user, "type": if r.is_bot { "Bot" } else { "User" }}
            })
        })
        .collect();
    ResponseTemplate::new(200).set_body_json(page_of(req, &list))
}

pub fn check_runs(st: &GitHubState, req: &Request) -> ResponseTemplate {
    let head = st.pr.head_sha.clone();
    let plain = st
        .check_runs
        .iter()
        .map(|(n, c)| (n.clone(), c.clone(), "github-actions".to_string()));
    let runs: Vec<Value> = plain
        .chain(st.app_check_runs.iter().cloned())
        .map(|(name, conclusion, app)| {
            json!({"name": name, "conclusion": conclusion, "head_sha": head,
                   "status": "completed", "app": {"slug": app}})
        })
        .collect();
    ResponseTemplate::new(200)
        .set_body_json(json!({"total_count": runs.len(), "check_runs": page_of(req, &runs)}))
}

/// GitHub lists at most this many commits of a PR (the PR itself reports how many it has).
pub const MAX_LISTED_COMMITS: usize = 250;

pub fn commits(st: &GitHubState, req: &Request) -> ResponseTemplate {
    let user = |login: &Option<String>| login.as_ref().map(|l| json!({"login": l, "type": "User"}));
    let list: Vec<Value> = st
        .commits
        .iter()
        .take(MAX_LISTED_COMMITS)
        .enumerate()
        .map(|(i, c)| {
            json!({
                "sha": format!("{:040x}", i + 1),
                "commit": {"message": "change", "author": {"name": "x", "email": "x@example.com"}},
                "author": user(&c.author), "committer": user(&c.committer)
            })
        })
        .collect();
    ResponseTemplate::new(200).set_body_json(page_of(req, &list))
}

pub fn compare(st: &mut GitHubState, req: &Request) -> ResponseTemplate {
    let basehead = req
        .url
        .path()
        .splitn(6, "/")
        .nth(5)
        .unwrap_or("")
        .to_string();
    st.compare_requests.push(basehead);
    let behind = st.pr.behind_by;
    let status = if behind == 0 { "ahead" } else { "diverged" };
    ResponseTemplate::new(200).set_body_json(json!({
        "status": status, "ahead_by": 1, "behind_by": behind, "total_commits": 1,
        "commits": [], "files": []
    }))
}

pub fn repository(st: &GitHubState) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "id": 1, "name": "Hello-World", "full_name": "Codertocat/Hello-World",
        "default_branch": st.pr.default_branch, "private": false
    }))
}

/// The PR's mergeability on this read: the next queued value, else the PR's own.
pub fn mergeable_now(st: &mut GitHubState) -> Option<bool> {
    st.pr_reads += 1;
    st.mergeable_reads.pop_front().unwrap_or(st.pr.mergeable)
}

pub fn pull_request(st: &mut GitHubState, req: &Request) -> ResponseTemplate {
    let mergeable = mergeable_now(st);
    let pr = &st.pr;
    ResponseTemplate::new(200).set_body_json(json!({
        "number": seg(req, 4).parse::<i64>().unwrap_or(1), "state": pr.state,
        "merged": pr.merged,
        "user": {"login": pr.author, "type": "User"},
        "head": {"sha": pr.head_sha, "ref": "feature", "repo": {"full_name": pr.head_repo}},
        "base": {"sha": "b".repeat(40), "ref": pr.base_ref, "repo": {"full_name": "Codertocat/Hello-World", "default_branch": pr.default_branch}},
        "mergeable": mergeable, "mergeable_state": pr.mergeable_state,
        "commits": st.commits.len()
    }))
}

/// The PR's changed files, 100 a page.
pub fn files(st: &GitHubState, req: &Request) -> ResponseTemplate {
    let page: usize = req
        .url
        .query_pairs()
        .find(|(k, _)| k == "page")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(1);
    let list: Vec<Value> = st
        .files
        .iter()
        .skip((page - 1) * 100)
        .take(100)
        .map(|f| json!({"filename": f, "status": "modified"}))
        .collect();
    ResponseTemplate::new(200).set_body_json(list)
}
