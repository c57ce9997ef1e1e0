//! A push → which roots to plan as if the person who pushed (the delivery's `sender`, not the
//! PR's author: anyone with write access can push to a colleague's branch) had commented
//! `/plan`. Pure: the same policy decision as a comment by the pusher, forks refused unless the
//! policy allows them, the run bound to the pushed commit and to the pusher (its STS
//! SourceIdentity).

use crate::model::job::PullRequestJob;
use crate::model::job::{RunCommand, RunJob};
use crate::policy::{decide, Actor, Decision, PolicyCommand, PrFacts, RepoPolicy, Target};
use crate::project::{affected_projects, order_by_dependencies, ProjectId};

/// What a push leads to: the decision for each affected autoplan root, and the plan job.
#[derive(Debug, Clone)]
pub struct Autoplan {
    pub decisions: Vec<(ProjectId, Decision)>,
    pub job: Option<RunJob>,
}

/// Whether a pull-request event may autoplan at all.
pub fn autoplan_wanted(pr: &PullRequestJob, policy: &RepoPolicy) -> bool {
    matches!(pr.action.as_str(), "opened" | "reopened" | "synchronize")
        && (!pr.is_fork || policy.allow_fork_prs)
}

/// Decide the autoplan of a push by `pusher` (the delivery's sender, as policy sees them).
/// `facts` are read after the event; when their head is no longer the pushed commit, nothing is
/// planned (the newer push plans its own head).
pub fn autoplan(
    pr: &PullRequestJob,
    policy: &RepoPolicy,
    facts: &PrFacts,
    pusher: &Actor,
) -> Result<Autoplan, String> {
    if facts.head_sha != pr.head_sha {
        return Ok(Autoplan {
            decisions: Vec::new(),
            job: None,
        });
    }
    let specs = policy.specs();
    let decisions: Vec<(ProjectId, Decision)> = affected_projects(&facts.changes(), &specs)
        .into_iter()
        .filter(|id| policy.project(&id.0).is_some_and(|p| p.autoplan))
        .map(|id| {
            let target = Target::project(&id.0);
            let decision = decide(pusher, PolicyCommand::Plan, &target, facts, policy);
            (id, decision)
        })
        .collect();
    let selected: Vec<ProjectId> = decisions
        .iter()
        .filter(|(_, d)| d.is_allowed())
        .map(|(id, _)| id.clone())
        .collect();
    if selected.is_empty() {
        return Ok(Autoplan {
            decisions,
            job: None,
        });
    }
    let ordered = order_by_dependencies(&selected, &specs).map_err(|e| e.to_string())?;
    let job = RunJob {
        repo: pr.repo.clone(),
        number: pr.number,
        command: RunCommand::Plan,
        projects: ordered.into_iter().map(|p| p.0).collect(),
        actor: pusher.login.clone(),
        head_sha: pr.head_sha.clone(),
        plan_runs: Default::default(),
        plan_authors_checked: false,
        terraform_args: Vec::new(),
        accept_inputs: Vec::new(),
        comment_id: None,
        batch: None,
    };
    Ok(Autoplan {
        decisions,
        job: Some(job),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::RepoRef;
    use crate::policy::{load_policy, GitHubPermission};

    const POLICY: &str = "repos: [\"o/r\"]\ndefaults:\n  plan_role: arn:aws:iam::111111111111:role/plan\n  apply_role: arn:aws:iam::111111111111:role/apply\nprojects:\n  - name: app\n    dir: infra/app\n    depends_on: [network]\n  - name: network\n    dir: infra/network\n  - name: manual\n    dir: infra/manual\n    autoplan: false\n";

    fn push(head: &str, is_fork: bool) -> PullRequestJob {
        PullRequestJob {
            repo: RepoRef {
                installation_id: 1,
                owner: "o".into(),
                name: "r".into(),
            },
            number: 3,
            action: "synchronize".into(),
            head_sha: head.into(),
            head_ref: "feature".into(),
            base_ref: "main".into(),
            is_fork,
            author: "alice".into(),
            sender: "alice".into(),
            merged: false,
            before: Some("h1".into()),
        }
    }

    fn facts(head: &str) -> PrFacts {
        PrFacts {
            head_sha: head.into(),
            author: "alice".into(),
            changed_files: vec![
                "infra/app/main.tf".into(),
                "infra/network/main.tf".into(),
                "infra/manual/main.tf".into(),
            ],
            ..Default::default()
        }
    }

    fn author(permission: GitHubPermission) -> Actor {
        pusher("alice", permission)
    }

    fn pusher(login: &str, permission: GitHubPermission) -> Actor {
        Actor {
            login: login.into(),
            permission,
            teams: vec![],
            is_bot: false,
        }
    }

    #[test]
    fn plans_affected_autoplan_roots_in_order_at_the_pushed_commit() {
        let policy = load_policy("p.yaml", POLICY).unwrap();
        let a = autoplan(
            &push("h2", false),
            &policy,
            &facts("h2"),
            &author(GitHubPermission::Write),
        )
        .unwrap();
        assert_eq!(a.decisions.len(), 2, "manual has autoplan: false");
        let job = a.job.unwrap();
        assert_eq!(job.projects, vec!["network", "app"]);
        assert_eq!(job.head_sha, "h2");
        assert_eq!(job.command, RunCommand::Plan);
    }

    #[test]
    fn a_newer_head_plans_nothing() {
        let policy = load_policy("p.yaml", POLICY).unwrap();
        let a = autoplan(
            &push("h2", false),
            &policy,
            &facts("h3"),
            &author(GitHubPermission::Write),
        )
        .unwrap();
        assert!(a.job.is_none());
        assert!(a.decisions.is_empty());
    }

    #[test]
    fn denied_author_gets_decisions_but_no_job() {
        let policy = load_policy("p.yaml", POLICY).unwrap();
        let a = autoplan(
            &push("h2", false),
            &policy,
            &facts("h2"),
            &author(GitHubPermission::Read),
        )
        .unwrap();
        assert!(a.job.is_none());
        assert!(a.decisions.iter().all(|(_, d)| !d.is_allowed()));
    }

    #[test]
    fn the_pusher_is_decided_on_and_named_by_the_run() {
        let policy = load_policy(
            "p.yaml",
            &POLICY.replace(
                "projects:",
                "permissions:\n  plan:\n    users: [alice, carol]\nprojects:",
            ),
        )
        .unwrap();
        let mut by_mallory = push("h2", false);
        by_mallory.sender = "mallory".into();
        let writer = GitHubPermission::Write;
        let a = autoplan(
            &by_mallory,
            &policy,
            &facts("h2"),
            &pusher("mallory", writer),
        )
        .unwrap();
        assert!(
            a.job.is_none(),
            "mallory may not plan, whoever wrote the PR"
        );
        assert!(a.decisions.iter().all(|(_, d)| !d.is_allowed()));
        let mut by_carol = push("h2", false);
        by_carol.sender = "carol".into();
        let a = autoplan(&by_carol, &policy, &facts("h2"), &pusher("carol", writer)).unwrap();
        assert_eq!(a.job.unwrap().actor, "carol", "the run names who pushed");
    }

    #[test]
    fn forks_and_closing_events_do_not_autoplan() {
        let policy = load_policy("p.yaml", POLICY).unwrap();
        assert!(autoplan_wanted(&push("h", false), &policy));
        assert!(!autoplan_wanted(&push("h", true), &policy));
        let mut closed = push("h", false);
        closed.action = "closed".into();
        assert!(!autoplan_wanted(&closed, &policy));
    }
}
