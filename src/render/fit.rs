//! Fitting a comment into a character budget by keeping a prefix of its optional parts.
//!
//! The caller supplies `render(keep)`, which renders the comment keeping the first `keep`
//! optional units (attribute rows, resource entries, …). Output size grows with `keep`, so
//! a binary search finds the largest `keep` that fits in O(log n) renders.

/// Counts characters the way GitHub's limit does (Unicode scalar values).
pub fn char_count(text: &str) -> usize {
    text.chars().count()
}

/// Result of a fit: the rendered text and how many optional units it kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fitted {
    pub text: String,
    pub kept: usize,
}

/// Finds the largest `keep` in `0..=total` whose rendering has at most `limit` characters.
/// Returns `Ok(None)` when even `keep = 0` is too large.
pub fn fit_prefix<E>(
    total: usize,
    limit: usize,
    mut render: impl FnMut(usize) -> Result<String, E>,
) -> Result<Option<Fitted>, E> {
    let full = render(total)?;
    if char_count(&full) <= limit {
        return Ok(Some(Fitted {
            text: full,
            kept: total,
        }));
    }
    let empty = render(0)?;
    if char_count(&empty) > limit {
        return Ok(None);
    }
    // Invariant: `lo` fits (its text in `best`), `hi` does not.
    let (mut lo, mut hi) = (0usize, total);
    let mut best = empty;
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        let text = render(mid)?;
        if char_count(&text) <= limit {
            lo = mid;
            best = text;
        } else {
            hi = mid;
        }
    }
    Ok(Some(Fitted {
        text: best,
        kept: lo,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::convert::Infallible;

    fn render_units(keep: usize) -> Result<String, Infallible> {
        Ok(format!("head\n{}", "x".repeat(keep * 10)))
    }

    #[test]
    fn keeps_everything_when_it_fits() {
        let fitted = fit_prefix(5, 1000, render_units).unwrap().unwrap();
        assert_eq!(fitted.kept, 5);
    }

    #[test]
    fn finds_the_largest_prefix_that_fits() {
        // 5 chars of head + 10 per unit: 100 chars allow 9 units (95 chars).
        let fitted = fit_prefix(1000, 100, render_units).unwrap().unwrap();
        assert_eq!(fitted.kept, 9);
        assert_eq!(char_count(&fitted.text), 95);
    }

    #[test]
    fn reports_when_nothing_fits() {
        assert_eq!(fit_prefix(10, 3, render_units).unwrap(), None);
    }

    #[test]
    fn uses_logarithmically_many_renders() {
        let mut calls = 0;
        let fitted = fit_prefix(10_000, 50_000, |keep| {
            calls += 1;
            render_units(keep)
        })
        .unwrap()
        .unwrap();
        assert_eq!(fitted.kept, 4_999);
        assert!(calls <= 2 + 14, "{calls} renders");
    }

    #[test]
    fn counts_unicode_scalars_not_bytes() {
        assert_eq!(char_count("✅ ⏭"), 3);
    }
}
