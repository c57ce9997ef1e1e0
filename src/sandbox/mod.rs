//! Running Terraform in a bubblewrap sandbox.
//!
//! Pure: [`SandboxSpec`] (what a run may see and use) and [`bwrap_argv`] (the bwrap command
//! line for it). Effects: [`run_sandboxed`] spawns the process with the env allowlist and
//! rlimits, in its own process group, streams stdout lines, caps output and enforces the
//! timeout by killing the whole group.

mod bwrap;
mod error;
mod rlimit;
mod run;
mod spec;
mod stream;

pub use bwrap::bwrap_argv;
pub use error::SandboxError;
pub use run::{run_sandboxed, ExitKind, RunOutput, STDERR_TAIL_BYTES};
pub use spec::{EgressMount, Limits, Network, SandboxMode, SandboxSpec, SANDBOX_HOME};
