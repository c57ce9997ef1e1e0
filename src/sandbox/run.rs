//! Running a program under the sandbox and supervising it (effects).

use std::ffi::OsString;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::{Child, ChildStderr, ChildStdout, Command};
use tokio::time::{sleep_until, Instant};

use super::bwrap::bwrap_argv;
use super::error::SandboxError;
use super::rlimit::{apply_rlimits, rlimit_pairs};
use super::spec::{SandboxMode, SandboxSpec};
use super::stream::{LineSplitter, OutputBudget, TailBuffer};

/// How much of stderr is kept (its last bytes).
pub const STDERR_TAIL_BYTES: usize = 16 * 1024;

/// Home directory in [`SandboxMode::None`], created inside the workdir.
const DEV_HOME_DIR: &str = ".tfgate-home";

/// How a supervised run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitKind {
    /// Exited with this code. Under bwrap, a program killed by signal N shows as 128+N.
    Exited(i32),
    /// The spawned process itself (bwrap, or the program in dev mode) died of this signal.
    Signaled(i32),
    /// Ran past the spec's timeout; the whole process group was killed.
    TimedOut,
    /// Wrote more than the spec's output cap; the whole process group was killed.
    OutputCapped,
}

/// What a supervised run produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutput {
    pub status: ExitKind,
    /// Captured stdout, at most `output_cap_bytes` (invalid UTF-8 replaced).
    pub stdout: String,
    /// The last [`STDERR_TAIL_BYTES`] bytes of stderr.
    pub stderr_tail: String,
    pub duration: Duration,
}

/// Runs `program args…` as described by `spec`, streaming each complete stdout line to
/// `on_line` as it arrives.
///
/// - stdin is `/dev/null`; the environment is exactly `spec.env` (`HOME` replaced by the
///   sandbox's own home);
/// - rlimits are set between fork and exec and inherited by every descendant;
/// - the spawned process leads its own process group; on timeout or output cap the whole
///   group gets SIGKILL and the leader is reaped before returning. Under bwrap the program
///   is pid 1's child in a private pid namespace, so killing bwrap kills everything inside
///   (`--die-with-parent`). In [`SandboxMode::None`], a descendant that left the group
///   (`setsid`) or closed its pipes and outlived a normal exit is not tracked;
/// - when the returned future is dropped, the group is killed too.
pub async fn run_sandboxed(
    spec: &SandboxSpec,
    mode: SandboxMode,
    program: &Path,
    args: &[String],
    mut on_line: impl FnMut(&str),
) -> Result<RunOutput, SandboxError> {
    spec.validate()?;
    if !spec.workdir.is_dir() {
        return Err(SandboxError::InvalidSpec(format!(
            "workdir is not a directory: {}",
            spec.workdir.display()
        )));
    }
    let started = Instant::now();
    let mut command = build_command(spec, mode, program, args)?;
    let mut child = command.spawn().map_err(|source| SandboxError::Spawn {
        program: program.to_path_buf(),
        source,
    })?;
    let mut group = GroupKiller::for_child(&child);
    let stdout = child.stdout.take().expect("stdout is piped");
    let stderr = child.stderr.take().expect("stderr is piped");
    let deadline = started + spec.timeout;

    let mut capture = Capture::new(spec.output_cap_bytes);
    let ending = capture.pump(stdout, stderr, deadline, &mut on_line).await?;
    let status = match ending {
        PumpEnd::Eof => match wait_until(&mut child, deadline).await? {
            Some(exit) => {
                group.disarm();
                capture.lines.finish(&mut on_line);
                exit_kind(exit)
            }
            None => {
                group.kill_and_reap(&mut child).await?;
                ExitKind::TimedOut
            }
        },
        PumpEnd::TimedOut => {
            group.kill_and_reap(&mut child).await?;
            ExitKind::TimedOut
        }
        PumpEnd::Capped => {
            group.kill_and_reap(&mut child).await?;
            ExitKind::OutputCapped
        }
    };
    Ok(RunOutput {
        status,
        stdout: String::from_utf8_lossy(&capture.stdout).into_owned(),
        stderr_tail: capture.stderr_tail.to_text(),
        duration: started.elapsed(),
    })
}

