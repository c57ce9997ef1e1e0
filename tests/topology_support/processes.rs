//! The real binaries of the topology: a launcher with the environment every process shares,
//! and each started process with its log.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;

use crate::support::fake_github::FakeGitHub;
use crate::support::*;

/// A `tfgate` process started by the test; killed (SIGKILL) when dropped.
pub struct Process {
    pub child: Child,
    pub log: PathBuf,
}

impl Process {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `kill -9`, and wait until the process is gone.
    pub fn kill_9(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// The lease owner names of this process's `count` workers (`HOST-PID-START-wN`).
    pub fn worker_names(&self, count: usize) -> Vec<String> {
        use tfgate::jobs::owner;
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid())).unwrap();
        let started = owner::start_time_in_stat(&stat).unwrap();
        (0..count)
            .map(|i| owner::owner_name(&owner::this_host(), self.pid(), started, i))
            .collect()
    }
}

impl Process {
    /// Wait (up to `limit`) until the process has logged `text`.
    pub async fn wait_for_log(&self, text: &str, limit: Duration) {
        let start = std::time::Instant::now();
        while !std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .contains(text)
        {
            assert!(
                start.elapsed() < limit,
                "{text:?} not in {}",
                self.log.display()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How every `tfgate` process of the topology is started: the same environment (database,
/// sealing key, App, policies, Terraform, AWS endpoint), a data directory of its own.
pub struct Launcher {
    dir: PathBuf,
    env: Vec<(String, String)>,
    logs: Mutex<Vec<PathBuf>>,
}

impl Launcher {
    pub(super) fn new(
        dir: &Path,
        database_url: &str,
        github: &FakeGitHub,
        lease_secs: u64,
    ) -> Launcher {
        let bin = env!("CARGO_BIN_EXE_tfgate");
        let path = |p: PathBuf| p.display().to_string();
        let env = [
            ("PATH", std::env::var("PATH").unwrap_or_default()),
            ("HOME", path(dir.to_path_buf())),
            ("RUST_LOG", "info".into()),
            ("DATABASE_URL", database_url.into()),
            ("TFGATE_ENCRYPTION_KEY", TEST_SEAL_KEY.into()),
            ("TFGATE_WEBHOOK_SECRET", SECRET.into()),
            ("TFGATE_APP_ID", "4242".into()),
            ("TFGATE_APP_SLUG", "tfgate".into()),
            (
                "TFGATE_PRIVATE_KEY_PATH",
                path(fixture_path("github/test-app-key.pem")),
            ),
            ("TFGATE_GITHUB_API_URL", github.url()),
            ("TFGATE_POLICY_DIR", path(dir.join("policies"))),
            ("TFGATE_TERRAFORM", path(tools_dir().join("bin/terraform"))),
            (
                "TFGATE_PROVIDER_MIRROR",
                path(tools_dir().join("provider-mirror")),
            ),
            ("TFGATE_SANDBOX_RELAY", bin.into()),
            (
                "TFGATE_AWS_ENDPOINT_URL",
                std::env::var("TFGATE_TEST_MOTO_URL").unwrap_or_default(),
            ),
            ("AWS_ACCESS_KEY_ID", "testing".into()),
            ("AWS_SECRET_ACCESS_KEY", "testing".into()),
            ("TFGATE_JOB_LEASE_SECS", lease_secs.to_string()),
        ];
        Launcher {
            dir: dir.to_path_buf(),
            env: env.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
            logs: Mutex::default(),
        }
    }

    /// Start `tfgate ARGS` with `extra` variables, a fresh data directory and its log there.
    pub fn start(&self, args: &[&str], extra: &[(&str, &str)]) -> Process {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let data = self.dir.join(format!("data-{}-{n}", args[0]));
        std::fs::create_dir_all(&data).unwrap();
        let log = data.join("process.log");
        let out = std::fs::File::create(&log).unwrap();
        self.logs.lock().unwrap().push(log.clone());
        let child = Command::new(env!("CARGO_BIN_EXE_tfgate"))
            .args(args)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .env("TFGATE_DATA_DIR", &data)
            .envs(extra.iter().copied())
            .stdout(Stdio::from(out.try_clone().unwrap()))
            .stderr(Stdio::from(out))
            .spawn()
            .unwrap();
        Process { child, log }
    }
}

impl Launcher {
    /// The log files of every process started so far.
    pub fn logs(&self) -> Vec<PathBuf> {
        self.logs.lock().unwrap().clone()
    }

    /// The warnings and errors every process logged so far (for failure messages).
    pub fn warnings(&self) -> String {
        let mut out = String::new();
        for log in self.logs.lock().unwrap().iter() {
            let text = std::fs::read_to_string(log).unwrap_or_default();
            out.push_str(&format!("== {}\n", log.display()));
            for line in text
                .lines()
                .filter(|l| l.contains("WARN") || l.contains("ERROR"))
            {
                out.push_str(line);
                out.push('\n');
            }
        }
        out
    }
}
