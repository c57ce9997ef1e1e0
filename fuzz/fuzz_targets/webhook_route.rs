//! An event name and a body → what tfgate does. Never panics; bad input is an error; a routed
//! job's payload is what its executor reads back.
//!
//! Input: the event name, a newline, then the body (seeds: `scripts/fuzz.sh` writes the
//! webhook fixtures in that form).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tfgate::jobs::JobKind;
use tfgate::webhook::event::{
    route, valid_event_name, CommentJob, InstallationJob, IntakeError, PullRequestJob, ReviewJob,
};

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|&b| b == b'\n').unwrap_or(data.len());
    let Ok(event) = std::str::from_utf8(&data[..split]) else {
        return;
    };
    let body = data.get(split + 1..).unwrap_or_default();
    let routed = route(event, body);
    if !valid_event_name(event) {
        assert_eq!(routed, Err(IntakeError::BadEventName));
        return;
    }
    // JSON syntax in UTF-8 (numbers of any size: `1E999` is JSON, though no f64).
    let is_json = std::str::from_utf8(body).is_ok()
        && serde_json::from_slice::<serde::de::IgnoredAny>(body).is_ok();
    let routed = match routed {
        Ok(routed) => routed,
        Err(IntakeError::BadEventName) => panic!("valid event name {event:?} refused"),
        Err(_) => return,
    };
    assert!(is_json, "a body that is not JSON was routed: {routed:?}");
    assert!(
        routed.jobs.len() + usize::from(routed.ignored.is_some()) == 1,
        "one job or one reason: {routed:?}"
    );
    for job in &routed.jobs {
        let read_back = match job.kind {
            JobKind::Comment => serde_json::from_str::<CommentJob>(&job.payload).map(|_| ()),
            JobKind::PullRequest => {
                serde_json::from_str::<PullRequestJob>(&job.payload).map(|_| ())
            }
            JobKind::Review => serde_json::from_str::<ReviewJob>(&job.payload).map(|_| ()),
            JobKind::Installation => {
                serde_json::from_str::<InstallationJob>(&job.payload).map(|_| ())
            }
            other => panic!("route made a {other:?} job"),
        };
        assert!(
            read_back.is_ok(),
            "payload does not read back: {}",
            job.payload
        );
    }
});
