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

use super::cgroup::{
    counter, in_force_summary, own_v1_paths, own_v2_path, v1_settings, v2_missing, v2_settings,
    v2_subtree_control, wanted, Controller,
};
use super::spec::Limits;

const CGROUP_ROOT: &str = "/sys/fs/cgroup";
/// The leaf the server moves itself into on cgroup v2 ("no internal processes": a cgroup that
/// hands controllers to children may hold no process itself).
const SERVER_LEAF: &str = "tfgate-server";

/// Where the server may create per-run cgroups.
#[derive(Debug)]
pub struct CgroupHost {
    layout: Layout,
}

#[derive(Debug)]
enum Layout {
    /// One directory per usable v1 controller.
    V1(Vec<(Controller, PathBuf)>),
    /// The server's delegated v2 cgroup: runs are its children, with every controller.
    V2(PathBuf),
}

static HOST: OnceLock<CgroupHost> = OnceLock::new();

/// The host's usable cgroups, probed once (creating and removing a probe directory).
pub fn host() -> &'static CgroupHost {
    HOST.get_or_init(|| {
        let own = fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
        CgroupHost::detect(Path::new(CGROUP_ROOT), &own, std::process::id())
    })
}

fn probe(base: &Path) -> bool {
    let dir = base.join(format!("tfgate-probe-{}", std::process::id()));
    fs::create_dir(&dir).is_ok() && fs::remove_dir(&dir).is_ok()
}

impl CgroupHost {
    /// cgroup v2 when the server's cgroup is delegated with every controller (mounted at
    /// `root`, or at `root/unified` on a hybrid host), else the v1 hierarchies under `root`.
    pub fn detect(root: &Path, proc_self_cgroup: &str, pid: u32) -> CgroupHost {
        let v2 = own_v2_path(proc_self_cgroup).and_then(|own| {
            [root.to_path_buf(), root.join("unified")]
                .into_iter()
                .filter(|mount| mount.join("cgroup.controllers").is_file())
                .find_map(|mount| delegated_v2(&mount.join(own.trim_start_matches('/')), pid))
        });
        if let Some(dir) = v2 {
            return CgroupHost {
                layout: Layout::V2(dir),
            };
        }
        let own = own_v1_paths(proc_self_cgroup);
        let bases = Controller::ALL
            .into_iter()
            .filter_map(|c| {
                let own_path = own.get(c.name())?;
                let base = root.join(c.name()).join(own_path.trim_start_matches('/'));
                probe(&base).then_some((c, base))
            })
            .collect();
        CgroupHost {
            layout: Layout::V1(bases),
        }
    }

    pub fn controllers(&self) -> Vec<Controller> {
        match &self.layout {
            Layout::V1(bases) => bases.iter().map(|(c, _)| *c).collect(),
            Layout::V2(_) => Controller::ALL.to_vec(),
        }
    }

    pub fn is_v2(&self) -> bool {
        matches!(self.layout, Layout::V2(_))
    }
}

/// Makes `own` (the server's v2 cgroup) the parent of run cgroups: every controller offered,
/// the server's processes moved into a leaf, the controllers enabled for children, a child
/// creatable. `None` (and nothing more changed) when any step is refused.
fn delegated_v2(own: &Path, pid: u32) -> Option<PathBuf> {
    let offered = fs::read_to_string(own.join("cgroup.controllers")).ok()?;
    if !v2_missing(&offered, &Controller::ALL).is_empty() {
        return None;
    }
    let procs = fs::read_to_string(own.join("cgroup.procs")).unwrap_or_default();
    let holders: Vec<&str> = procs.split_whitespace().collect();
    if !holders.is_empty() {
        let leaf = own.join(SERVER_LEAF);
        if let Err(e) = fs::create_dir(&leaf) {
            if e.kind() != io::ErrorKind::AlreadyExists {
                return None;
            }
        }
        for holder in holders.iter().copied().chain([pid.to_string().as_str()]) {
            if fs::write(leaf.join("cgroup.procs"), holder).is_err() {
                tracing::warn!(
                    pid = holder,
                    "could not move a process into the server's cgroup leaf"
                );
                return None;
            }
        }
    }
    fs::write(
        own.join("cgroup.subtree_control"),
        v2_subtree_control(&Controller::ALL),
    )
    .ok()?;
    probe(own).then(|| own.to_path_buf())
}

