//! What one `pull_request` delivery leads to, decided from its action and the repository's
//! policy: the admin repository's policy check, the deploy preview, autoplan, the
//! `tfgate/apply` check (of the new head, or of the merge), releasing a closed PR's locks and
//! queued runs, and whether the PR must be read (once, shared by autoplan and the check).

/// The delivery and the policy, as far as the decision needs them.
#[derive(Debug, Clone, Copy)]
pub struct PrEvent<'a> {
    pub action: &'a str,
    pub merged: bool,
    /// The repository is the admin repository (`TFGATE_POLICY_REPO`).
    pub policy_repo: bool,
    /// The repository has a policy.
    pub has_policy: bool,
    /// The policy names `gitops` folders.
    pub gitops: bool,
    /// `run_planner::autoplan::autoplan_wanted`, and a GitHub App is configured.
    pub autoplan: bool,
    /// The policy sets `require_apply_before_merge`.
    pub apply_check: bool,
}

/// Which `tfgate/apply` step the delivery takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApplyCheckStep {
    /// The check of the (new) head.
    OnPush,
    /// A merged PR: tell it which roots it left unapplied.
    OnMerge,
}

/// The steps, in the order the worker carries them out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PrEventSteps {
    /// The admin repository: check its policies at the head (and nothing else, no audit).
    pub policy_check: bool,
    /// The `tfgate/deploy` preview of the head.
    pub deploy_preview: bool,
    /// Read the PR snapshot (facts, layout, changes) once for autoplan and the check.
    pub read_pr: bool,
    pub autoplan: bool,
    pub apply_check: Option<ApplyCheckStep>,
    /// Release the PR's locks and drop its queued runs.
    pub release: bool,
    /// Record the delivery in the audit log.
    pub audit: bool,
}

pub fn pr_event_steps(e: PrEvent<'_>) -> PrEventSteps {
    let closed = e.action == "closed";
    if e.policy_repo {
        return PrEventSteps {
            policy_check: !closed,
            ..PrEventSteps::default()
        };
    }
    let apply_check = match (e.has_policy && e.apply_check, closed, e.merged) {
        (false, _, _) => None,
        (true, false, _) => Some(ApplyCheckStep::OnPush),
        (true, true, true) => Some(ApplyCheckStep::OnMerge),
        (true, true, false) => None,
    };
    let autoplan = e.has_policy && e.autoplan;
    PrEventSteps {
        policy_check: false,
        deploy_preview: !closed && e.has_policy && e.gitops,
        read_pr: autoplan || apply_check.is_some(),
        autoplan,
        apply_check,
        release: closed,
        audit: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(action: &str) -> PrEvent<'_> {
        PrEvent {
            action,
            merged: false,
            policy_repo: false,
            has_policy: true,
            gitops: false,
            autoplan: false,
            apply_check: false,
        }
    }

    fn steps() -> PrEventSteps {
        PrEventSteps {
            audit: true,
            ..PrEventSteps::default()
        }
    }

    #[test]
    fn each_delivery_leads_to_its_steps() {
        let push = PrEvent {
            autoplan: true,
            apply_check: true,
            gitops: true,
            ..event("synchronize")
        };
        let merged = PrEvent {
            merged: true,
            apply_check: true,
            ..event("closed")
        };
        let table = [
            (
                "the admin repository: its policy check only",
                PrEvent {
                    policy_repo: true,
                    ..push
                },
                PrEventSteps {
                    policy_check: true,
                    ..PrEventSteps::default()
                },
            ),
            (
                "the admin repository's PR closed: nothing",
                PrEvent {
                    policy_repo: true,
                    ..merged
                },
                PrEventSteps::default(),
            ),
            (
                "a push: preview, one read for autoplan and the check",
                push,
                PrEventSteps {
                    deploy_preview: true,
                    read_pr: true,
                    autoplan: true,
                    apply_check: Some(ApplyCheckStep::OnPush),
                    ..steps()
                },
            ),
            (
                "a push without gitops, autoplan or check: no read",
                event("synchronize"),
                steps(),
            ),
            (
                "the check alone still reads the PR",
                PrEvent {
                    apply_check: true,
                    ..event("edited")
                },
                PrEventSteps {
                    read_pr: true,
                    apply_check: Some(ApplyCheckStep::OnPush),
                    ..steps()
                },
            ),
            (
                "a merge: the merge check, then release",
                merged,
                PrEventSteps {
                    read_pr: true,
                    apply_check: Some(ApplyCheckStep::OnMerge),
                    release: true,
                    ..steps()
                },
            ),
            (
                "closed unmerged: release only",
                PrEvent {
                    merged: false,
                    gitops: true,
                    ..merged
                },
                PrEventSteps {
                    release: true,
                    ..steps()
                },
            ),
            (
                "no policy: audit only",
                PrEvent {
                    has_policy: false,
                    ..push
                },
                steps(),
            ),
        ];
        for (name, e, want) in table {
            assert_eq!(pr_event_steps(e), want, "{name}");
        }
    }
}
