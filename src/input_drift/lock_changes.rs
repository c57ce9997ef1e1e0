//! Which shared inputs a pull request changes: the lines of `tfgate.inputs.lock` that differ
//! between its base and its head. Pure.

use std::collections::BTreeSet;

use super::lockfile::{parse_lockfile, InputsLock};

/// The shared inputs whose line in `tfgate.inputs.lock` differs between the PR's base and its
/// head (added, removed or changed), sorted. An absent file is an empty lock; a lock that
/// cannot be read on either side changes every input in `declared` (the plan's drift check
/// then says what is wrong with it).
pub fn changed_lock_inputs(
    base: Option<&str>,
    head: Option<&str>,
    declared: &[String],
) -> Vec<String> {
    let parse = |text: Option<&str>| {
        text.map(parse_lockfile)
            .unwrap_or(Ok(InputsLock::default()))
    };
    let (Ok(base), Ok(head)) = (parse(base), parse(head)) else {
        let mut all = declared.to_vec();
        all.sort();
        all.dedup();
        return all;
    };
    let names: BTreeSet<&String> = base.entries.keys().chain(head.entries.keys()).collect();
    names
        .into_iter()
        .filter(|name| base.get(name) != head.get(name))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_lock_inputs_are_the_lines_that_differ() {
        let a1 = format!("A = {}\n", "1".repeat(64));
        let a2 = format!("A = {}\n", "2".repeat(64));
        let b1 = format!("B = {}\n", "1".repeat(64));
        let a1b1 = format!("{a1}{b1}");
        let b1a1 = format!("# regenerated\n{b1}{a1}");
        let declared = vec!["B".to_string(), "A".to_string()];
        let cases: Vec<(Option<&str>, Option<&str>, Vec<&str>)> = vec![
            (Some(&a1), Some(&a1), vec![]),
            (Some(&a1), Some(&a2), vec!["A"]),
            (Some(&a1), Some(&a1b1), vec!["B"]),
            (Some(&a1b1), Some(&a2), vec!["A", "B"]),
            (None, Some(&a1), vec!["A"]),
            (Some(&a1), None, vec!["A"]),
            (None, None, vec![]),
            // Comments and order do not count.
            (Some(&a1b1), Some(&b1a1), vec![]),
            // A lock that cannot be read changes every declared input.
            (Some(&a1), Some("A = not-hex\n"), vec!["A", "B"]),
            (Some("garbage"), Some(&a1), vec!["A", "B"]),
        ];
        for (base, head, want) in cases {
            assert_eq!(
                changed_lock_inputs(base, head, &declared),
                want,
                "{base:?} → {head:?}"
            );
        }
    }
}
