//! Process supervision under real bwrap (and dev mode): environment allowlist, exit
//! statuses, line streaming, timeout killing the whole process group, output cap, rlimits.
//! These use /bin/sh and coreutils only (no Terraform), so they always run.

mod sandbox_support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use sandbox_support::*;
use tfgate::sandbox::{
    run_sandboxed, ExitKind, Limits, Network, ResourceLimit, RunOutput, SandboxMode, SandboxSpec,
};

const MODES: [SandboxMode; 2] = [SandboxMode::Bwrap, SandboxMode::None];

fn shell_spec(workdir: &Path) -> SandboxSpec {
    SandboxSpec {
        workdir: workdir.to_path_buf(),
        terraform_bin: PathBuf::from("/bin/sh"),
        plugin_cache: None,
        extra_ro_binds: vec![],
        rw_binds: vec![],
        env: BTreeMap::from([
            ("PATH".to_string(), "/usr/bin:/bin".to_string()),
            ("TFGATE_ALLOWED".to_string(), "allowed-value".to_string()),
        ]),
        network: Network::None,
        limits: Limits::default(),
        timeout: Duration::from_secs(30),
        output_cap_bytes: 1 << 20,
    }
}

async fn run(
    spec: &SandboxSpec,
    mode: SandboxMode,
    program: &str,
    args: &[&str],
) -> (RunOutput, Vec<String>) {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let mut lines = Vec::new();
    let output = run_sandboxed(spec, mode, Path::new(program), &args, |l| {
        lines.push(l.to_string())
    })
    .await
    .expect("ran");
    (output, lines)
}

async fn sh(spec: &SandboxSpec, mode: SandboxMode, script: &str) -> (RunOutput, Vec<String>) {
    run(spec, mode, "/bin/sh", &["-c", script]).await
}

#[tokio::test]
async fn environment_is_exactly_the_allowlist() {
    std::env::set_var("TFGATE_PARENT_SECRET", "parent-secret-value");
    for mode in MODES {
        let work = scratch_dir("env-");
        let spec = shell_spec(work.path());
        let (output, lines) = run(&spec, mode, "/usr/bin/env", &[]).await;
        assert_eq!(
            output.status,
            ExitKind::Exited(0),
            "{mode:?}: {}",
            output.stderr_tail
        );
        let names: BTreeSet<&str> = lines.iter().filter_map(|l| l.split('=').next()).collect();
        // bwrap's --chdir also sets PWD (to the workdir).
        let mut expected = BTreeSet::from(["HOME", "PATH", "TFGATE_ALLOWED"]);
        if mode == SandboxMode::Bwrap {
            expected.insert("PWD");
            assert!(lines.contains(&format!("PWD={}", work.path().display())));
        }
        assert_eq!(names, expected, "{mode:?}");
        assert!(lines.contains(&"TFGATE_ALLOWED=allowed-value".to_string()));
        let home = if mode == SandboxMode::Bwrap {
            "/home/tfgate".to_string()
        } else {
            work.path().join(".tfgate-home").display().to_string()
        };
        assert!(
            lines.contains(&format!("HOME={home}")),
            "{mode:?}: {lines:?}"
        );
    }
}

#[tokio::test]
async fn secret_env_of_the_server_is_invisible_to_terraform_and_provider() {
    let Some(tools) = tools_with_provider() else {
        return;
    };
    std::env::set_var("TFGATE_SERVER_SECRET_ENV", "server-env-secret-4711");
    for mode in MODES {
        let work = scratch_dir("env-tf-");
        let config = format!(
            r#"{PROVIDER_BLOCK}
resource "fake_thing" "env" {{
  name      = "env"
  read_file = "/proc/self/environ"
}}
output "provider_env" {{ value = fake_thing.env.read_content }}
output "terraform_env" {{ value = replace(file("/proc/self/environ"), "\u0000", "\n") }}
"#
        );
        write(work.path(), "main.tf", &config);
        let mut spec = spec_for(&tools, work.path(), Network::None);
        spec.env
            .insert("TFGATE_ALLOWED_MARKER".into(), "visible-marker".into());
        terraform_ok(&spec, mode, &["init", "-input=false", "-no-color"]).await;
        let lines = terraform_ok(
            &spec,
            mode,
            &["apply", "-auto-approve", "-input=false", "-json"],
        )
        .await;
        let outputs = apply_outputs(&lines);
        for name in ["provider_env", "terraform_env"] {
            let env = outputs[name].as_str().unwrap();
            assert!(
                env.contains("TFGATE_ALLOWED_MARKER=visible-marker"),
                "{mode:?} {name}: {env}"
            );
            assert!(
                !env.contains("server-env-secret-4711"),
                "{mode:?} {name} leaked: {env}"
            );
            assert!(
                !env.contains("TFGATE_SERVER_SECRET_ENV"),
                "{mode:?} {name} leaked: {env}"
            );
        }
    }
}

