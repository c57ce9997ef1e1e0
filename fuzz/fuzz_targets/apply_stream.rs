//! Terraform's `apply -json` stream → per-resource outcomes. Never panics; every resource is
//! reported once, the planned ones first and in plan order; the streaming parser (line by line,
//! as the worker reads a running apply) agrees with the whole-stream parser.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tfgate::terraform::{
    apply_outcome, decode_text, parse_ui_line, parse_ui_stream, plan_run_outcome, Action,
    ApplyTracker, PlannedChangeRef, UiMessage,
};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = decode_text(data) else {
        return;
    };
    let Ok(stream) = parse_ui_stream(&text) else {
        return;
    };
    let _ = plan_run_outcome(&stream);
    // Planned: every address the stream names in a planned change, in reverse, and one more.
    let mut planned: Vec<PlannedChangeRef> = stream
        .messages
        .iter()
        .rev()
        .filter_map(|m| match m {
            UiMessage::PlannedChange { change, .. } => Some(PlannedChangeRef {
                address: change.resource.addr.clone(),
                action: change.action().unwrap_or(Action::Update),
            }),
            _ => None,
        })
        .collect();
    planned.push(PlannedChangeRef {
        address: "aws_instance.planned_but_never_seen".into(),
        action: Action::Create,
    });
    let outcome = apply_outcome(&stream, &planned);
    let mut seen = std::collections::HashSet::new();
    for resource in &outcome.resources {
        assert!(
            seen.insert(resource.address.as_str()),
            "{} twice",
            resource.address
        );
    }
    let mut first_seen: Vec<&str> = Vec::new();
    for p in &planned {
        if !first_seen.contains(&p.address.as_str()) {
            first_seen.push(&p.address);
        }
    }
    let reported: Vec<&str> = outcome
        .resources
        .iter()
        .map(|r| r.address.as_str())
        .collect();
    assert!(
        reported.starts_with(&first_seen),
        "planned resources not first, in order"
    );

    let mut tracker = ApplyTracker::new(&planned);
    for line in text.strip_prefix('\u{feff}').unwrap_or(&text).lines() {
        if let Ok(Some(message)) = parse_ui_line(line) {
            tracker.observe(&message);
        }
    }
    assert_eq!(
        tracker.finish(),
        outcome,
        "line-by-line and whole-stream outcomes differ"
    );
});
