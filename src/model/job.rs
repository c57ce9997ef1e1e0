//! Job kinds and payloads, stored as JSON in the job queue: a `comment`, `pull_request`,
//! `review`, `push` or `installation` job (a webhook, routed), a `run` job (one command over an
//! ordered list of roots of one PR, bound to the commit that was authorised), a `drift` job and a
//! `publish` job (a finished run's result, from the outbox). The wire format is what jobs
//! already queued hold: fields are only ever added, with `#[serde(default)]`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::RepoRef;

/// Kinds of work. Stored as text; the payload is JSON of the matching type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash)]
#[serde(rename_all = "snake_case")]
pub enum JobKind {
    /// A PR comment that may hold commands.
    Comment,
    /// A pull_request event (opened / reopened / synchronize / closed).
    PullRequest,
    /// A pull_request_review event.
    Review,
    /// An installation event.
    Installation,
    /// Terraform plan or apply of one or more roots.
    Run,
    /// One CloudTrail poll naming the denied action of a failed apply.
    Enrich,
    /// Post a finished run's result (comment, folded plans, check runs) from the outbox.
    Publish,
    /// A push to the policy repository's default branch (`TFGATE_POLICY_REPO`).
    Push,
    /// Drift detection of a repository's default branch (scheduled or `tfgate drift run`).
    Drift,
    /// Mark other PRs' plans of a root stale after an apply changed its state.
    MarkStale,
}

impl JobKind {
    pub const ALL: [JobKind; 10] = [
        JobKind::Comment,
        JobKind::PullRequest,
        JobKind::Review,
        JobKind::Installation,
        JobKind::Run,
        JobKind::Enrich,
        JobKind::Publish,
        JobKind::Push,
        JobKind::Drift,
        JobKind::MarkStale,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            JobKind::Comment => "comment",
            JobKind::PullRequest => "pull_request",
            JobKind::Review => "review",
            JobKind::Installation => "installation",
            JobKind::Run => "run",
            JobKind::Enrich => "enrich",
            JobKind::Publish => "publish",
            JobKind::Push => "push",
            JobKind::Drift => "drift",
            JobKind::MarkStale => "mark_stale",
        }
    }

    pub fn parse(s: &str) -> Option<JobKind> {
        JobKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// The Terraform command a run job carries out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunCommand {
    Plan,
    Apply,
}

impl RunCommand {
    pub fn name(self) -> &'static str {
        match self {
            RunCommand::Plan => "plan",
            RunCommand::Apply => "apply",
        }
    }

    pub fn parse(name: &str) -> Option<RunCommand> {
        [RunCommand::Plan, RunCommand::Apply]
            .into_iter()
            .find(|c| c.name() == name)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunJob {
    pub repo: RepoRef,
    pub number: i64,
    pub command: RunCommand,
    /// Project names, in dependency order.
    pub projects: Vec<String>,
    /// Who asked (becomes the STS SourceIdentity).
    pub actor: String,
    /// The PR head the policy decided on. The run checks out exactly this commit, and runs
    /// nothing when the PR head has moved since. Empty in jobs queued before runs were bound.
    #[serde(default)]
    pub head_sha: String,
    /// Apply only: the plan run each project applies (project name → run id), when a plan
    /// existed at authorisation; otherwise the latest plan of `head_sha`.
    #[serde(default)]
    pub plan_runs: BTreeMap<String, i64>,
    /// Apply only: the author and flags of every plan in `plan_runs` were checked when the
    /// `/apply` was authorised (`run_planner::plan_author`). False in jobs queued before that
    /// check existed: their plans count as unchecked.
    #[serde(default)]
    pub plan_authors_checked: bool,
    /// Allowlisted Terraform flags (`-target=…`; for an apply only `-lock-timeout=`).
    #[serde(default)]
    pub terraform_args: Vec<String>,
    #[serde(default)]
    pub accept_inputs: Vec<String>,
    /// The comment that asked for the run (none for autoplan), for a 😕 if the job fails.
    #[serde(default)]
    pub comment_id: Option<i64>,
    /// A part of a split `/plan`: the id of the run job that split it (its `plan_batches` row).
    /// Its roots' results update that batch's one comment; it never splits again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<i64>,
}

/// Payload of a `drift` job: check the default branch's roots of one repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriftJob {
    pub repo: RepoRef,
    /// Project names to check; empty: the policy's `drift_detection.projects`.
    #[serde(default)]
    pub projects: Vec<String>,
    /// What started it (`schedule 2026-12-05T06:00:00Z`, `tfgate drift run`), for the log.
    pub trigger: String,
}

/// Payload of a `publish` job: the outbox row to publish, and the PR it goes to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublishJob {
    pub repo: RepoRef,
    pub number: i64,
    pub publication_id: i64,
}

