//! "Did you mean" for mistyped command names.

use super::CommandKind;

/// Farthest edit distance at which a word is taken for a mistyped command name.
const MAX_DISTANCE: usize = 2;
/// Longest word worth comparing: longer ones are farther than `MAX_DISTANCE` from every name.
const MAX_WORD_CHARS: usize = 8;

/// The command whose name is closest to `word` (ASCII case-insensitive), if within distance 2.
/// Ties go to the earlier command in [`CommandKind::ALL`].
pub(super) fn closest_command(word: &str) -> Option<CommandKind> {
    if word.chars().count() > MAX_WORD_CHARS {
        return None;
    }
    let word = word.to_ascii_lowercase();
    CommandKind::ALL
        .into_iter()
        .map(|kind| (edit_distance(&word, kind.name()), kind))
        .filter(|(distance, _)| *distance <= MAX_DISTANCE)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, kind)| kind)
}

/// Damerau-Levenshtein distance, optimal-string-alignment variant: insertions, deletions,
/// substitutions and transpositions of adjacent characters each cost 1.
pub(super) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // rows[i][j]: distance between a[..i] and b[..j].
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let substitution = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + substitution);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        let cases = [
            ("plan", "plan", 0),
            ("plna", "plan", 1),
            ("pla", "plan", 1),
            ("plans", "plan", 1),
            ("cancle", "cancel", 1),
            ("lock", "unlock", 2),
            ("cc", "cancel", 4),
            ("", "help", 4),
            ("shrug", "help", 4),
        ];
        for (a, b, distance) in cases {
            assert_eq!(edit_distance(a, b), distance, "{a} -> {b}");
            assert_eq!(edit_distance(b, a), distance, "{b} -> {a}");
        }
    }

    #[test]
    fn suggestions() {
        let cases = [
            ("plna", Some(CommandKind::Plan)),
            ("PLNA", Some(CommandKind::Plan)),
            ("aply", Some(CommandKind::Apply)),
            ("appyl", Some(CommandKind::Apply)),
            ("lock", Some(CommandKind::Unlock)),
            ("input", Some(CommandKind::Inputs)),
            ("hlep", Some(CommandKind::Help)),
            ("cc", None),
            ("shrug", None),
            ("approve", None),
            ("deploy", None),
            ("planplanplan", None),
        ];
        for (word, expected) in cases {
            assert_eq!(closest_command(word), expected, "{word}");
        }
    }
}
