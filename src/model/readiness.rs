//! The readiness report of `tfgate doctor` and `/readyz`: one outcome per check, and the lines
//! printed. [`crate::doctor`] fills it; the server state holds the last one.

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
