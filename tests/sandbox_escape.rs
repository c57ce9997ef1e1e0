//! Escape tests: configurations that try to read what a tfgate server holds (the App private
//! key, the database, other runs' workdirs, the server's environment) from inside the
//! sandbox, with Terraform's own functions at plan time and from a provider at apply time.
//! Every read must fail under bwrap; the same reads succeed in a control run without the
//! sandbox, so these tests can fail.

mod sandbox_support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};

use sandbox_support::*;
use serde_json::Value;
use tfgate::sandbox::{Network, SandboxMode};

const KEY_MARKER: &str = "TFGATE-APP-KEY-MARKER";
const DB_MARKER: &str = "TFGATE-DATABASE-MARKER";
const OTHER_RUN_MARKER: &str = "TFGATE-OTHER-RUN-MARKER";
const SERVER_ENV_MARKER: &str = "TFGATE-SERVER-ENV-MARKER";

/// A host laid out like a tfgate server: secrets and runs side by side, and a running
/// "server" process whose environment holds a secret.
struct Host {
    _root: tempfile::TempDir,
    secrets: PathBuf,
    other_run: PathBuf,
    runs: PathBuf,
    server: Child,
}

impl Host {
    fn new() -> Host {
        let root = scratch_dir("host-");
        let secrets = root.path().join("secrets");
        let other_run = root.path().join("runs/other");
        let runs = root.path().join("runs");
        std::fs::create_dir_all(&secrets).unwrap();
        std::fs::create_dir_all(&other_run).unwrap();
        write(
            &secrets,
            "app-private-key.pem",
            &format!(
                "-----BEGIN RSA PRIVATE KEY-----\n{KEY_MARKER}\n-----END RSA PRIVATE KEY-----\n"
            ),
        );
        write(
            &secrets,
            "tfgate.db",
            &format!("SQLite format 3 {DB_MARKER}\n"),
        );
        write(
            &other_run,
            "terraform.tfstate",
            &format!("{{\"secret\": \"{OTHER_RUN_MARKER}\"}}\n"),
        );
        let server = Command::new("sleep")
            .arg("300")
            .env("TFGATE_SERVER_SECRET", SERVER_ENV_MARKER)
            .spawn()
            .expect("spawn stand-in server");
        Host {
            secrets,
            other_run,
            runs,
            _root: root,
            server,
        }
    }

    fn new_workdir(&self, name: &str) -> PathBuf {
        let dir = self.runs.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// name → (path to read, marker a successful read shows)
    fn targets(&self) -> BTreeMap<&'static str, (String, Option<&'static str>)> {
        let p = |path: &Path| path.display().to_string();
        BTreeMap::from([
            (
                "app_key",
                (
                    p(&self.secrets.join("app-private-key.pem")),
                    Some(KEY_MARKER),
                ),
            ),
            (
                "database",
                (p(&self.secrets.join("tfgate.db")), Some(DB_MARKER)),
            ),
            (
                "app_key_relative",
                (
                    "../../secrets/app-private-key.pem".to_string(),
                    Some(KEY_MARKER),
                ),
            ),
            (
                "other_run",
                (
                    p(&self.other_run.join("terraform.tfstate")),
                    Some(OTHER_RUN_MARKER),
                ),
            ),
            (
                "server_environ",
                (
                    format!("/proc/{}/environ", self.server.id()),
                    Some(SERVER_ENV_MARKER),
                ),
            ),
            (
                "test_environ",
                (
                    format!("/proc/{}/environ", std::process::id()),
                    Some("CARGO_"),
                ),
            ),
            ("host_pid1_environ", ("/proc/1/environ".to_string(), None)),
            (
                "work_tree",
                (
                    concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml").to_string(),
                    Some("[package]"),
                ),
            ),
            ("etc_hostname", ("/etc/hostname".to_string(), None)),
        ])
    }

