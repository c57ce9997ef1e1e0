//! Resource limits a PR cannot escape, under real bubblewrap: a fork bomb, a disk filler, a
//! huge file, a memory hog and a huge output line each end their run with the resource-limit
//! outcome, while a webhook delivered to the running server is still answered. And the run's
//! secrets travel in bwrap's environment, never on its command line.

mod sandbox_support;
mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use axum::http::StatusCode;
use sandbox_support::scratch_dir;
use support::{pr_comment, Backend, Harness};
use tfgate::sandbox::{
    run_sandboxed, ExitKind, Limits, Network, ResourceLimit, RunOutput, SandboxMode, SandboxSpec,
};

const MIB: u64 = 1024 * 1024;

fn shell_spec(workdir: &Path, limits: Limits) -> SandboxSpec {
    SandboxSpec {
        workdir: workdir.to_path_buf(),
        terraform_bin: PathBuf::from("/bin/sh"),
        plugin_cache: None,
        extra_ro_binds: vec![],
        rw_binds: vec![],
        env: BTreeMap::from([("PATH".to_string(), "/usr/bin:/bin".to_string())]),
        network: Network::None,
        limits,
        timeout: Duration::from_secs(300),
        output_cap_bytes: 64 << 20,
    }
}

async fn until_exists(path: &Path) {
    while !path.exists() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Runs `script` (which first creates `started` in its workdir) under bwrap; once it has
/// started, a webhook is delivered to a running server and must be accepted. Returns the
/// run's output and the lines it streamed.
async fn run_while_serving(script: &str, limits: Limits, output_cap: usize) -> (RunOutput, u64) {
    let harness = Harness::start(Backend::Sqlite)
        .await
        .expect("sqlite harness");
    let work = scratch_dir("limits-");
    let mut spec = shell_spec(work.path(), limits);
    spec.output_cap_bytes = output_cap;
    let script = format!("touch started; {script}");
    let run = tokio::spawn(async move {
        let args = vec!["-c".to_string(), script];
        let mut lines = 0u64;
        let out = run_sandboxed(
            &spec,
            SandboxMode::Bwrap,
            Path::new("/bin/sh"),
            &args,
            |_| lines += 1,
        )
        .await;
        (out, lines)
    });
    until_exists(&work.path().join("started")).await;
    let (status, _) = harness
        .deliver("issue_comment", &pr_comment("/help", "alice"))
        .await;
    assert_eq!(
        status,
        StatusCode::ACCEPTED,
        "the server answers during the run"
    );
    let (out, lines) = run.await.expect("run task");
    (out.expect("the sandbox ran"), lines)
}

#[tokio::test]
async fn fork_bomb_hits_the_process_limit() {
    let limits = Limits {
        max_pids: Some(64),
        ..Limits::default()
    };
    let (out, _) = run_while_serving("bomb() { bomb | bomb & }; bomb; wait", limits, 1 << 20).await;
    assert_eq!(
        out.status,
        ExitKind::LimitHit(ResourceLimit::Processes),
        "{}",
        out.stderr_tail
    );
}

#[tokio::test]
async fn disk_filler_hits_the_workdir_cap() {
    let limits = Limits {
        workdir_bytes: Some(32 * MIB),
        ..Limits::default()
    };
    // 4 MiB files (under the file size limit) until 10 GB.
    let script = "i=0; while [ $i -lt 2500 ]; do head -c 4194304 /dev/zero > f$i || exit 1; \
                  i=$((i+1)); done";
    let (out, _) = run_while_serving(script, limits, 1 << 20).await;
    assert_eq!(
        out.status,
        ExitKind::LimitHit(ResourceLimit::WorkdirSize),
        "{}",
        out.stderr_tail
    );
}

#[tokio::test]
async fn ten_gigabyte_file_hits_the_file_size_limit() {
    let limits = Limits {
        file_size_bytes: Some(16 * MIB),
        workdir_bytes: Some(1024 * MIB),
        ..Limits::default()
    };
    let (out, _) = run_while_serving("head -c 10G /dev/zero > big", limits, 1 << 20).await;
    assert_eq!(
        out.status,
        ExitKind::LimitHit(ResourceLimit::FileSize),
        "{}",
        out.stderr_tail
    );
}

#[tokio::test]
async fn memory_hog_hits_the_memory_limit() {
    let limits = Limits {
        memory_bytes: Some(64 * MIB),
        ..Limits::default()
    };
    let script = "x=$(head -c 400000000 /dev/zero | tr '\\0' x); echo ${#x}";
    let (out, _) = run_while_serving(script, limits, 1 << 20).await;
    assert_eq!(
        out.status,
        ExitKind::LimitHit(ResourceLimit::Memory),
        "{}",
        out.stderr_tail
    );
}

#[tokio::test]
async fn gigabyte_line_hits_the_output_cap_without_being_held() {
    let limits = Limits {
        line_bytes: MIB as usize,
        ..Limits::default()
    };
    let script = "head -c 1073741824 /dev/zero | tr '\\0' x";
    let (out, lines) = run_while_serving(script, limits, 8 << 20).await;
    assert_eq!(out.status, ExitKind::LimitHit(ResourceLimit::Output));
    assert_eq!((lines, out.overlong_lines), (0, 1));
    assert!(out.stdout.len() as u64 <= MIB, "only the tail is read back");
}

#[tokio::test]
async fn over_long_line_is_dropped_and_the_run_goes_on() {
    let limits = Limits {
        line_bytes: MIB as usize,
        ..Limits::default()
    };
    let work = scratch_dir("long-line-");
    let spec = shell_spec(work.path(), limits);
    let args = vec![
        "-c".to_string(),
        "echo before; head -c 3000000 /dev/zero | tr '\\0' x; echo; echo after".to_string(),
    ];
    let mut lines = Vec::new();
    let out = run_sandboxed(
        &spec,
        SandboxMode::Bwrap,
        Path::new("/bin/sh"),
        &args,
        |l| lines.push(l.to_string()),
    )
    .await
    .unwrap();
    assert_eq!(out.status, ExitKind::Exited(0), "{}", out.stderr_tail);
    assert_eq!(lines, ["before", "after"]);
    assert_eq!(out.overlong_lines, 1);
    assert!(
        out.stdout.len() > 3_000_000,
        "the full output is still read back"
    );
}

/// Processes on this host whose command line mentions `needle`, with that command line.
fn processes_mentioning(needle: &str) -> Vec<(u32, String)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(raw) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&raw).replace('\0', " ");
        if cmdline.contains(needle) && pid != std::process::id() {
            found.push((pid, cmdline));
        }
    }
    found
}

