//! Which sandbox resource limit a run hit (`sandbox::verdict` decides; the PR is told).

/// A resource limit a run hit. The run is failed with the `resource_limit` category.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResourceLimit {
    /// The memory cgroup's limit (the kernel's OOM killer ended a process).
    Memory,
    /// The pids cgroup's limit (a fork failed: a fork bomb, or far too many processes).
    Processes,
    /// RLIMIT_CPU (SIGXCPU).
    CpuTime,
    /// The workdir grew past its size cap (the disk watchdog ended the run).
    WorkdirSize,
    /// RLIMIT_FSIZE: a single file grew past the largest allowed (SIGXFSZ).
    FileSize,
    /// stdout + stderr together passed the output cap.
    Output,
}

impl ResourceLimit {
    /// What the PR reads after "the run hit a resource limit: ".
    pub fn describe(self) -> &'static str {
        match self {
            ResourceLimit::Memory => "memory",
            ResourceLimit::Processes => "number of processes",
            ResourceLimit::CpuTime => "CPU time",
            ResourceLimit::WorkdirSize => "working directory size",
            ResourceLimit::FileSize => "file size",
            ResourceLimit::Output => "output size",
        }
    }
}
