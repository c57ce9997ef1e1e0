//! Which roots one drift check plans: those the job names (a `tfgate drift` run of some
//! roots), else those the policy's `drift_detection` names, else every root of the policy.

/// The roots to check, in the order given.
pub fn roots_to_check(
    named: &[String],
    configured: Option<&[String]>,
    all: &[String],
) -> Vec<String> {
    match (named, configured) {
        ([], Some(configured)) => configured.to_vec(),
        ([], None) => all.to_vec(),
        (named, _) => named.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn named_roots_first_then_the_policy_s_then_all() {
        let all = names(&["app", "net", "db"]);
        let configured = names(&["net"]);
        let table = [
            (names(&["db"]), Some(&configured[..]), names(&["db"])),
            (names(&["db"]), None, names(&["db"])),
            (vec![], Some(&configured[..]), names(&["net"])),
            (vec![], Some(&[][..]), vec![]),
            (vec![], None, all.clone()),
        ];
        for (named, configured, want) in table {
            assert_eq!(
                roots_to_check(&named, configured, &all),
                want,
                "{named:?} {configured:?}"
            );
        }
    }
}
