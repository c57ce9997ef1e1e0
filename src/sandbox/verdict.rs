//! How a run ended and which resource limit, if any, ended it (pure): from what the supervisor
//! observed.

/// How a supervised run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitKind {
    /// Exited with this code. Under bwrap, a program killed by signal N shows as 128+N.
    Exited(i32),
    /// The spawned process itself (bwrap, or the program in dev mode) died of this signal.
    Signaled(i32),
    /// Ran past the spec's timeout; the whole process group was killed.
    TimedOut,
    /// Hit a resource limit (output cap, memory, processes, workdir size, file size, CPU
    /// time); a run still going was killed with its whole process group.
    LimitHit(ResourceLimit),
}

pub use crate::model::ResourceLimit;

/// What the supervisor saw of a run, while it ran or after it ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Observed {
    /// How the spawned process ended (`None` while it runs).
    pub exit: Option<ExitKind>,
    /// OOM kills counted by the run's memory cgroup.
    pub oom_kills: u64,
    /// Forks the run's pids cgroup refused.
    pub pids_refused: u64,
    /// The workdir's size, when the watchdog measured it.
    pub workdir_bytes: Option<u64>,
    /// The workdir's cap (`None`: no watchdog).
    pub workdir_cap: Option<u64>,
    /// The output cap was passed.
    pub output_capped: bool,
    /// The run was in bwrap, whose exit code is 128+N for a program killed by signal N.
    pub in_bwrap: bool,
}

/// The limit this run hit, if any; the first in this order: output, memory, processes,
/// workdir size, file size, CPU time. A run that hit one is ended (killed when still
/// running) and failed with the `resource_limit` category.
pub fn limit_hit(o: &Observed) -> Option<ResourceLimit> {
    let over_disk =
        matches!((o.workdir_bytes, o.workdir_cap), (Some(used), Some(cap)) if used > cap);
    if o.output_capped {
        Some(ResourceLimit::Output)
    } else if o.oom_kills > 0 {
        Some(ResourceLimit::Memory)
    } else if o.pids_refused > 0 {
        Some(ResourceLimit::Processes)
    } else if over_disk {
        Some(ResourceLimit::WorkdirSize)
    } else if killed_by(o, libc::SIGXFSZ) {
        Some(ResourceLimit::FileSize)
    } else if killed_by(o, libc::SIGXCPU) {
        Some(ResourceLimit::CpuTime)
    } else {
        None
    }
}

/// The program died of `signal` (under bwrap: exited with 128 + `signal`, which a shell
/// also reports for a child killed by it).
fn killed_by(o: &Observed, signal: i32) -> bool {
    match o.exit {
        Some(ExitKind::Signaled(s)) => s == signal,
        Some(ExitKind::Exited(code)) => code == 128 + signal && o.in_bwrap,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_hit_table() {
        let base = Observed {
            in_bwrap: true,
            workdir_cap: Some(100),
            ..Default::default()
        };
        let exited = |code| Some(ExitKind::Exited(code));
        // (name, observed, expected)
        let table: Vec<(&str, Observed, Option<ResourceLimit>)> = vec![
            ("nothing", base, None),
            (
                "clean exit",
                Observed {
                    exit: exited(0),
                    ..base
                },
                None,
            ),
            (
                "plain failure",
                Observed {
                    exit: exited(1),
                    ..base
                },
                None,
            ),
            (
                "output cap",
                Observed {
                    output_capped: true,
                    ..base
                },
                Some(ResourceLimit::Output),
            ),
            (
                "oom kill",
                Observed {
                    oom_kills: 1,
                    ..base
                },
                Some(ResourceLimit::Memory),
            ),
            (
                "fork refused",
                Observed {
                    pids_refused: 3,
                    ..base
                },
                Some(ResourceLimit::Processes),
            ),
            (
                "workdir at cap",
                Observed {
                    workdir_bytes: Some(100),
                    ..base
                },
                None,
            ),
            (
                "workdir over cap",
                Observed {
                    workdir_bytes: Some(101),
                    ..base
                },
                Some(ResourceLimit::WorkdirSize),
            ),
            (
                "no watchdog",
                Observed {
                    workdir_bytes: Some(10_000),
                    workdir_cap: None,
                    ..base
                },
                None,
            ),
            (
                "SIGXFSZ under bwrap",
                Observed {
                    exit: exited(128 + libc::SIGXFSZ),
                    ..base
                },
                Some(ResourceLimit::FileSize),
            ),
            (
                "153 without bwrap is a plain exit code",
                Observed {
                    exit: exited(128 + libc::SIGXFSZ),
                    in_bwrap: false,
                    ..base
                },
                None,
            ),
            (
                "SIGXFSZ in dev mode",
                Observed {
                    exit: Some(ExitKind::Signaled(libc::SIGXFSZ)),
                    in_bwrap: false,
                    ..base
                },
                Some(ResourceLimit::FileSize),
            ),
            (
                "SIGXCPU",
                Observed {
                    exit: exited(128 + libc::SIGXCPU),
                    ..base
                },
                Some(ResourceLimit::CpuTime),
            ),
            (
                "killed otherwise",
                Observed {
                    exit: exited(128 + libc::SIGKILL),
                    ..base
                },
                None,
            ),
            (
                "output wins over memory",
                Observed {
                    output_capped: true,
                    oom_kills: 1,
                    ..base
                },
                Some(ResourceLimit::Output),
            ),
            (
                "processes win over disk",
                Observed {
                    pids_refused: 1,
                    workdir_bytes: Some(500),
                    ..base
                },
                Some(ResourceLimit::Processes),
            ),
        ];
        for (name, observed, expected) in table {
            assert_eq!(limit_hit(&observed), expected, "{name}");
        }
    }

    #[test]
    fn every_limit_has_its_own_description() {
        let all = [
            ResourceLimit::Memory,
            ResourceLimit::Processes,
            ResourceLimit::CpuTime,
            ResourceLimit::WorkdirSize,
            ResourceLimit::FileSize,
            ResourceLimit::Output,
        ];
        let mut described: Vec<&str> = all.iter().map(|l| l.describe()).collect();
        described.sort();
        described.dedup();
        assert_eq!(described.len(), all.len());
    }
}