#[tokio::test]
async fn exit_code_lines_and_stderr_tail() {
    for mode in MODES {
        let work = scratch_dir("exit-");
        let spec = shell_spec(work.path());
        let (output, lines) = sh(
            &spec,
            mode,
            "echo one; echo oops >&2; printf 'two\\r\\nlast'; exit 3",
        )
        .await;
        assert_eq!(output.status, ExitKind::Exited(3), "{mode:?}");
        assert_eq!(lines, ["one", "two", "last"], "{mode:?}");
        assert_eq!(output.stdout, "one\ntwo\r\nlast");
        assert_eq!(output.stderr_tail, "oops\n");
    }
}

#[tokio::test]
async fn stdin_is_dev_null() {
    for mode in MODES {
        let work = scratch_dir("stdin-");
        let spec = shell_spec(work.path());
        let (output, lines) = sh(&spec, mode, "cat; echo done").await;
        assert_eq!(output.status, ExitKind::Exited(0));
        assert_eq!(lines, ["done"], "{mode:?}");
    }
}

#[tokio::test]
async fn signals_are_reported() {
    let work = scratch_dir("sig-");
    let spec = shell_spec(work.path());
    let (direct, _) = sh(&spec, SandboxMode::None, "kill -TERM $$").await;
    assert_eq!(direct.status, ExitKind::Signaled(libc::SIGTERM));
    // bwrap's pid 1 turns the program's death by signal N into exit status 128+N.
    let (boxed, _) = sh(&spec, SandboxMode::Bwrap, "kill -TERM $$").await;
    assert_eq!(boxed.status, ExitKind::Exited(128 + libc::SIGTERM));
}

/// A sleep duration unique to this test process and `slot`, to find its sleepers by name.
fn unique_seconds(slot: u32) -> String {
    format!("9{slot}{:07}", std::process::id())
}

/// Pids of live processes whose command line contains `needle`.
fn processes_with(needle: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let zombie = stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z'));
        if cmdline.contains(needle) && !zombie {
            found.push(pid);
        }
    }
    found
}

