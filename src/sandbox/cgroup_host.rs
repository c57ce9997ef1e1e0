//! Per-run cgroups on this host (effects): which controllers the server may use (found once),
//! a run's own cgroups (created with their limits, joined by the child between fork and exec
//! through an already-open `cgroup.procs`, read for limit events, removed after the run).

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use super::cgroup::{counter, in_force_summary, own_v1_paths, v1_settings, wanted, Controller};
use super::spec::Limits;

const CGROUP_ROOT: &str = "/sys/fs/cgroup";

/// The v1 controllers under which the server may create a child of its own cgroup.
#[derive(Debug)]
pub struct CgroupHost {
    bases: Vec<(Controller, PathBuf)>,
}

static HOST: OnceLock<CgroupHost> = OnceLock::new();

/// The host's usable controllers, probed once (creating and removing a probe directory).
pub fn host() -> &'static CgroupHost {
    HOST.get_or_init(|| {
        let own = fs::read_to_string("/proc/self/cgroup")
            .map(|text| own_v1_paths(&text))
            .unwrap_or_default();
        let bases = Controller::ALL
            .into_iter()
            .filter_map(|c| {
                let own_path = own.get(c.name())?;
                let base = Path::new(CGROUP_ROOT)
                    .join(c.name())
                    .join(own_path.trim_start_matches('/'));
                probe(&base).then_some((c, base))
            })
            .collect();
        CgroupHost { bases }
    })
}

fn probe(base: &Path) -> bool {
    let dir = base.join(format!("tfgate-probe-{}", std::process::id()));
    fs::create_dir(&dir).is_ok() && fs::remove_dir(&dir).is_ok()
}

impl CgroupHost {
    pub fn controllers(&self) -> Vec<Controller> {
        self.bases.iter().map(|(c, _)| *c).collect()
    }
}

/// Logs, once, which per-run limits are in force on this host (cgroups or only rlimits).
pub fn log_limits_in_force() {
    static LOGGED: OnceLock<()> = OnceLock::new();
    LOGGED.get_or_init(|| {
        // SAFETY: plain syscall without arguments.
        let is_root = unsafe { libc::geteuid() } == 0;
        let (info, warning) = in_force_summary(&host().controllers(), is_root);
        tracing::info!("{info}");
        if let Some(warning) = warning {
            tracing::warn!("{warning}");
        }
    });
}

/// One run's cgroups (one per controller in use), removed when dropped.
#[derive(Debug)]
pub struct RunCgroup {
    dirs: Vec<(Controller, PathBuf)>,
    procs: Vec<File>,
}

static RUN_COUNTER: AtomicU64 = AtomicU64::new(0);

impl RunCgroup {
    /// Creates the run's cgroups with `limits`; `None` when no wanted controller is usable.
    pub fn create(limits: &Limits) -> io::Result<Option<RunCgroup>> {
        let host = host();
        let settings = v1_settings(limits);
        let n = RUN_COUNTER.fetch_add(1, Ordering::Relaxed);
        let name = format!("tfgate-run-{}-{n}", std::process::id());
        let mut run = RunCgroup {
            dirs: Vec::new(),
            procs: Vec::new(),
        };
        for controller in wanted(limits) {
            let Some((_, base)) = host.bases.iter().find(|(c, _)| *c == controller) else {
                continue;
            };
            let dir = base.join(&name);
            fs::create_dir(&dir)?;
            run.dirs.push((controller, dir.clone()));
            for (_, file, value) in settings.iter().filter(|s| s.0 == controller) {
                fs::write(dir.join(file), value)?;
            }
            let procs = OpenOptions::new()
                .write(true)
                .open(dir.join("cgroup.procs"))?;
            run.procs.push(procs);
        }
        Ok((!run.dirs.is_empty()).then_some(run))
    }

    /// Open `cgroup.procs` descriptors; the child writes "0" to each before exec.
    pub fn join_fds(&self) -> Vec<RawFd> {
        self.procs.iter().map(AsRawFd::as_raw_fd).collect()
    }

    /// OOM kills in the run's memory cgroup.
    pub fn oom_kills(&self) -> u64 {
        self.counter(Controller::Memory, "memory.oom_control", "oom_kill")
    }

    /// Forks the run's pids cgroup refused.
    pub fn pids_refused(&self) -> u64 {
        self.counter(Controller::Pids, "pids.events", "max")
    }

    fn counter(&self, controller: Controller, file: &str, key: &str) -> u64 {
        self.dirs
            .iter()
            .find(|(c, _)| *c == controller)
            .and_then(|(_, dir)| fs::read_to_string(dir.join(file)).ok())
            .map_or(0, |text| counter(&text, key))
    }

    /// Kills what is left in the cgroups and removes them (after the run's leader was
    /// reaped, the pid namespace's last tasks may still be exiting: retried briefly).
    pub async fn release(mut self) {
        for _ in 0..100 {
            if self.try_remove() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let left: Vec<String> = self
            .dirs
            .iter()
            .map(|(_, d)| d.display().to_string())
            .collect();
        tracing::warn!(cgroups = ?left, "could not remove a run's cgroups");
        self.dirs.clear();
    }

    /// One attempt: SIGKILL every task left, then rmdir; true when all are gone.
    fn try_remove(&mut self) -> bool {
        self.procs.clear();
        self.dirs.retain(|(_, dir)| {
            if let Ok(pids) = fs::read_to_string(dir.join("cgroup.procs")) {
                for pid in pids
                    .lines()
                    .filter_map(|p| p.trim().parse::<libc::pid_t>().ok())
                {
                    // SAFETY: plain syscall; these are the run's own tasks.
                    unsafe {
                        libc::kill(pid, libc::SIGKILL);
                    }
                }
            }
            match fs::remove_dir(dir) {
                Ok(()) => false,
                Err(e) => e.kind() != io::ErrorKind::NotFound,
            }
        });
        self.dirs.is_empty()
    }
}

impl Drop for RunCgroup {
    /// A run dropped mid-way (cancelled): its tasks are being killed; removal is retried on
    /// a short-lived thread, off the async runtime.
    fn drop(&mut self) {
        if self.dirs.is_empty() || self.try_remove() {
            return;
        }
        let mut rest = RunCgroup {
            dirs: std::mem::take(&mut self.dirs),
            procs: Vec::new(),
        };
        std::thread::spawn(move || {
            for _ in 0..100 {
                std::thread::sleep(Duration::from_millis(20));
                if rest.try_remove() {
                    return;
                }
            }
            tracing::warn!("could not remove a dropped run's cgroups");
            rest.dirs.clear();
        });
    }
}

/// Joins the cgroups behind `fds` (runs in the forked child before exec: only write(2)).
pub(crate) fn join_in_child(fds: &[RawFd]) -> io::Result<()> {
    for &fd in fds {
        // SAFETY: writing a static byte to a descriptor the parent opened.
        if unsafe { libc::write(fd, b"0".as_ptr().cast(), 1) } != 1 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The per-run limits in force on this host: the start-up line and its warning, if any.
pub fn limits_in_force() -> (String, Option<String>) {
    // SAFETY: plain syscall without arguments.
    let is_root = unsafe { libc::geteuid() } == 0;
    in_force_summary(&host().controllers(), is_root)
}
