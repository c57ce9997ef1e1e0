//! Shared helpers for the real-bwrap / real-Terraform sandbox tests.
//!
//! Needs `scripts/install-terraform.sh` (→ `.tools/bin/terraform`) and, for tests that use
//! the fake provider, `scripts/build-test-provider.sh` (→ `.tools/provider-mirror` and
//! `.tools/fake-provider.tfrc`). Tests skip with a printed reason when those are absent,
//! unless `TFGATE_REQUIRE_TOOLS=1` (set it in CI), which turns a skip into a failure.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use tempfile::TempDir;
use tfgate::sandbox::{
    run_sandboxed, ExitKind, Limits, Network, RunOutput, SandboxMode, SandboxSpec,
};

pub struct Tools {
    pub terraform: PathBuf,
    /// Provider filesystem mirror and CLI config, when built.
    pub provider: Option<ProviderMirror>,
}

pub struct ProviderMirror {
    pub mirror: PathBuf,
    pub cli_config: PathBuf,
}

fn tools_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(".tools")
}

/// Prints why a test is skipped; panics instead when `TFGATE_REQUIRE_TOOLS=1`.
fn skip(reason: &str) {
    if std::env::var_os("TFGATE_REQUIRE_TOOLS").is_some_and(|v| v == "1") {
        panic!("TFGATE_REQUIRE_TOOLS=1 but {reason}");
    }
    eprintln!("SKIPPED: {reason}");
}

/// The installed tools, or `None` (after printing why) when Terraform is absent.
pub fn tools() -> Option<Tools> {
    let terraform = tools_dir().join("bin/terraform");
    if !terraform.is_file() {
        skip(&format!(
            "{} is absent; run scripts/install-terraform.sh",
            terraform.display()
        ));
        return None;
    }
    let mirror = tools_dir().join("provider-mirror");
    let cli_config = tools_dir().join("fake-provider.tfrc");
    let provider =
        (mirror.is_dir() && cli_config.is_file()).then_some(ProviderMirror { mirror, cli_config });
    Some(Tools {
        terraform,
        provider,
    })
}

/// The installed tools including the fake provider, or `None` (after printing why).
pub fn tools_with_provider() -> Option<Tools> {
    let tools = tools()?;
    if tools.provider.is_none() {
        skip("the fake provider mirror is absent; run scripts/build-test-provider.sh");
        return None;
    }
    Some(tools)
}

/// A fresh directory under Cargo's per-target tmp dir (NOT under /tmp, which the sandbox
/// replaces with a tmpfs: siblings must be really present on the host for escape tests).
pub fn scratch_dir(prefix: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("create scratch dir")
}

pub fn spec_for(tools: &Tools, workdir: &Path, network: Network) -> SandboxSpec {
    let mut env = BTreeMap::from([
        ("CHECKPOINT_DISABLE".to_string(), "1".to_string()),
        ("TF_IN_AUTOMATION".to_string(), "1".to_string()),
        ("TF_INPUT".to_string(), "0".to_string()),
        ("PATH".to_string(), "/usr/bin:/bin".to_string()),
    ]);
    let mut extra_ro_binds = Vec::new();
    if let Some(provider) = &tools.provider {
        env.insert(
            "TF_CLI_CONFIG_FILE".to_string(),
            provider.cli_config.display().to_string(),
        );
        extra_ro_binds.push(provider.mirror.clone());
        extra_ro_binds.push(provider.cli_config.clone());
    }
    SandboxSpec {
        workdir: workdir.to_path_buf(),
        terraform_bin: tools.terraform.clone(),
        plugin_cache: None,
        extra_ro_binds,
        rw_binds: vec![],
        env,
        network,
        limits: Limits::default(),
        timeout: Duration::from_secs(120),
        output_cap_bytes: 8 << 20,
    }
}

/// Runs terraform with `args`; returns the output and the stdout lines seen by `on_line`.
pub async fn terraform(
    spec: &SandboxSpec,
    mode: SandboxMode,
    args: &[&str],
) -> (RunOutput, Vec<String>) {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let mut lines = Vec::new();
    let output = run_sandboxed(spec, mode, &spec.terraform_bin, &args, |line| {
        lines.push(line.to_string())
    })
    .await
    .expect("sandboxed terraform ran");
    (output, lines)
}

/// Runs terraform and asserts it exited 0.
pub async fn terraform_ok(spec: &SandboxSpec, mode: SandboxMode, args: &[&str]) -> Vec<String> {
    let (output, lines) = terraform(spec, mode, args).await;
    assert_eq!(
        output.status,
        ExitKind::Exited(0),
        "terraform {args:?} failed in {mode:?}\nstdout:\n{}\nstderr:\n{}",
        output.stdout,
        output.stderr_tail
    );
    lines
}

/// `-json` UI messages.
pub fn messages(lines: &[String]) -> Vec<Value> {
    lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// Output values from the `outputs` message of `apply -json`.
pub fn apply_outputs(lines: &[String]) -> BTreeMap<String, Value> {
    let msgs = messages(lines);
    let outputs = msgs
        .iter()
        .rev()
        .find(|m| m["type"] == "outputs")
        .unwrap_or_else(|| panic!("no outputs message in {lines:#?}"));
    outputs["outputs"]
        .as_object()
        .expect("outputs object")
        .iter()
        .map(|(k, v)| (k.clone(), v["value"].clone()))
        .collect()
}

pub fn write(dir: &Path, name: &str, content: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, content).expect("write file");
    path
}

pub const PROVIDER_BLOCK: &str = r#"
terraform {
  required_providers {
    fake = { source = "tfgate/fake", version = "0.1.0" }
  }
}
provider "fake" {}
"#;