async fn gone_within(needle: &str, limit: Duration) -> bool {
    let start = std::time::Instant::now();
    while start.elapsed() < limit {
        if processes_with(needle).is_empty() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

#[tokio::test]
async fn timeout_kills_the_whole_process_group() {
    for (mode, seconds) in [
        (SandboxMode::Bwrap, &unique_seconds(1)),
        (SandboxMode::None, &unique_seconds(2)),
    ] {
        let work = scratch_dir("timeout-");
        let mut spec = shell_spec(work.path());
        spec.timeout = Duration::from_millis(1500);
        let script = format!("sleep {seconds} & sleep {seconds}; echo never");
        let started = std::time::Instant::now();
        let (output, lines) = sh(&spec, mode, &script).await;
        assert_eq!(output.status, ExitKind::TimedOut, "{mode:?}");
        assert!(lines.is_empty());
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{mode:?}: {:?}",
            started.elapsed()
        );
        assert!(
            gone_within(&format!("sleep {seconds}"), Duration::from_secs(3)).await,
            "{mode:?}: sleepers survived: {:?}",
            processes_with(&format!("sleep {seconds}"))
        );
    }
}

#[tokio::test]
async fn background_child_holding_stdout_is_killed_at_timeout() {
    // The shell exits at once, but its background child keeps stdout open.
    let work = scratch_dir("bg-");
    let mut spec = shell_spec(work.path());
    spec.timeout = Duration::from_millis(1000);
    let (output, lines) = sh(
        &spec,
        SandboxMode::None,
        &format!("echo started; sleep {} &", unique_seconds(3)),
    )
    .await;
    assert_eq!(output.status, ExitKind::TimedOut);
    assert_eq!(lines, ["started"]);
    assert!(
        gone_within(
            &format!("sleep {}", unique_seconds(3)),
            Duration::from_secs(3)
        )
        .await
    );
}

#[tokio::test]
async fn output_cap_stops_capture_and_kills_the_group() {
    for mode in MODES {
        let work = scratch_dir("cap-");
        let mut spec = shell_spec(work.path());
        spec.output_cap_bytes = 64 * 1024;
        let started = std::time::Instant::now();
        let (output, lines) = run(&spec, mode, "/usr/bin/yes", &["tfgate"]).await;
        assert_eq!(
            output.status,
            ExitKind::LimitHit(ResourceLimit::Output),
            "{mode:?}"
        );
        assert!(output.stdout.len() <= 64 * 1024, "{}", output.stdout.len());
        assert!(output.stdout.len() > 60 * 1024);
        assert!(lines.len() > 1000 && lines.iter().all(|l| l == "tfgate"));
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}

#[tokio::test]
async fn stderr_counts_against_the_cap() {
    let work = scratch_dir("cap-err-");
    let mut spec = shell_spec(work.path());
    spec.output_cap_bytes = 64 * 1024;
    let (output, _) = sh(&spec, SandboxMode::Bwrap, "yes oops >&2").await;
    assert_eq!(output.status, ExitKind::LimitHit(ResourceLimit::Output));
    assert!(output.stderr_tail.len() > 1000);
    assert!(output.stderr_tail.chars().all(|c| "ops\n".contains(c)));
}

#[tokio::test]
async fn rlimits_apply_inside() {
    for mode in MODES {
        let work = scratch_dir("rlimit-");
        let mut spec = shell_spec(work.path());
        spec.limits = Limits {
            address_space_bytes: Some(3 << 30),
            cpu_seconds: Some(77),
            file_size_bytes: Some(4096),
            max_processes: Some(100_000),
            ..Limits::default()
        };
        let (output, lines) = sh(
            &spec,
            mode,
            "ulimit -v; ulimit -t; head -c 100000 /dev/zero > big; echo $?",
        )
        .await;
        assert_eq!(
            output.status,
            ExitKind::Exited(0),
            "{mode:?}: {}",
            output.stderr_tail
        );
        let xfsz = 128 + libc::SIGXFSZ;
        assert_eq!(
            lines,
            [(3u64 << 30) / 1024]
                .map(|v| v.to_string())
                .into_iter()
                .chain(["77".to_string(), xfsz.to_string()])
                .collect::<Vec<_>>(),
            "{mode:?}"
        );
        assert_eq!(
            std::fs::metadata(work.path().join("big")).unwrap().len(),
            4096
        );
    }
}

#[tokio::test]
async fn workdir_is_writable_and_the_rest_is_read_only_or_absent() {
    let work = scratch_dir("fs-");
    let spec = shell_spec(work.path());
    let script = "echo hi > here && echo wrote-workdir; \
        touch /usr/tfgate-probe 2>/dev/null || echo usr-read-only; \
        echo x > /tmp/x && echo tmp-writable; \
        echo x > \"$HOME/x\" && echo home-writable; \
        test -e /root || echo no-root; \
        test -e /etc/passwd || echo no-etc-passwd; \
        test -e /sys/kernel || echo no-sys; \
        ls /proc | grep -c '^[0-9]'";
    let (output, lines) = sh(&spec, SandboxMode::Bwrap, script).await;
    assert_eq!(output.status, ExitKind::Exited(0), "{}", output.stderr_tail);
    let pids: usize = lines.last().unwrap().parse().unwrap();
    assert!(
        pids <= 4,
        "fresh pid namespace shows few processes, got {pids}"
    );
    assert_eq!(
        lines[..lines.len() - 1],
        [
            "wrote-workdir",
            "usr-read-only",
            "tmp-writable",
            "home-writable",
            "no-root",
            "no-etc-passwd",
            "no-sys"
        ]
    );
    assert_eq!(
        std::fs::read_to_string(work.path().join("here")).unwrap(),
        "hi\n"
    );
}

#[tokio::test]
async fn dropping_the_run_kills_the_group() {
    for (mode, seconds) in [
        (SandboxMode::Bwrap, &unique_seconds(4)),
        (SandboxMode::None, &unique_seconds(5)),
    ] {
        let work = scratch_dir("drop-");
        let spec = shell_spec(work.path());
        let script = format!("sleep {seconds} & sleep {seconds}");
        let cut_short =
            tokio::time::timeout(Duration::from_millis(700), sh(&spec, mode, &script)).await;
        assert!(
            cut_short.is_err(),
            "{mode:?}: the run should still be going"
        );
        assert!(
            gone_within(&format!("sleep {seconds}"), Duration::from_secs(3)).await,
            "{mode:?}: sleepers survived the dropped run"
        );
    }
}

fn interfaces(proc_net_dev: &[String]) -> BTreeSet<String> {
    proc_net_dev
        .iter()
        .skip(2)
        .filter_map(|l| l.split(':').next())
        .map(|name| name.trim().to_string())
        .collect()
}

#[tokio::test]
async fn network_none_has_only_loopback_and_shared_sees_the_host() {
    let host: Vec<String> = std::fs::read_to_string("/proc/net/dev")
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let host = interfaces(&host);
    let work = scratch_dir("net-");
    let mut spec = shell_spec(work.path());
    let (isolated, lines) = sh(
        &spec,
        SandboxMode::Bwrap,
        "cat /proc/net/dev; test -e /etc/resolv.conf || echo no-resolv",
    )
    .await;
    assert_eq!(isolated.status, ExitKind::Exited(0));
    assert_eq!(lines.last().unwrap(), "no-resolv");
    assert_eq!(
        interfaces(&lines[..lines.len() - 1]),
        BTreeSet::from(["lo".to_string()])
    );

    spec.network = Network::Shared;
    let (shared, lines) = sh(
        &spec,
        SandboxMode::Bwrap,
        "cat /proc/net/dev; test -e /etc/resolv.conf && echo has-resolv",
    )
    .await;
    assert_eq!(shared.status, ExitKind::Exited(0));
    assert_eq!(lines.last().unwrap(), "has-resolv");
    assert_eq!(interfaces(&lines[..lines.len() - 1]), host);
}

#[tokio::test]
async fn missing_workdir_is_an_invalid_spec() {
    let work = scratch_dir("gone-");
    let spec = shell_spec(&work.path().join("missing"));
    let result = run_sandboxed(
        &spec,
        SandboxMode::Bwrap,
        Path::new("/bin/true"),
        &[],
        |_| {},
    )
    .await;
    assert!(matches!(
        result,
        Err(tfgate::sandbox::SandboxError::InvalidSpec(_))
    ));
}

/// A read-write bind (the saved plan's directory) is on the host's disk like the workdir:
/// what the run writes there counts against the same cap.
#[tokio::test]
async fn writes_into_a_read_write_bind_count_against_the_workdir_cap() {
    let work = scratch_dir("rw-bind-");
    let plan_dir = scratch_dir("rw-bind-plan-");
    let mut spec = shell_spec(work.path());
    spec.rw_binds = vec![plan_dir.path().to_path_buf()];
    spec.limits.workdir_bytes = Some(8 << 20);
    let script = format!(
        "cd {} && i=0; while [ $i -lt 64 ]; do head -c 1048576 /dev/zero > f$i || exit 1; \
         i=$((i+1)); sleep 0.05; done",
        plan_dir.path().display()
    );
    let (out, _) = sh(&spec, SandboxMode::Bwrap, &script).await;
    assert_eq!(
        out.status,
        ExitKind::LimitHit(ResourceLimit::WorkdirSize),
        "{}",
        out.stderr_tail
    );
    assert!(
        std::fs::read_dir(plan_dir.path()).unwrap().count() > 0,
        "written there"
    );
}
