//! `tfgate doctor` and `/readyz`: whether this process can do its work, one check per line.
//!
//! Pure: what each observation means ([`judge`]), the lines printed and the readiness answer.
//! Effects (observing the database, GitHub, Terraform, bubblewrap, cgroups, the disk) are in
//! `probe.rs`; they decide nothing.

mod judge;
mod probe;

pub use judge::*;
pub use probe::{doctor_for_config, doctor_for_state, spawn_readiness};

use std::fmt;

/// What is checked, in the order printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CheckName {
    Database,
    SealKey,
    Policies,
    GitHubApp,
    WebhookSecret,
    Terraform,
    Sandbox,
    Cgroups,
    Disk,
}

impl CheckName {
    /// The name printed and listed by `/readyz`.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckName::Database => "database",
            CheckName::SealKey => "sealing_key",
            CheckName::Policies => "policies",
            CheckName::GitHubApp => "github_app",
            CheckName::WebhookSecret => "webhook_secret",
            CheckName::Terraform => "terraform",
            CheckName::Sandbox => "sandbox",
            CheckName::Cgroups => "cgroups",
            CheckName::Disk => "disk",
        }
    }
}

/// One check's result. A warning is printed but fails nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Ok(String),
    Warn(String),
    Fail { problem: String, fix: String },
}

impl Outcome {
    pub fn fail(problem: impl Into<String>, fix: impl Into<String>) -> Outcome {
        Outcome::Fail {
            problem: problem.into(),
            fix: fix.into(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    pub name: CheckName,
    pub outcome: Outcome,
}

/// Every check of one pass.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    pub checks: Vec<Check>,
}

impl Report {
    pub fn push(&mut self, name: CheckName, outcome: Outcome) {
        self.checks.push(Check { name, outcome });
    }

    /// The names of the checks that failed, in order.
    pub fn failed(&self) -> Vec<&'static str> {
        self.checks
            .iter()
            .filter(|c| matches!(c.outcome, Outcome::Fail { .. }))
            .map(|c| c.name.as_str())
            .collect()
    }

    pub fn passed(&self) -> bool {
        self.failed().is_empty()
    }

    /// `tfgate doctor`'s exit code: 1 when any check failed.
    pub fn exit_code(&self) -> i32 {
        if self.passed() {
            0
        } else {
            1
        }
    }
}

impl fmt::Display for Report {
    /// One line per check: `ok`, `warn` or `FAIL`, the name, what was found, and for a failure
    /// how to fix it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for check in &self.checks {
            let name = check.name.as_str();
            match &check.outcome {
                Outcome::Ok(detail) => writeln!(f, "ok    {name:<15} {detail}")?,
                Outcome::Warn(detail) => writeln!(f, "warn  {name:<15} {detail}")?,
                Outcome::Fail { problem, fix } => {
                    writeln!(f, "FAIL  {name:<15} {problem}; fix: {fix}")?
                }
            }
        }
        Ok(())
    }
}

/// `/readyz`'s answer: ready, or the failed checks' names (never their details: they may name
/// paths or hosts, and the probe is unauthenticated).
pub fn readiness_body(report: Option<&Report>) -> (bool, String) {
    match report {
        None => (
            false,
            "not ready: start-up checks have not finished\n".into(),
        ),
        Some(r) if r.passed() => (true, "ready\n".into()),
        Some(r) => (false, format!("not ready: {}\n", r.failed().join(", "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(outcomes: &[(CheckName, Outcome)]) -> Report {
        let mut r = Report::default();
        for (name, outcome) in outcomes {
            r.push(*name, outcome.clone());
        }
        r
    }

    #[test]
    fn lines_say_what_was_found_and_how_to_fix_it() {
        let r = report(&[
            (CheckName::Database, Outcome::Ok("reachable".into())),
            (CheckName::Cgroups, Outcome::Warn("rlimits only".into())),
            (
                CheckName::Terraform,
                Outcome::fail("not found", "set TFGATE_TERRAFORM"),
            ),
        ]);
        assert_eq!(
            r.to_string(),
            "ok    database        reachable\n\
             warn  cgroups         rlimits only\n\
             FAIL  terraform       not found; fix: set TFGATE_TERRAFORM\n"
        );
        assert_eq!(r.exit_code(), 1);
        assert_eq!(r.failed(), vec!["terraform"]);
    }

    #[test]
    fn warnings_do_not_fail() {
        let r = report(&[
            (CheckName::Database, Outcome::Ok("reachable".into())),
            (CheckName::Cgroups, Outcome::Warn("rlimits only".into())),
        ]);
        assert!(r.passed());
        assert_eq!(r.exit_code(), 0);
    }

    #[test]
    fn readiness_names_failed_checks_only() {
        assert!(!readiness_body(None).0);
        let ok = report(&[(CheckName::Disk, Outcome::Ok("50 GiB free".into()))]);
        assert_eq!(readiness_body(Some(&ok)), (true, "ready\n".into()));
        let bad = report(&[
            (CheckName::GitHubApp, Outcome::fail("secret detail", "x")),
            (CheckName::Disk, Outcome::Ok("fine".into())),
            (CheckName::Terraform, Outcome::fail("/opt/tf missing", "y")),
        ]);
        let (ready, body) = readiness_body(Some(&bad));
        assert!(!ready);
        assert_eq!(body, "not ready: github_app, terraform\n");
        assert!(!body.contains("secret detail") && !body.contains("/opt/tf"));
    }
}