    fn all_markers() -> [&'static str; 4] {
        [KEY_MARKER, DB_MARKER, OTHER_RUN_MARKER, SERVER_ENV_MARKER]
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

fn hcl_string(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// Locals/outputs only: Terraform itself reads at plan time; no provider, no init needed.
fn plan_time_config(host: &Host) -> String {
    let targets: String = host
        .targets()
        .iter()
        .map(|(name, (path, _))| format!("    {name} = {}\n", hcl_string(path)))
        .collect();
    format!(
        r#"
locals {{
  targets = {{
{targets}  }}
}}
output "file" {{
  value = {{ for k, p in local.targets : k => try(file(p), "DENIED") }}
}}
output "templatefile" {{
  value = {{ for k, p in local.targets : k => try(templatefile(p, {{}}), "DENIED") }}
}}
output "fileset" {{
  value = {{
    secrets   = try(fileset({secrets}, "*"), ["DENIED"])
    other_run = try(fileset({other_run}, "**"), ["DENIED"])
    runs      = try(fileset({runs}, "**"), ["DENIED"])
  }}
}}
"#,
        secrets = hcl_string(&host.secrets.display().to_string()),
        other_run = hcl_string(&host.other_run.display().to_string()),
        runs = hcl_string(&host.runs.display().to_string()),
    )
}

/// Values of the plan-time outputs after `apply -auto-approve -json` (evaluated at plan).
async fn plan_time_outputs(host: &Host, mode: SandboxMode, name: &str) -> BTreeMap<String, Value> {
    let tools = tools().expect("checked by caller");
    let workdir = host.new_workdir(name);
    write(&workdir, "main.tf", &plan_time_config(host));
    let spec = spec_for(&tools, &workdir, Network::None);
    let lines = terraform_ok(
        &spec,
        mode,
        &["apply", "-auto-approve", "-input=false", "-json"],
    )
    .await;
    apply_outputs(&lines)
}

#[tokio::test]
async fn terraform_functions_cannot_read_outside_the_workdir() {
    if tools().is_none() {
        return;
    }
    let host = Host::new();
    let control = plan_time_outputs(&host, SandboxMode::None, "control").await;
    let sandboxed = plan_time_outputs(&host, SandboxMode::Bwrap, "sandboxed").await;

    for (name, (path, marker)) in host.targets() {
        let Some(marker) = marker else { continue };
        let seen = control["file"][name].as_str().unwrap_or_default();
        assert!(
            seen.contains(marker),
            "control: file({path}) should be readable: {seen:?}"
        );
    }
    for name in ["app_key", "database", "other_run"] {
        let seen = control["templatefile"][name].as_str().unwrap_or_default();
        assert_ne!(
            seen, "DENIED",
            "control: templatefile for {name} should work"
        );
    }
    assert!(control["fileset"]["secrets"]
        .to_string()
        .contains("app-private-key.pem"));
    assert!(control["fileset"]["other_run"]
        .to_string()
        .contains("terraform.tfstate"));

    for (name, (path, _)) in host.targets() {
        for function in ["file", "templatefile"] {
            let seen = &sandboxed[function][name];
            let denied = seen == "DENIED"
                || (name == "host_pid1_environ"
                    && sandbox_own_environ(seen.as_str().unwrap_or("DENIED")));
            assert!(
                denied,
                "sandboxed: {function}({path}) should fail, got {seen}"
            );
        }
    }
    assert_eq!(sandboxed["fileset"]["secrets"], serde_json::json!([]));
    assert_eq!(sandboxed["fileset"]["other_run"], serde_json::json!([]));
    let runs = sandboxed["fileset"]["runs"].to_string();
    assert!(!runs.contains("other"), "sibling run visible: {runs}");
    let everything = serde_json::to_string(&sandboxed).unwrap();
    for marker in Host::all_markers() {
        assert!(
            !everything.contains(marker),
            "{marker} leaked: {everything}"
        );
    }
}

fn provider_config(host: &Host) -> String {
    let mut config = PROVIDER_BLOCK.to_string();
    for (name, (path, _)) in host.targets() {
        config.push_str(&format!(
            "resource \"fake_thing\" \"{name}\" {{\n  name = \"{name}\"\n  read_file = {}\n}}\n",
            hcl_string(&path)
        ));
    }
    config.push_str(
        r#"
output "read_result" {
  value = {
    app_key = fake_thing.app_key.read_result
    app_key_relative = fake_thing.app_key_relative.read_result
    database = fake_thing.database.read_result
    other_run = fake_thing.other_run.read_result
    server_environ = fake_thing.server_environ.read_result
    test_environ = fake_thing.test_environ.read_result
    host_pid1_environ = fake_thing.host_pid1_environ.read_result
    work_tree = fake_thing.work_tree.read_result
    etc_hostname = fake_thing.etc_hostname.read_result
  }
}
output "read_content" {
  value = {
    app_key = fake_thing.app_key.read_content
    app_key_relative = fake_thing.app_key_relative.read_content
    database = fake_thing.database.read_content
    other_run = fake_thing.other_run.read_content
    server_environ = fake_thing.server_environ.read_content
    test_environ = fake_thing.test_environ.read_content
    host_pid1_environ = fake_thing.host_pid1_environ.read_content
    work_tree = fake_thing.work_tree.read_content
    etc_hostname = fake_thing.etc_hostname.read_content
  }
}
"#,
    );
    config
}

async fn provider_outputs(host: &Host, mode: SandboxMode, name: &str) -> BTreeMap<String, Value> {
    let tools = tools_with_provider().expect("checked by caller");
    let workdir = host.new_workdir(name);
    write(&workdir, "main.tf", &provider_config(host));
    let spec = spec_for(&tools, &workdir, Network::None);
    terraform_ok(&spec, mode, &["init", "-input=false", "-no-color"]).await;
    let lines = terraform_ok(
        &spec,
        mode,
        &["apply", "-auto-approve", "-input=false", "-json"],
    )
    .await;
    apply_outputs(&lines)
}

#[tokio::test]
async fn provider_cannot_read_outside_the_workdir() {
    if tools_with_provider().is_none() {
        return;
    }
    let host = Host::new();
    let control = provider_outputs(&host, SandboxMode::None, "control").await;
    let sandboxed = provider_outputs(&host, SandboxMode::Bwrap, "sandboxed").await;

    for (name, (path, marker)) in host.targets() {
        let Some(marker) = marker else { continue };
        assert_eq!(control["read_result"][name], "readable", "control: {path}");
        let content = control["read_content"][name].as_str().unwrap();
        assert!(content.contains(marker), "control: {path} lacks {marker}");
    }
    for (name, (path, _)) in host.targets() {
        let result = sandboxed["read_result"][name].as_str().unwrap();
        let content = sandboxed["read_content"][name].as_str().unwrap_or_default();
        let denied = result.starts_with("unreadable: ")
            || (name == "host_pid1_environ"
                && result == "readable"
                && sandbox_own_environ(content));
        assert!(
            denied,
            "sandboxed: provider read {path}: {result} {content:?}"
        );
    }
    let everything = serde_json::to_string(&sandboxed).unwrap();
    for marker in Host::all_markers() {
        assert!(
            !everything.contains(marker),
            "{marker} leaked: {everything}"
        );
    }
}

/// `/proc/1/environ` inside the sandbox is bwrap's own init, which carries exactly the run's
/// environment (bwrap gets it as its process environment and passes it on): only the
/// variables `spec_for` sets and HOME, never the host's pid 1.
fn sandbox_own_environ(content: &str) -> bool {
    const RUN_VARS: &[&str] = &[
        "CHECKPOINT_DISABLE",
        "TF_IN_AUTOMATION",
        "TF_INPUT",
        "PATH",
        "TF_CLI_CONFIG_FILE",
        "HOME",
    ];
    content
        .split('\0')
        .filter(|entry| !entry.is_empty())
        .all(|entry| {
            entry
                .split_once('=')
                .is_some_and(|(k, _)| RUN_VARS.contains(&k))
        })
}
