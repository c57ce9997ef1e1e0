//! The `tfgate/deploy` check run as data (pure): added, changed (before → after) and removed
//! objects, with automated sync and prune, and the lines that need acknowledgement;
//! `templates/deploy_check.md.j2` words it. Values pass through the caller's redaction
//! (`redact`): URLs keep host and path; tokens, IPs and account ids go.

use super::{acknowledgements, DeployDiff, DeployObject, ParseProblem};
use crate::model::{DeployChange, DeployCheckBody, DeployCheckText, DeployRow};

fn cell(text: &str, redact: &mut dyn FnMut(&str) -> String) -> String {
    redact(text).replace('|', "\\|").replace('\n', " ")
}

fn object_row(
    o: &DeployObject,
    change: DeployChange,
    redact: &mut dyn FnMut(&str) -> String,
) -> DeployRow {
    DeployRow {
        change,
        kind: o.kind.label().to_string(),
        name: cell(&o.name, redact),
        source: cell(&o.source, redact),
        destination: cell(&o.destination, redact),
        automated: o.automated,
        prune: o.prune,
        file: o.file.clone(),
        line: o.line,
    }
}

/// The check run's text: the table and what needs acknowledgement, or the YAML problems.
pub fn deploy_check_text(
    parsed: &Result<DeployDiff, Vec<ParseProblem>>,
    redact: &mut dyn FnMut(&str) -> String,
) -> DeployCheckText {
    let body = match parsed {
        Err(problems) => DeployCheckBody::Unparsed {
            problems: problems.iter().map(|p| redact(&p.to_string())).collect(),
        },
        Ok(diff) if diff.is_empty() => DeployCheckBody::Unchanged,
        Ok(diff) => {
            let mut rows = Vec::new();
            for o in &diff.added {
                rows.push(object_row(o, DeployChange::Added, redact));
            }
            for c in &diff.changed {
                rows.push(object_row(&c.before, DeployChange::ChangedBefore, redact));
                rows.push(object_row(&c.after, DeployChange::ChangedAfter, redact));
            }
            for o in &diff.removed {
                rows.push(object_row(o, DeployChange::Removed, redact));
            }
            let acknowledgements = acknowledgements(diff)
                .iter()
                .map(|line| cell(line, redact))
                .collect();
            DeployCheckBody::Changes {
                rows,
                acknowledgements,
            }
        }
    };
    DeployCheckText {
        body,
        acknowledged: None,
    }
}

/// The check run's conclusion.
pub fn check_conclusion(parsed: &Result<DeployDiff, Vec<ParseProblem>>) -> &'static str {
    match parsed {
        Err(_) => "failure",
        Ok(diff) if !acknowledgements(diff).is_empty() => "action_required",
        Ok(_) => "success",
    }
}