/// Logs, once, which per-run limits are in force on this host (cgroups or only rlimits).
pub fn log_limits_in_force() {
    static LOGGED: OnceLock<()> = OnceLock::new();
    LOGGED.get_or_init(|| {
        // SAFETY: plain syscall without arguments.
        let is_root = unsafe { libc::geteuid() } == 0;
        let (info, warning) = in_force_summary(&host().controllers(), host().is_v2(), is_root);
        tracing::info!("{info}");
        if let Some(warning) = warning {
            tracing::warn!("{warning}");
        }
    });
}

/// One run's cgroups (one per controller in use on v1, one on v2), removed when dropped.
#[derive(Debug)]
pub struct RunCgroup {
    dirs: Vec<(Controller, PathBuf)>,
    procs: Vec<File>,
    v2: bool,
}

static RUN_COUNTER: AtomicU64 = AtomicU64::new(0);

impl RunCgroup {
    /// Creates the run's cgroups with `limits`; `None` when no wanted controller is usable.
    pub fn create(limits: &Limits) -> io::Result<Option<RunCgroup>> {
        RunCgroup::create_on(host(), limits)
    }

    /// [`RunCgroup::create`] on a given host layout.
    pub fn create_on(host: &CgroupHost, limits: &Limits) -> io::Result<Option<RunCgroup>> {
        let n = RUN_COUNTER.fetch_add(1, Ordering::Relaxed);
        let name = format!("tfgate-run-{}-{n}", std::process::id());
        let mut run = RunCgroup {
            dirs: Vec::new(),
            procs: Vec::new(),
            v2: host.is_v2(),
        };
        match &host.layout {
            Layout::V2(parent) => {
                let settings = v2_settings(limits);
                if settings.is_empty() {
                    return Ok(None);
                }
                let dir = parent.join(&name);
                fs::create_dir(&dir)?;
                run.dirs.push((Controller::Memory, dir.clone()));
                for (file, value) in &settings {
                    fs::write(dir.join(file), value)?;
                }
                // `create` opens the kernel's file as it is (and makes one in a test tree).
                let procs = OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .open(dir.join("cgroup.procs"))?;
                run.procs.push(procs);
            }
            Layout::V1(bases) => {
                let settings = v1_settings(limits);
                for controller in wanted(limits) {
                    let Some((_, base)) = bases.iter().find(|(c, _)| *c == controller) else {
                        continue;
                    };
                    let dir = base.join(&name);
                    fs::create_dir(&dir)?;
                    run.dirs.push((controller, dir.clone()));
                    for (_, file, value) in settings.iter().filter(|s| s.0 == controller) {
                        fs::write(dir.join(file), value)?;
                    }
                    run.procs.push(
                        OpenOptions::new()
                            .write(true)
                            .open(dir.join("cgroup.procs"))?,
                    );
                }
            }
        }
        Ok((!run.dirs.is_empty()).then_some(run))
    }

    /// The run's cgroup directories.
    #[cfg(test)]
    pub fn dirs(&self) -> Vec<&Path> {
        self.dirs.iter().map(|(_, d)| d.as_path()).collect()
    }

    /// Open `cgroup.procs` descriptors; the child writes "0" to each before exec.
    pub fn join_fds(&self) -> Vec<RawFd> {
        self.procs.iter().map(AsRawFd::as_raw_fd).collect()
    }

    /// OOM kills in the run's memory cgroup.
    pub fn oom_kills(&self) -> u64 {
        match self.v2 {
            true => self.counter(Controller::Memory, "memory.events", "oom_kill"),
            false => self.counter(Controller::Memory, "memory.oom_control", "oom_kill"),
        }
    }

