//! `tfgate doctor` and `/readyz`: whether this process can do its work, one check per line.
//!
//! Pure: what each observation means ([`judge`]) and the readiness answer; the report itself
//! (its checks and the lines printed) is a plain type in [`crate::model::readiness`], held by
//! the server state for `/readyz`.
//! Effects (observing the database, GitHub, Terraform, bubblewrap, cgroups, the disk) are in
//! `probe.rs`; they decide nothing.

mod judge;
mod probe;

pub use crate::model::readiness::{Check, CheckName, Outcome, Report};
pub use judge::*;
pub use probe::{doctor_for_config, doctor_for_state, spawn_readiness};

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
