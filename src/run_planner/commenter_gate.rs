//! Before tfgate does any work for a comment: is the commenter someone the policy lets run a
//! command at all, and within their hourly limit? Decided from one permission look-up, so
//! nobody outside the fence can make tfgate gather facts or post replies at will. Pure.

use crate::policy::{GitHubPermission, RepoPolicy};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommenterGate {
    /// React, reply and authorize as usual.
    Proceed,
    /// The commenter may run no command here: one short reply naming the permission needed,
    /// or none.
    Outsider {
        reply: bool,
        needed: GitHubPermission,
    },
    /// The commenter ran `limit` commands in the last hour.
    RateLimited { limit: u32 },
}

/// What the gate is decided on.
#[derive(Debug, Clone, Copy)]
pub struct GateFacts {
    /// The commenter's permission on the repository.
    pub permission: GitHubPermission,
    pub repo_is_public: bool,
    /// Commands the commenter ran on the repository in the last hour.
    pub commands_last_hour: i64,
    /// Commands this comment holds.
    pub commands_now: usize,
}

/// The lowest repository permission with which any command may be allowed.
pub fn lowest_command_permission(policy: &RepoPolicy) -> GitHubPermission {
    let project_sides = policy.projects.iter().map(|p| &p.permissions);
    std::iter::once(&policy.permissions)
        .chain(project_sides)
        .flat_map(|perms| [perms.plan.min_permission, perms.apply.min_permission])
        .min()
        .unwrap_or(GitHubPermission::Admin)
}

pub fn comment_gate(policy: &RepoPolicy, facts: GateFacts) -> CommenterGate {
    let needed = lowest_command_permission(policy);
    if facts.permission < needed {
        let reply = policy.reply_to_outsiders.unwrap_or(!facts.repo_is_public);
        return CommenterGate::Outsider { reply, needed };
    }
    let limit = policy.commands_per_hour;
    let total = facts.commands_last_hour + facts.commands_now as i64;
    if limit > 0 && facts.commands_now > 0 && total > i64::from(limit) {
        return CommenterGate::RateLimited { limit };
    }
    CommenterGate::Proceed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::load_policy;
    use GitHubPermission::*;

    const POLICY: &str = "repos: [\"o/r\"]\ndefaults:\n  plan_role: arn:aws:iam::111111111111:role/plan\n  apply_role: arn:aws:iam::111111111111:role/apply\npermissions:\n  plan:\n    min_permission: write\nprojects:\n  - name: app\n    dir: infra/app\n  - name: docs\n    dir: infra/docs\n    permissions:\n      plan:\n        min_permission: triage\n";

    fn gate(
        policy: &str,
        permission: GitHubPermission,
        public: bool,
        last_hour: i64,
        now: usize,
    ) -> CommenterGate {
        let policy = load_policy("p.yaml", policy).unwrap();
        comment_gate(
            &policy,
            GateFacts {
                permission,
                repo_is_public: public,
                commands_last_hour: last_hour,
                commands_now: now,
            },
        )
    }

    #[test]
    fn gate_table() {
        let quiet = format!("{POLICY}reply_to_outsiders: false\n");
        let limited = format!("{POLICY}commands_per_hour: 3\n");
        let unlimited = format!("{POLICY}commands_per_hour: 0\n");
        let cases: Vec<(
            &str,
            &str,
            GitHubPermission,
            bool,
            i64,
            usize,
            CommenterGate,
        )> = vec![
            ("writer", POLICY, Write, false, 0, 1, CommenterGate::Proceed),
            (
                "triage may plan docs",
                POLICY,
                Triage,
                false,
                0,
                1,
                CommenterGate::Proceed,
            ),
            (
                "reader, private repo",
                POLICY,
                Read,
                false,
                0,
                1,
                CommenterGate::Outsider {
                    reply: true,
                    needed: Triage,
                },
            ),
            (
                "reader, public repo",
                POLICY,
                Read,
                true,
                0,
                1,
                CommenterGate::Outsider {
                    reply: false,
                    needed: Triage,
                },
            ),
            (
                "no permission, public",
                POLICY,
                None,
                true,
                0,
                0,
                CommenterGate::Outsider {
                    reply: false,
                    needed: Triage,
                },
            ),
            (
                "policy keeps quiet",
                &quiet,
                Read,
                false,
                0,
                1,
                CommenterGate::Outsider {
                    reply: false,
                    needed: Triage,
                },
            ),
            (
                "30th command of the hour",
                POLICY,
                Write,
                false,
                29,
                1,
                CommenterGate::Proceed,
            ),
            (
                "31st command of the hour",
                POLICY,
                Write,
                false,
                30,
                1,
                CommenterGate::RateLimited { limit: 30 },
            ),
            (
                "two at once cross the limit",
                &limited,
                Write,
                false,
                2,
                2,
                CommenterGate::RateLimited { limit: 3 },
            ),
            (
                "a typo runs no command",
                &limited,
                Write,
                false,
                9,
                0,
                CommenterGate::Proceed,
            ),
            (
                "no limit",
                &unlimited,
                Admin,
                false,
                1_000,
                5,
                CommenterGate::Proceed,
            ),
        ];
        for (name, policy, permission, public, last_hour, now, want) in cases {
            assert_eq!(
                gate(policy, permission, public, last_hour, now),
                want,
                "{name}"
            );
        }
    }

    #[test]
    fn lowest_permission_looks_at_every_project() {
        let policy = load_policy("p.yaml", POLICY).unwrap();
        assert_eq!(lowest_command_permission(&policy), Triage);
    }
}
