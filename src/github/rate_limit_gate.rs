//! The per-installation "not before" gate: when GitHub asks an installation to wait, every
//! call of this process for that installation waits until then. Shared by all workers (it
//! lives in [`super::GitHubApp`]); the decision itself is [`super::retry::admit`].

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use super::retry::{admit, Admission};

#[derive(Debug, Default)]
pub struct RateLimitGate {
    not_before: Mutex<HashMap<i64, SystemTime>>,
}

impl RateLimitGate {
    /// Hold calls of `installation` until `until` (a later hold already in place stays).
    pub fn hold(&self, installation: i64, until: SystemTime) {
        let mut map = self.not_before.lock().expect("rate gate lock");
        let entry = map.entry(installation).or_insert(until);
        *entry = (*entry).max(until);
    }

    /// Whether a call of `installation` may go at `now`; passed holds are forgotten.
    pub fn admission(&self, installation: i64, now: SystemTime, max_wait: Duration) -> Admission {
        let mut map = self.not_before.lock().expect("rate gate lock");
        map.retain(|_, until| *until > now);
        admit(map.get(&installation).copied(), now, max_wait)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000 + secs)
    }

    const CAP: Duration = Duration::from_secs(300);

    #[test]
    fn admit_decides_from_the_hold_and_the_cap() {
        let cases = [
            (None, at(0), Admission::Go),
            (Some(at(0)), at(0), Admission::Go),
            (Some(at(0)), at(5), Admission::Go),
            (
                Some(at(8)),
                at(0),
                Admission::WaitFor(Duration::from_secs(8)),
            ),
            (Some(at(300)), at(0), Admission::WaitFor(CAP)),
            (Some(at(301)), at(0), Admission::Defer { until: at(301) }),
        ];
        for (hold, now, want) in cases {
            assert_eq!(admit(hold, now, CAP), want, "{hold:?} at {now:?}");
        }
    }

    #[test]
    fn a_hold_applies_to_its_installation_only_and_keeps_the_later_time() {
        let gate = RateLimitGate::default();
        gate.hold(7, at(10));
        gate.hold(7, at(4));
        assert_eq!(
            gate.admission(7, at(0), CAP),
            Admission::WaitFor(Duration::from_secs(10))
        );
        assert_eq!(gate.admission(8, at(0), CAP), Admission::Go);
        gate.hold(7, at(20));
        assert_eq!(
            gate.admission(7, at(15), CAP),
            Admission::WaitFor(Duration::from_secs(5))
        );
        assert_eq!(gate.admission(7, at(20), CAP), Admission::Go);
        gate.hold(9, at(1000));
        assert_eq!(
            gate.admission(9, at(0), CAP),
            Admission::Defer { until: at(1000) }
        );
    }
}