#[tokio::test]
async fn credentials_are_not_on_the_command_line_but_reach_the_program() {
    const SECRET_KEY: &str = "wJalrSecretAccessKeyValue4711";
    const TOKEN: &str = "FwoGZXIvSessionTokenValue0815";
    const INPUT: &str = "shared-input-value-2342";
    let work = scratch_dir("cmdline-");
    let mut spec = shell_spec(work.path(), Limits::default());
    spec.env.extend([
        ("AWS_SECRET_ACCESS_KEY".to_string(), SECRET_KEY.to_string()),
        ("AWS_SESSION_TOKEN".to_string(), TOKEN.to_string()),
        ("TF_VAR_shared".to_string(), INPUT.to_string()),
    ]);
    let workdir = work.path().display().to_string();
    let run = tokio::spawn(async move {
        let script = "env > env.out; touch started; while [ ! -e stop ]; do sleep 0.05; done";
        let args = vec!["-c".to_string(), script.to_string()];
        run_sandboxed(
            &spec,
            SandboxMode::Bwrap,
            Path::new("/bin/sh"),
            &args,
            |_| {},
        )
        .await
    });
    until_exists(&work.path().join("started")).await;
    let bwraps: Vec<(u32, String)> = processes_mentioning(&workdir)
        .into_iter()
        .filter(|(_, cmdline)| cmdline.contains("--unshare-pid"))
        .collect();
    assert!(
        !bwraps.is_empty(),
        "bwrap is running with the workdir on its command line"
    );
    for (pid, cmdline) in &bwraps {
        for secret in [SECRET_KEY, TOKEN, INPUT] {
            assert!(
                !cmdline.contains(secret),
                "pid {pid}: {secret} in {cmdline}"
            );
        }
        assert!(!cmdline.contains("--setenv"), "pid {pid}: {cmdline}");
    }
    // The values travel in bwrap's process environment (readable only by its owner).
    let environ = std::fs::read(format!("/proc/{}/environ", bwraps[0].0)).unwrap();
    assert!(String::from_utf8_lossy(&environ).contains(SECRET_KEY));
    std::fs::write(work.path().join("stop"), "").unwrap();
    let out = run.await.unwrap().unwrap();
    assert_eq!(out.status, ExitKind::Exited(0), "{}", out.stderr_tail);
    let env = std::fs::read_to_string(work.path().join("env.out")).unwrap();
    for line in [
        format!("AWS_SECRET_ACCESS_KEY={SECRET_KEY}"),
        format!("AWS_SESSION_TOKEN={TOKEN}"),
        format!("TF_VAR_shared={INPUT}"),
        "HOME=/home/tfgate".to_string(),
    ] {
        assert!(env.lines().any(|l| l == line), "{line} missing in:\n{env}");
    }
}