fn build_command(
    spec: &SandboxSpec,
    mode: SandboxMode,
    program: &Path,
    args: &[String],
) -> Result<Command, SandboxError> {
    let mut command = match mode {
        SandboxMode::Bwrap => {
            let mut command = Command::new(find_bwrap()?);
            command.env_clear();
            command.args(bwrap_argv(spec, program, args));
            command
        }
        SandboxMode::None => {
            tracing::warn!(
                program = %program.display(),
                "sandbox = none: Terraform runs WITHOUT isolation (development only)"
            );
            let home = spec.workdir.join(DEV_HOME_DIR);
            std::fs::create_dir_all(&home)?;
            let mut command = Command::new(program);
            command.env_clear();
            command.envs(spec.env.iter().filter(|(k, _)| k.as_str() != "HOME"));
            command.env("HOME", home);
            command.args(args);
            command.current_dir(&spec.workdir);
            command
        }
    };
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let rlimits = rlimit_pairs(&spec.limits);
    // SAFETY: the closure only calls setrlimit (async-signal-safe) on pre-built data.
    unsafe {
        command.pre_exec(move || apply_rlimits(&rlimits));
    }
    Ok(command)
}

/// `bwrap` from the server's PATH, else `/usr/bin/bwrap`.
fn find_bwrap() -> Result<PathBuf, SandboxError> {
    let path = std::env::var_os("PATH").unwrap_or_else(|| OsString::from("/usr/bin:/bin"));
    std::env::split_paths(&path)
        .map(|dir| dir.join("bwrap"))
        .chain([PathBuf::from("/usr/bin/bwrap")])
        .find(|candidate| candidate.is_file())
        .ok_or(SandboxError::BwrapMissing)
}

fn exit_kind(status: ExitStatus) -> ExitKind {
    match (status.code(), status.signal()) {
        (Some(code), _) => ExitKind::Exited(code),
        (None, Some(signal)) => ExitKind::Signaled(signal),
        (None, None) => ExitKind::Exited(-1),
    }
}

/// Waits for the child until `deadline`; `None` when the deadline passed first.
async fn wait_until(child: &mut Child, deadline: Instant) -> std::io::Result<Option<ExitStatus>> {
    tokio::select! {
        status = child.wait() => status.map(Some),
        _ = sleep_until(deadline) => Ok(None),
    }
}

enum PumpEnd {
    Eof,
    TimedOut,
    Capped,
}

struct Capture {
    budget: OutputBudget,
    lines: LineSplitter,
    stdout: Vec<u8>,
    stderr_tail: TailBuffer,
}

impl Capture {
    fn new(cap: usize) -> Self {
        Capture {
            budget: OutputBudget::new(cap),
            lines: LineSplitter::default(),
            stdout: Vec::new(),
            stderr_tail: TailBuffer::new(STDERR_TAIL_BYTES),
        }
    }

    /// Reads both pipes until both close, the deadline passes, or the cap is exceeded.
    async fn pump(
        &mut self,
        mut stdout: ChildStdout,
        mut stderr: ChildStderr,
        deadline: Instant,
        on_line: &mut impl FnMut(&str),
    ) -> std::io::Result<PumpEnd> {
        let mut out_buf = vec![0u8; 16 * 1024];
        let mut err_buf = vec![0u8; 4 * 1024];
        let (mut out_open, mut err_open) = (true, true);
        let timer = sleep_until(deadline);
        tokio::pin!(timer);
        while out_open || err_open {
            tokio::select! {
                read = stdout.read(&mut out_buf), if out_open => {
                    let n = read?;
                    if n == 0 {
                        out_open = false;
                    } else {
                        let kept = &out_buf[..self.budget.take(n)];
                        self.stdout.extend_from_slice(kept);
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
                _ = &mut timer => return Ok(PumpEnd::TimedOut),
            }
            if self.budget.exceeded() {
                return Ok(PumpEnd::Capped);
            }
        }
        Ok(PumpEnd::Eof)
    }
}

/// SIGKILLs the child's whole process group unless disarmed (also on drop, so a cancelled
/// run leaves nothing behind). The group id is the leader's pid; it cannot be reused while
/// the leader is unreaped, which is why the kill happens before the reap.
struct GroupKiller {
    pgid: Option<libc::pid_t>,
}

impl GroupKiller {
    fn for_child(child: &Child) -> Self {
        GroupKiller {
            pgid: child.id().and_then(|id| libc::pid_t::try_from(id).ok()),
        }
    }

    fn disarm(&mut self) {
        self.pgid = None;
    }

    fn kill(&mut self) {
        if let Some(pgid) = self.pgid.take() {
            // SAFETY: plain syscall; a negative pid addresses the process group.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }

    async fn kill_and_reap(&mut self, child: &mut Child) -> std::io::Result<()> {
        self.kill();
        child.wait().await.map(|_| ())
    }
}

impl Drop for GroupKiller {
    fn drop(&mut self) {
        self.kill();
    }
}