/// Payload of a `comment` job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommentJob {
    pub repo: RepoRef,
    pub number: i64,
    pub is_pull_request: bool,
    pub comment_id: i64,
    pub body: String,
    pub author: String,
    pub author_is_bot: bool,
    pub author_association: Option<String>,
    /// Whether anyone can read the repository (decides replies to outsiders).
    #[serde(default)]
    pub repo_is_public: bool,
}

/// Payload of a `pull_request` job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PullRequestJob {
    pub repo: RepoRef,
    pub number: i64,
    pub action: String,
    pub head_sha: String,
    pub head_ref: String,
    pub base_ref: String,
    pub is_fork: bool,
    pub author: String,
    pub sender: String,
    pub merged: bool,
    /// `synchronize`: the head before the push.
    #[serde(default)]
    pub before: Option<String>,
}

/// Payload of a `review` job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewJob {
    pub repo: RepoRef,
    pub number: i64,
    pub action: String,
    pub review_id: i64,
    pub reviewer: String,
    pub state: String,
    pub commit_id: Option<String>,
}

/// Payload of an `installation` job.
/// A push to a repository's default branch (only the policy repository's are kept).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushJob {
    pub repo: RepoRef,
    pub sha: String,
    pub default_branch: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstallationJob {
    pub installation_id: i64,
    pub action: String,
    pub account: String,
    pub sender: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Payloads as the queue stores them (field order is serde's, the struct's): each decodes,
    /// and encodes back to the same bytes, so jobs queued before a release still run after it.
    #[test]
    fn stored_payloads_decode_and_encode_byte_identical() {
        let run = r#"{"repo":{"installation_id":11,"owner":"acme","name":"infra"},"number":7,"command":"apply","projects":["net","app"],"actor":"maya","head_sha":"0123abcd","plan_runs":{"app":42,"net":41},"plan_authors_checked":true,"terraform_args":["-lock-timeout=30s"],"accept_inputs":[],"comment_id":99}"#;
        let job: RunJob = serde_json::from_str(run).expect("run job");
        assert_eq!(job.command, RunCommand::Apply);
        assert_eq!(job.plan_runs["app"], 42);
        assert_eq!(serde_json::to_string(&job).unwrap(), run);

        let comment = r#"{"repo":{"installation_id":11,"owner":"acme","name":"infra"},"number":7,"is_pull_request":true,"comment_id":5,"body":"/plan","author":"maya","author_is_bot":false,"author_association":"MEMBER","repo_is_public":false}"#;
        let job: CommentJob = serde_json::from_str(comment).expect("comment job");
        assert_eq!(serde_json::to_string(&job).unwrap(), comment);

        let pr = r#"{"repo":{"installation_id":11,"owner":"acme","name":"infra"},"number":7,"action":"synchronize","head_sha":"b","head_ref":"feature","base_ref":"main","is_fork":false,"author":"maya","sender":"maya","merged":false,"before":"a"}"#;
        let job: PullRequestJob = serde_json::from_str(pr).expect("pull_request job");
        assert_eq!(serde_json::to_string(&job).unwrap(), pr);

        let drift = r#"{"repo":{"installation_id":11,"owner":"acme","name":"infra"},"projects":[],"trigger":"tfgate drift run"}"#;
        let job: DriftJob = serde_json::from_str(drift).expect("drift job");
        assert_eq!(serde_json::to_string(&job).unwrap(), drift);

        let publish = r#"{"repo":{"installation_id":11,"owner":"acme","name":"infra"},"number":7,"publication_id":3}"#;
        let job: PublishJob = serde_json::from_str(publish).expect("publish job");
        assert_eq!(serde_json::to_string(&job).unwrap(), publish);
    }

    /// A run job queued before runs were bound to a commit (no `head_sha`, `plan_runs`, …) and a
    /// comment job from before `repo_is_public` still read, with the defaults.
    #[test]
    fn payloads_queued_by_older_releases_still_decode() {
        let run = r#"{"repo":{"installation_id":11,"owner":"acme","name":"infra"},"number":7,"command":"plan","projects":["net"],"actor":"maya"}"#;
        let job: RunJob = serde_json::from_str(run).expect("old run job");
        assert_eq!(
            (job.head_sha.as_str(), job.plan_authors_checked),
            ("", false)
        );
        assert_eq!(job.comment_id, None);
        let comment = r#"{"repo":{"installation_id":11,"owner":"acme","name":"infra"},"number":7,"is_pull_request":false,"comment_id":5,"body":"/plan","author":"maya","author_is_bot":false,"author_association":null}"#;
        let job: CommentJob = serde_json::from_str(comment).expect("old comment job");
        assert!(!job.repo_is_public);
        assert_eq!(
            serde_json::to_string(&JobKind::PullRequest).unwrap(),
            r#""pull_request""#
        );
    }
}
