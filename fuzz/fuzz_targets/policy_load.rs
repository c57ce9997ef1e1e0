//! A policy file → a validated policy or a list of problems. Never panics; a refused file
//! names at least one problem, each pointing into the file; a loaded policy loads the same
//! twice; two copies of one policy conflict.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tfgate::policy::{load_policies, load_policy};

fuzz_target!(|data: &[u8]| {
    let Ok(content) = std::str::from_utf8(data) else {
        return;
    };
    // YAML (libyaml) breaks lines at `\r\n`, `\r`, `\n`, NEL (U+0085), LS and PS (U+2028/9);
    // an error may point just past the end.
    let breaks = ['\r', '\n', '\u{85}', '\u{2028}', '\u{2029}'];
    let lines = content.replace("\r\n", "\n").matches(breaks).count() + 2;
    match load_policy("fuzz.yaml", content) {
        Ok(policy) => {
            let again = load_policy("fuzz.yaml", content).expect("loads twice");
            assert!(policy == again, "loaded twice, differently");
            let files = [("a.yaml", content), ("b.yaml", content)];
            match load_policies(&files) {
                Ok(set) => assert!(policy.repos.is_empty(), "{} policies", set.policies().len()),
                Err(problems) => assert!(!problems.is_empty()),
            }
        }
        Err(problems) => {
            assert!(!problems.is_empty(), "refused without a problem");
            for p in &problems {
                assert_eq!(p.file, "fuzz.yaml");
                assert!(
                    p.line >= 1 && p.line <= lines,
                    "line {} of {lines}: {p:?}",
                    p.line
                );
                assert!(!p.message.is_empty());
            }
        }
    }
});