    /// Forks the run's pids cgroup refused.
    pub fn pids_refused(&self) -> u64 {
        self.counter(Controller::Pids, "pids.events", "max")
    }

    fn counter(&self, controller: Controller, file: &str, key: &str) -> u64 {
        self.dirs
            .iter()
            .find(|(c, _)| self.v2 || *c == controller)
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
            v2: self.v2,
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
    in_force_summary(&host().controllers(), host().is_v2(), is_root)
}

#[cfg(test)]
mod tests {
    //! Against a temporary directory laid out like cgroup file systems (plain files: the
    //! kernel's checks are not there). This host's own cgroup v2 offers no memory controller,
    //! so a real delegated v2 run cannot be proven here; the v1 path runs for real in
    //! `tests/sandbox_limits.rs`.
    use super::*;

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    #[test]
    fn a_delegated_v2_cgroup_hosts_the_runs() {
        let root = tempfile::tempdir().unwrap();
        let own = root.path().join("system.slice/tfgate.service");
        write(
            &root.path().join("cgroup.controllers"),
            "cpuset cpu io memory pids\n",
        );
        write(&own.join("cgroup.controllers"), "cpu memory pids\n");
        write(&own.join("cgroup.procs"), "4242\n");
        let host = CgroupHost::detect(root.path(), "0::/system.slice/tfgate.service\n", 4242);
        assert!(host.is_v2());
        assert_eq!(host.controllers(), Controller::ALL.to_vec());
        // The server left its cgroup for a leaf, and children get every controller.
        assert_eq!(
            fs::read_to_string(own.join("tfgate-server/cgroup.procs")).unwrap(),
            "4242"
        );
        assert_eq!(
            fs::read_to_string(own.join("cgroup.subtree_control")).unwrap(),
            "+memory +pids +cpu"
        );
        let limits = Limits {
            memory_bytes: Some(1 << 20),
            max_pids: Some(64),
            cpu_millis: Some(500),
            ..Limits::default()
        };
        let run = RunCgroup::create_on(&host, &limits).unwrap().unwrap();
        let dir = run.dirs()[0].to_path_buf();
        assert_eq!(dir.parent().unwrap(), own.as_path());
        assert_eq!(
            fs::read_to_string(dir.join("memory.max")).unwrap(),
            "1048576"
        );
        assert_eq!(
            fs::read_to_string(dir.join("memory.swap.max")).unwrap(),
            "0"
        );
        assert_eq!(fs::read_to_string(dir.join("pids.max")).unwrap(), "64");
        assert_eq!(
            fs::read_to_string(dir.join("cpu.max")).unwrap(),
            "50000 100000"
        );
        write(
            &dir.join("memory.events"),
            "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n",
        );
        write(&dir.join("pids.events"), "max 7\n");
        assert_eq!((run.oom_kills(), run.pids_refused()), (1, 7));
    }

    #[test]
    fn without_every_controller_v2_is_not_used() {
        // This machine's hybrid layout: cgroup2 at `unified` with only hugetlb.
        let root = tempfile::tempdir().unwrap();
        write(&root.path().join("unified/cgroup.controllers"), "hugetlb\n");
        write(&root.path().join("unified/cgroup.procs"), "1\n");
        let host = CgroupHost::detect(root.path(), "4:memory:/\n0::/\n", 1);
        assert!(!host.is_v2());
        assert!(
            !root.path().join("unified/tfgate-server").exists(),
            "nothing moved"
        );
        assert!(!root.path().join("unified/cgroup.subtree_control").exists());
        // v1: a memory hierarchy the server may create children in.
        fs::create_dir_all(root.path().join("memory")).unwrap();
        let host = CgroupHost::detect(root.path(), "4:memory:/\n0::/\n", 1);
        assert_eq!(host.controllers(), vec![Controller::Memory]);
    }
}
