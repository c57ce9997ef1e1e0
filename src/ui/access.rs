//! Who sees what in the web UI. Pure: the shell gathers the facts (the policies, the teams the
//! person belongs to, the repositories GitHub says they can read) and these rules decide.
//!
//! - A person named in a policy file's `admins` (`users`, or `teams` as `org/slug`) is an admin
//!   of the repositories that file governs: they see everything of them and may act.
//! - Anyone else who signed in sees the runs, locks, jobs and audit lines of repositories they
//!   can read on GitHub, and may not act.
//! - Rows without a repository (server-wide events) are for admins of some file only.

use std::collections::BTreeSet;

use crate::policy::{PolicySet, RepoPolicy};

/// The teams (`org/slug`, lower case) named in any policy's `admins`.
pub fn admin_teams(policies: &[RepoPolicy]) -> BTreeSet<String> {
    policies
        .iter()
        .flat_map(|p| p.admins.teams.iter())
        .map(|t| t.to_ascii_lowercase())
        .collect()
}

/// The policy files (by name) that make `login` an admin, given the teams (`org/slug`,
/// lower case) the person is an active member of.
pub fn admin_files(
    login: &str,
    member_of: &BTreeSet<String>,
    policies: &[RepoPolicy],
) -> BTreeSet<String> {
    policies
        .iter()
        .filter(|p| {
            p.admins.users.iter().any(|u| u.eq_ignore_ascii_case(login))
                || p.admins
                    .teams
                    .iter()
                    .any(|t| member_of.contains(&t.to_ascii_lowercase()))
        })
        .map(|p| p.file.clone())
        .collect()
}

/// What one signed-in person may see and do.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Viewer {
    pub login: String,
    /// Policy files naming the person an admin.
    pub admin_files: BTreeSet<String>,
    /// Repositories (`owner/name`, lower case) GitHub says the person can read.
    pub readable: BTreeSet<String>,
}

impl Viewer {
    /// Admin of some policy file: sees server-wide pages (policies, rows without a repository).
    pub fn is_admin(&self) -> bool {
        !self.admin_files.is_empty()
    }

    /// Admin of the file that governs `repo` (the file `PolicySet::for_repo` picks).
    pub fn is_admin_of(&self, policies: &PolicySet, repo: &str) -> bool {
        policies
            .for_repo(repo)
            .is_some_and(|p| self.admin_files.contains(&p.file))
    }

    /// May see rows of `repo` (`None`: a server-wide row).
    pub fn sees(&self, policies: &PolicySet, repo: Option<&str>) -> bool {
        match repo {
            None => self.is_admin(),
            Some(repo) => {
                self.is_admin_of(policies, repo)
                    || self.readable.contains(&repo.to_ascii_lowercase())
            }
        }
    }

    /// May act on `repo` (release its locks, retry or cancel its jobs, read raw logs).
    pub fn acts_on(&self, policies: &PolicySet, repo: &str) -> bool {
        self.is_admin_of(policies, repo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::load_policies;

    fn set() -> PolicySet {
        load_policies(&[
            (
                "infra.yaml",
                "repos: [acme/infra]\nadmins:\n  users: [Alice]\n  teams: [acme/Platform]\n",
            ),
            (
                "apps.yaml",
                "repos: [acme/app-*]\nadmins:\n  users: [bob]\n",
            ),
            ("open.yaml", "repos: [other/*]\n"),
        ])
        .unwrap()
    }

    fn viewer(login: &str, teams: &[&str], readable: &[&str]) -> Viewer {
        let set = set();
        let member_of = teams.iter().map(|t| t.to_string()).collect();
        Viewer {
            login: login.into(),
            admin_files: admin_files(login, &member_of, set.policies()),
            readable: readable.iter().map(|r| r.to_string()).collect(),
        }
    }

    #[test]
    fn admins_come_from_users_and_teams_of_the_file_that_governs_the_repo() {
        let set = set();
        assert_eq!(
            admin_teams(set.policies()),
            BTreeSet::from(["acme/platform".to_string()])
        );
        let alice = viewer("alice", &[], &[]);
        assert!(alice.acts_on(&set, "acme/infra") && alice.sees(&set, Some("ACME/Infra")));
        assert!(!alice.acts_on(&set, "acme/app-web"));
        let carol = viewer("carol", &["acme/platform"], &[]);
        assert!(carol.acts_on(&set, "acme/infra"));
        let bob = viewer("bob", &[], &[]);
        assert!(bob.acts_on(&set, "acme/app-web") && !bob.acts_on(&set, "acme/infra"));
    }

    #[test]
    fn others_see_what_they_can_read_and_never_act() {
        let set = set();
        let dave = viewer("dave", &["acme/other-team"], &["acme/app-web"]);
        assert!(!dave.is_admin());
        assert!(dave.sees(&set, Some("acme/app-web")));
        assert!(!dave.sees(&set, Some("acme/infra")));
        assert!(!dave.acts_on(&set, "acme/app-web"));
        // Server-wide rows are for admins only.
        assert!(!dave.sees(&set, None));
        assert!(viewer("bob", &[], &[]).sees(&set, None));
        // A repository no policy covers: readable or nothing.
        assert!(!viewer("alice", &[], &[]).sees(&set, Some("elsewhere/x")));
    }
}
