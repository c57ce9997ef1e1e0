//! Reading a supervised process's output while watching its limits (effects): stdout spills
//! to disk and feeds the line splitter, stderr keeps its tail, both count against the output
//! cap; a watchdog ticks to measure the workdir and read the run's cgroup counters.

use std::path::PathBuf;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::{ChildStderr, ChildStdout};
use tokio::time::{interval, sleep_until, Instant, MissedTickBehavior};

use super::cgroup_host::RunCgroup;
use super::disk_watch::disk_usage;
use super::spill::Spill;
use super::stream::{LineSplitter, OutputBudget, TailBuffer};
use super::verdict::{limit_hit, ExitKind, Observed, ResourceLimit};

/// How much of stderr is kept (its last bytes).
pub const STDERR_TAIL_BYTES: usize = 16 * 1024;

/// How often the watchdog measures the workdir and reads the cgroup counters. A run can
/// overshoot the workdir cap by what it writes in this time (RLIMIT_FSIZE bounds one file).
const WATCH_EVERY: Duration = Duration::from_millis(500);

pub(super) enum PumpEnd {
    Eof,
    TimedOut,
    Limit(ResourceLimit),
}

/// What the watchdog looks at.
pub(super) struct Watch<'a> {
    pub cgroup: Option<&'a RunCgroup>,
    pub workdir: PathBuf,
    /// The other host directories the run may write (the spec's `rw_binds`), counted with
    /// the workdir against its cap.
    pub rw_binds: Vec<PathBuf>,
    pub workdir_cap: Option<u64>,
    pub in_bwrap: bool,
}

impl Watch<'_> {
    /// What is observable now (`exit`: how the process ended, when it did).
    pub async fn observe(&self, exit: Option<ExitKind>, output_capped: bool) -> Observed {
        let workdir_bytes = match self.workdir_cap {
            Some(cap) => {
                let mut dirs = vec![self.workdir.clone()];
                dirs.extend(self.rw_binds.iter().cloned());
                tokio::task::spawn_blocking(move || {
                    dirs.iter().try_fold(0u64, |used, dir| {
                        let left = cap.saturating_sub(used);
                        Ok::<u64, std::io::Error>(used.saturating_add(disk_usage(dir, left)?))
                    })
                })
                .await
                .ok()
                .and_then(Result::ok)
            }
            None => None,
        };
        Observed {
            exit,
            oom_kills: self.cgroup.map_or(0, RunCgroup::oom_kills),
            pids_refused: self.cgroup.map_or(0, RunCgroup::pids_refused),
            workdir_bytes,
            workdir_cap: self.workdir_cap,
            output_capped,
            in_bwrap: self.in_bwrap,
        }
    }
}

pub(super) struct Capture {
    budget: OutputBudget,
    pub lines: LineSplitter,
    pub stdout: Spill,
    pub stderr_tail: TailBuffer,
}

impl Capture {
    pub fn new(cap: usize, max_line: usize) -> std::io::Result<Self> {
        Ok(Capture {
            budget: OutputBudget::new(cap),
            lines: LineSplitter::new(max_line),
            stdout: Spill::new()?,
            stderr_tail: TailBuffer::new(STDERR_TAIL_BYTES),
        })
    }

    pub fn capped(&self) -> bool {
        self.budget.exceeded()
    }

    /// Reads both pipes until both close, the deadline passes, the cap is exceeded or the
    /// watchdog sees a limit hit.
    pub async fn pump(
        &mut self,
        mut stdout: ChildStdout,
        mut stderr: ChildStderr,
        deadline: Instant,
        watch: &Watch<'_>,
        on_line: &mut impl FnMut(&str),
    ) -> std::io::Result<PumpEnd> {
        let mut out_buf = vec![0u8; 16 * 1024];
        let mut err_buf = vec![0u8; 4 * 1024];
        let (mut out_open, mut err_open) = (true, true);
        let timer = sleep_until(deadline);
        tokio::pin!(timer);
        let mut ticks = interval(WATCH_EVERY);
        ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
        while out_open || err_open {
            tokio::select! {
                read = stdout.read(&mut out_buf), if out_open => {
                    let n = read?;
                    if n == 0 {
                        out_open = false;
                    } else {
                        let kept = &out_buf[..self.budget.take(n)];
                        self.stdout.write(kept)?;
                        self.lines.feed(kept, &mut *on_line);
                    }
                }
                read = stderr.read(&mut err_buf), if err_open => {
                    let n = read?;
                    if n == 0 {
                        err_open = false;
                    } else {
                        let kept = self.budget.take(n);
                        self.stderr_tail.push(&err_buf[..kept]);
                    }
                }
                _ = ticks.tick() => {
                    if let Some(limit) = limit_hit(&watch.observe(None, false).await) {
                        return Ok(PumpEnd::Limit(limit));
                    }
                }
                _ = &mut timer => return Ok(PumpEnd::TimedOut),
            }
            if self.budget.exceeded() {
                return Ok(PumpEnd::Limit(ResourceLimit::Output));
            }
        }
        Ok(PumpEnd::Eof)
    }
}
