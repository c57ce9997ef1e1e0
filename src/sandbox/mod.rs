//! Running Terraform in a bubblewrap sandbox.
//!
//! Pure: [`SandboxSpec`] (what a run may see and use) and [`bwrap_argv`] (the bwrap command
//! line for it), the cgroup values and the limit verdict. Effects: [`run_sandboxed`] spawns
//! the process with the environment (as bwrap's process environment, never its argv),
//! per-run cgroups and rlimits, in its own process group; streams stdout lines (spilled to
//! disk, lines capped), caps output, watches the workdir size and cgroup events, and
//! enforces the timeout by killing the whole group.

mod bwrap;
mod capture;
mod cgroup;
mod cgroup_host;
mod disk_watch;
mod error;
mod rlimit;
mod run;
mod spec;
mod spill;
mod stream;
mod verdict;

pub use bwrap::{bwrap_argv, sandbox_environment};
pub use capture::STDERR_TAIL_BYTES;
pub use cgroup_host::{limits_in_force, log_limits_in_force};
pub use error::SandboxError;
pub use run::{run_sandboxed, RunOutput};
pub use spec::{EgressMount, Limits, Network, SandboxMode, SandboxSpec, SANDBOX_HOME};
pub use verdict::{ExitKind, ResourceLimit};
