//! Server-rendered SVG charts for the web UI. Pure: numbers in, markup out; every label is
//! escaped, so a category or outcome name can never become markup.

use std::collections::BTreeMap;

use crate::github::manifest::html_escape;

/// Colours per outcome, in stacking order (bottom first). Anything else is grey.
const OUTCOMES: [(&str, &str); 4] = [
    ("succeeded", "#2da44e"),
    ("failed", "#cf222e"),
    ("interrupted", "#bf8700"),
    ("other", "#6e7781"),
];

/// One day's runs by outcome (`succeeded`, `failed`, `interrupted`, `other`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DayRuns {
    /// `YYYY-MM-DD`.
    pub day: String,
    pub by_outcome: BTreeMap<String, u32>,
}

const WIDTH: u32 = 720;
const HEIGHT: u32 = 180;
const BOTTOM: u32 = 24;

/// Stacked bars, one per day, with a legend and a title per bar (`2026-12-01: 3 succeeded, …`).
pub fn runs_per_day(days: &[DayRuns]) -> String {
    let max = days
        .iter()
        .map(|d| d.by_outcome.values().sum::<u32>())
        .max()
        .unwrap_or(0)
        .max(1);
    let n = days.len().max(1) as u32;
    let slot = WIDTH / n;
    let bar = slot.saturating_sub(2).max(1);
    let plot = HEIGHT - BOTTOM;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"runs per day by outcome\" viewBox=\"0 0 {WIDTH} {}\" width=\"{WIDTH}\" height=\"{}\">",
        HEIGHT + 20,
        HEIGHT + 20
    );
    for (i, d) in days.iter().enumerate() {
        let x = i as u32 * slot;
        let mut y = plot;
        let mut parts = Vec::new();
        for (outcome, colour) in OUTCOMES {
            let count = d.by_outcome.get(outcome).copied().unwrap_or(0);
            if count == 0 {
                continue;
            }
            let h = (count * plot / max).max(1);
            y = y.saturating_sub(h);
            out.push_str(&format!(
                "<rect x=\"{x}\" y=\"{y}\" width=\"{bar}\" height=\"{h}\" fill=\"{colour}\"/>"
            ));
            parts.push(format!("{count} {outcome}"));
        }
        let title = if parts.is_empty() {
            "no runs".to_string()
        } else {
            parts.join(", ")
        };
        out.push_str(&format!(
            "<rect x=\"{x}\" y=\"0\" width=\"{slot}\" height=\"{plot}\" fill-opacity=\"0\"><title>{}: {}</title></rect>",
            html_escape(&d.day),
            html_escape(&title)
        ));
        if i % 7 == 0 {
            out.push_str(&format!(
                "<text x=\"{x}\" y=\"{}\" font-size=\"11\">{}</text>",
                plot + 14,
                html_escape(d.day.get(5..).unwrap_or(&d.day))
            ));
        }
    }
    let mut lx = 0;
    for (outcome, colour) in OUTCOMES {
        out.push_str(&format!(
            "<rect x=\"{lx}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{colour}\"/><text x=\"{}\" y=\"{}\" font-size=\"11\">{outcome}</text>",
            HEIGHT + 6,
            lx + 14,
            HEIGHT + 15
        ));
        lx += 110;
    }
    out.push_str("</svg>");
    out
}

/// Horizontal bars: failures per category, largest first.
pub fn failures_by_category(counts: &BTreeMap<String, u32>) -> String {
    let mut rows: Vec<(&String, &u32)> = counts.iter().collect();
    rows.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let max = rows.first().map_or(1, |r| *r.1).max(1);
    let row_h = 22;
    let height = (rows.len() as u32 * row_h).max(row_h);
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"failures by category\" viewBox=\"0 0 {WIDTH} {height}\" width=\"{WIDTH}\" height=\"{height}\">"
    );
    if rows.is_empty() {
        out.push_str("<text x=\"0\" y=\"15\" font-size=\"12\">no failures</text>");
    }
    for (i, (category, count)) in rows.iter().enumerate() {
        let y = i as u32 * row_h;
        let w = (**count * (WIDTH - 260) / max).max(1);
        out.push_str(&format!(
            "<text x=\"0\" y=\"{}\" font-size=\"12\">{}</text><rect x=\"220\" y=\"{}\" width=\"{w}\" height=\"14\" fill=\"#cf222e\"><title>{}: {count}</title></rect><text x=\"{}\" y=\"{}\" font-size=\"12\">{count}</text>",
            y + 14,
            html_escape(category),
            y + 3,
            html_escape(category),
            224 + w,
            y + 14
        ));
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(d: &str, pairs: &[(&str, u32)]) -> DayRuns {
        DayRuns {
            day: d.into(),
            by_outcome: pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        }
    }

    #[test]
    fn bars_stack_by_outcome_and_scale_to_the_busiest_day() {
        let svg = runs_per_day(&[
            day("2026-12-01", &[("succeeded", 3), ("failed", 1)]),
            day("2026-12-02", &[]),
            day("2026-12-03", &[("succeeded", 2)]),
        ]);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert!(svg.contains("<title>2026-12-01: 3 succeeded, 1 failed</title>"));
        assert!(svg.contains("<title>2026-12-02: no runs</title>"));
        // The busiest day (4 runs) fills the plot: 3 of 4 is 117 of 156 pixels.
        assert!(svg.contains("height=\"117\" fill=\"#2da44e\""), "{svg}");
        assert!(svg.contains("height=\"39\" fill=\"#cf222e\""), "{svg}");
        assert!(svg.contains(">12-01</text>"));
    }

    #[test]
    fn categories_are_sorted_and_escaped() {
        let counts = BTreeMap::from([
            ("permission_missing".to_string(), 2),
            ("propagation_delay".to_string(), 5),
            ("<script>".to_string(), 1),
        ]);
        let svg = failures_by_category(&counts);
        let first = svg.find("propagation_delay").unwrap();
        let second = svg.find("permission_missing").unwrap();
        assert!(first < second);
        assert!(!svg.contains("<script>") && svg.contains("&lt;script&gt;"));
        assert!(failures_by_category(&BTreeMap::new()).contains("no failures"));
    }
}
