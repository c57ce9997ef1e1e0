//! The `tfgate/deploy` table (pure): added, changed (before → after) and removed objects, with
//! automated sync and prune, and the lines that need acknowledgement. Values pass through the
//! caller's redaction (`redact`): URLs keep host and path; tokens, IPs and account ids go.

use super::{acknowledgements, DeployDiff, DeployObject, ParseProblem};

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

fn cell(text: &str, redact: &mut dyn FnMut(&str) -> String) -> String {
    redact(text).replace('|', "\\|").replace('\n', " ")
}

fn object_row(o: &DeployObject, what: &str, redact: &mut dyn FnMut(&str) -> String) -> String {
    format!(
        "| {what} | {} | `{}` | {} | {} | {} | {} | `{}:{}` |\n",
        o.kind.label(),
        cell(&o.name, redact),
        cell(&o.source, redact),
        cell(&o.destination, redact),
        yes_no(o.automated),
        yes_no(o.prune),
        o.file,
        o.line
    )
}

/// The check run's text: the table, then what needs acknowledgement.
pub fn render_table(diff: &DeployDiff, redact: &mut dyn FnMut(&str) -> String) -> String {
    if diff.is_empty() {
        return "This pull request changes no ArgoCD or Flux object that deploys.\n".into();
    }
    let mut out = String::from(
        "| change | kind | name | source | destination | automated | prune | declared at |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for o in &diff.added {
        out.push_str(&object_row(o, "added", redact));
    }
    for c in &diff.changed {
        out.push_str(&object_row(&c.before, "changed: before", redact));
        out.push_str(&object_row(&c.after, "changed: after", redact));
    }
    for o in &diff.removed {
        out.push_str(&object_row(o, "**removed**", redact));
    }
    let acks = acknowledgements(diff);
    if !acks.is_empty() {
        out.push_str(
            "\n**Needs acknowledgement** (`/ack-deploy` by a user the policy allows):\n\n",
        );
        for line in acks {
            out.push_str(&format!("- {}\n", cell(&line, redact)));
        }
    }
    out
}

/// The check run's conclusion and title.
pub fn check_conclusion(parsed: &Result<DeployDiff, Vec<ParseProblem>>) -> (&'static str, String) {
    match parsed {
        Err(problems) => (
            "failure",
            match problems.first() {
                Some(p) => format!("YAML does not parse: {p}"),
                None => "YAML does not parse".into(),
            },
        ),
        Ok(diff) => {
            let acks = acknowledgements(diff).len();
            if acks > 0 {
                (
                    "action_required",
                    format!("{acks} change(s) need acknowledgement before merge"),
                )
            } else if diff.is_empty() {
                ("success", "no deploying object changes".into())
            } else {
                (
                    "success",
                    "deploying objects change; nothing needs acknowledgement".into(),
                )
            }
        }
    }
}
