//! Running a program under the sandbox and supervising it (effects).

use std::ffi::OsString;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::process::{Child, Command};
use tokio::time::{interval, sleep_until, Instant, MissedTickBehavior};

use super::bwrap::{bwrap_argv, sandbox_environment};
use super::capture::{Capture, PumpEnd, Watch};
use super::cgroup_host::{join_in_child, RunCgroup};
use super::error::SandboxError;
use super::rlimit::{apply_rlimits, rlimit_pairs};
use super::spec::{SandboxMode, SandboxSpec};
use super::verdict::{limit_hit, ExitKind, ResourceLimit};

/// stdout kept of a run that passed the output cap (its last bytes; the rest is noise).
const STDOUT_TAIL_ON_LIMIT: u64 = 1024 * 1024;

/// Home directory in [`SandboxMode::None`], created inside the workdir.
const DEV_HOME_DIR: &str = ".tfgate-home";

/// What a supervised run produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutput {
    pub status: ExitKind,
    /// Captured stdout, at most `output_cap_bytes` (invalid UTF-8 replaced); spilled to an
    /// unlinked temporary file while the run goes on, read back when it ended. Of a run that
    /// passed the output cap only the last MiB.
    pub stdout: String,
    /// The last [`STDERR_TAIL_BYTES`] bytes of stderr.
    pub stderr_tail: String,
    pub duration: Duration,
    /// stdout lines longer than the spec's `limits.line_bytes`, not given to `on_line`.
    pub overlong_lines: u64,
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
    let cgroup = RunCgroup::create(&spec.limits)?;
    let mut command = build_command(spec, mode, program, args, cgroup.as_ref())?;
    let mut child = command.spawn().map_err(|source| SandboxError::Spawn {
        program: program.to_path_buf(),
        source,
    })?;
    let mut group = GroupKiller::for_child(&child);
    let stdout = child.stdout.take().expect("stdout is piped");
    let stderr = child.stderr.take().expect("stderr is piped");
    let deadline = started + spec.timeout;
    let watch = Watch {
        cgroup: cgroup.as_ref(),
        workdir: spec.workdir.clone(),
        rw_binds: spec.rw_binds.clone(),
        workdir_cap: spec.limits.workdir_bytes,
        in_bwrap: mode == SandboxMode::Bwrap,
    };

    let mut capture = Capture::new(spec.output_cap_bytes, spec.limits.line_bytes)?;
    let ending = capture
        .pump(stdout, stderr, deadline, &watch, &mut on_line)
        .await?;
    let ending = match ending {
        PumpEnd::Eof => wait_watching(&mut child, deadline, &watch).await?,
        other => other,
    };
    let status = match ending {
        PumpEnd::Eof => {
            let exit = child.wait().await?;
            group.disarm();
            capture.lines.finish(&mut on_line);
            let exit = exit_kind(exit);
            match limit_hit(&watch.observe(Some(exit), capture.capped()).await) {
                Some(limit) => ExitKind::LimitHit(limit),
                None => exit,
            }
        }
        PumpEnd::TimedOut => {
            group.kill_and_reap(&mut child).await?;
            ExitKind::TimedOut
        }
        PumpEnd::Limit(limit) => {
            group.kill_and_reap(&mut child).await?;
            ExitKind::LimitHit(limit)
        }
    };
    if let Some(cgroup) = cgroup {
        cgroup.release().await;
    }
    let tail =
        (status == ExitKind::LimitHit(ResourceLimit::Output)).then_some(STDOUT_TAIL_ON_LIMIT);
    Ok(RunOutput {
        status,
        stdout: String::from_utf8_lossy(&capture.stdout.read_back(tail)?).into_owned(),
        stderr_tail: capture.stderr_tail.to_text(),
        duration: started.elapsed(),
        overlong_lines: capture.lines.dropped(),
    })
}

fn build_command(
    spec: &SandboxSpec,
    mode: SandboxMode,
    program: &Path,
    args: &[String],
    cgroup: Option<&RunCgroup>,
) -> Result<Command, SandboxError> {
    let mut command = match mode {
        SandboxMode::Bwrap => {
            let mut command = Command::new(find_bwrap()?);
            // The run's environment goes through bwrap's own environment, never its argv.
            command.env_clear();
            command.envs(sandbox_environment(spec));
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
    let cgroup_fds = cgroup.map(RunCgroup::join_fds).unwrap_or_default();
    // SAFETY: the closure only calls write(2) on open descriptors and setrlimit
    // (async-signal-safe) on pre-built data; the descriptors outlive the spawn.
    unsafe {
        command.pre_exec(move || {
            join_in_child(&cgroup_fds)?;
            apply_rlimits(&rlimits)
        });
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

/// Waits for the child to exit (then `Eof`), the deadline, or a limit the watchdog sees
/// (e.g. a fork bomb that closed its pipes).
async fn wait_watching(
    child: &mut Child,
    deadline: Instant,
    watch: &Watch<'_>,
) -> std::io::Result<PumpEnd> {
    let mut ticks = interval(Duration::from_millis(500));
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let timer = sleep_until(deadline);
    tokio::pin!(timer);
    loop {
        tokio::select! {
            status = child.wait() => return status.map(|_| PumpEnd::Eof),
            _ = ticks.tick() => {
                if let Some(limit) = limit_hit(&watch.observe(None, false).await) {
                    return Ok(PumpEnd::Limit(limit));
                }
            }
            _ = &mut timer => return Ok(PumpEnd::TimedOut),
        }
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
