//! tfgate's real `tfrun::plan` / `tfrun::apply` with Terraform 1.0.3 in bubblewrap (issue 38):
//! - a private registry's token reaches only `init`, which installs the module with it;
//!   plan-time and apply-time code that reads the CLI config named by `TF_CLI_CONFIG_FILE`,
//!   every file beside it and its own environment finds no token (items 4);
//! - the saved plan is written and read by the host in tfgate's own directory: a link at the
//!   plan file's old path in the PR's tree, pointing at a server file, is never written
//!   through (item 5).

mod sandbox_support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use sandbox_support::*;
use tfgate::egress::RunNetwork;
use tfgate::sandbox::{Limits, SandboxMode};
use tfgate::tfrun::{self, RunSettings, TerraformSetup, PLAN_FILE};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

const TOKEN: &str = "acme-registry-token-4f1d9c2b7e";
const REGISTRY: &str = "registry.acme.test";

fn setup(tools: &Tools, work: &Path, admin_cli_config: Option<String>) -> TerraformSetup {
    let mirror = tools.provider.as_ref().map(|p| p.mirror.clone());
    TerraformSetup {
        terraform_bin: tools.terraform.clone(),
        admin_cli_config,
        provider_mirror: mirror.clone(),
        extra_ro_binds: mirror.into_iter().collect(),
        provider_cache: None,
        mode: SandboxMode::Bwrap,
        relay_bin: env!("CARGO_BIN_EXE_tfgate").into(),
        runtime_dir: work.join("runtime"),
        host_addrs: vec![],
        limits: Limits::default(),
        output_cap_bytes: 8 << 20,
    }
}

/// Every regular file under `dir` (links not followed) whose bytes contain `needle`.
fn files_containing(dir: &Path, needle: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                stack.push(entry.path());
            } else if kind.is_file() {
                let bytes = std::fs::read(entry.path()).unwrap_or_default();
                if bytes.windows(needle.len()).any(|w| w == needle.as_bytes()) {
                    found.push(entry.path());
                }
            }
        }
    }
    found
}

/// A module registry (protocol `modules.v1`) that answers only with `Bearer TOKEN`, and
/// serves the module's archive (which needs no token).
struct Registry {
    archive: Vec<u8>,
    authorised: Arc<AtomicUsize>,
}

impl Respond for Registry {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let p = req.url.path();
        if p == "/archive/greet.tar.gz" {
            return ResponseTemplate::new(200).set_body_bytes(self.archive.clone());
        }
        let auth = req
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok());
        if auth != Some(format!("Bearer {TOKEN}").as_str()) {
            return ResponseTemplate::new(401);
        }
        self.authorised.fetch_add(1, Ordering::SeqCst);
        match p {
            "/v1/modules/acme/greet/fake/versions" => {
                ResponseTemplate::new(200).set_body_json(serde_json::json!({
                    "modules": [{"source": "acme/greet/fake", "versions": [{"version": "1.0.0"}]}]
                }))
            }
            "/v1/modules/acme/greet/fake/1.0.0/download" => {
                ResponseTemplate::new(204).insert_header("X-Terraform-Get", "/archive/greet.tar.gz")
            }
            _ => ResponseTemplate::new(404),
        }
    }
}

fn module_archive() -> Vec<u8> {
    let text = b"output \"greeting\" {\n  value = \"hello from the private registry\"\n}\n";
    let mut tar = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::default(),
    ));
    let mut header = tar::Header::new_gnu();
    header.set_size(text.len() as u64);
    header.set_mode(0o644);
    header.set_cksum();
    tar.append_data(&mut header, "main.tf", &text[..]).unwrap();
    let mut gz = tar.into_inner().unwrap();
    gz.flush().unwrap();
    gz.finish().unwrap()
}

/// The root: a module from the private registry, and plan-time code that reads what a
/// `data "external"` program could read: its environment, the CLI config file it names and
/// every file beside that one, and shows it all in an output.
const PROBING_ROOT: &str = r#"
module "m" {
  source  = "registry.acme.test/acme/greet/fake"
  version = "1.0.0"
}
locals {
  environ    = file("/proc/self/environ")
  cli_config = regex("TF_CLI_CONFIG_FILE=([^\\x00]+)", local.environ)[0]
  config_dir = dirname(local.cli_config)
}
output "greeting" {
  value = module.m.greeting
}
output "seen" {
  value = join("\n", concat(
    [local.environ, file(local.cli_config)],
    [for f in fileset(local.config_dir, "*") : file("${local.config_dir}/${f}")],
  ))
}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registry_tokens_reach_init_only_and_plan_time_code_finds_none() {
    let Some(tools) = tools() else {
        return;
    };
    let server = MockServer::start().await;
    let authorised = Arc::new(AtomicUsize::new(0));
    Mock::given(method("GET"))
        .respond_with(Registry {
            archive: module_archive(),
            authorised: authorised.clone(),
        })
        .mount(&server)
        .await;
    let admin = format!(
        "host \"{REGISTRY}\" {{\n  services = {{\n    \"modules.v1\" = \"{}/v1/modules/\"\n  }}\n}}\n",
        server.uri()
    );
    let work = scratch_dir("registry-");
    let setup = setup(&tools, work.path(), Some(admin));
    let checkout = work.path().join("repo");
    std::fs::create_dir_all(checkout.join("app")).unwrap();
    write(&checkout.join("app"), "main.tf", PROBING_ROOT);
    let settings = RunSettings {
        network: RunNetwork::Shared,
        registry_credentials: vec![(REGISTRY.into(), TOKEN.into())],
        ..RunSettings::default()
    };

    let out = tfrun::plan(&setup, &checkout, "app", &settings, &mut |_| {})
        .await
        .unwrap();
    assert!(out.init.ok, "init: {}", out.init.stderr_tail);
    assert!(
        authorised.load(Ordering::SeqCst) >= 2,
        "init used the token"
    );
    let plan = out.plan.as_ref().unwrap();
    assert!(plan.ok, "plan: {}\n{}", plan.stdout, plan.stderr_tail);
    let shown = out.plan_json.clone().expect("show -json");
    // The probe worked: it read the environment and the step's CLI config...
    for seen in ["TF_CLI_CONFIG_FILE=", "provider_installation", "hello from"] {
        assert!(shown.contains(seen), "{seen} not in {shown}");
    }
    // ...and found no token there, nor anywhere in what the run left.
    assert!(
        !shown.contains(TOKEN),
        "plan-time code read the token: {shown}"
    );
    assert!(!shown.contains("credentials"), "{shown}");
    assert!(!plan.stdout.contains(TOKEN) && !plan.stderr_tail.contains(TOKEN));
    assert_eq!(files_containing(work.path(), TOKEN), Vec::<PathBuf>::new());

    // An apply runs in a fresh checkout: its `init` installs the module again.
    std::fs::remove_dir_all(checkout.join("app/.terraform")).unwrap();
    let before = authorised.load(Ordering::SeqCst);
    let plan_file = out.plan_file.expect("plan file");
    let applied = tfrun::apply(&setup, &checkout, "app", &plan_file, &settings, &mut |_| {})
        .await
        .unwrap();
    assert!(applied.init.ok, "init: {}", applied.init.stderr_tail);
    assert!(
        authorised.load(Ordering::SeqCst) > before,
        "apply's init used it"
    );
    let apply = applied.apply.expect("apply ran");
    assert!(apply.ok, "apply: {}\n{}", apply.stdout, apply.stderr_tail);
    assert!(
        apply.stdout.contains("provider_installation"),
        "{}",
        apply.stdout
    );
    assert!(
        !apply.stdout.contains(TOKEN),
        "apply-time code read the token"
    );
    assert_eq!(files_containing(work.path(), TOKEN), Vec::<PathBuf>::new());
}

const FAKE_ROOT: &str = "\nresource \"fake_thing\" \"a\" {\n  name = \"a\"\n}\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_at_the_plan_files_path_in_the_tree_is_never_written_through() {
    let Some(tools) = tools_with_provider() else {
        return;
    };
    let work = scratch_dir("plan-link-");
    let setup = setup(&tools, work.path(), None);
    let server_files = work.path().join("server");
    std::fs::create_dir_all(&server_files).unwrap();
    let seal_key = server_files.join("seal.key");
    std::fs::write(&seal_key, "SEAL KEY").unwrap();
    let checkout = work.path().join("repo");
    std::fs::create_dir_all(checkout.join("app")).unwrap();
    write(
        &checkout.join("app"),
        "main.tf",
        &format!("{PROVIDER_BLOCK}{FAKE_ROOT}"),
    );
    let settings = RunSettings {
        providers: vec!["registry.terraform.io/tfgate/*".into()],
        ..RunSettings::default()
    };
    // A link to an existing server file, then a dangling one (a write would create it).
    for target in [seal_key.clone(), server_files.join("created")] {
        let out = tfrun::plan(&setup, &checkout, "app", &settings, &mut |_| {})
            .await
            .unwrap();
        let plan = out.plan.as_ref().unwrap();
        assert!(plan.ok, "plan: {}\n{}", plan.stdout, plan.stderr_tail);
        // What a committed link re-created by a module `init` fetches would leave.
        let in_tree = checkout.join("app").join(PLAN_FILE);
        let _ = std::fs::remove_file(&in_tree);
        std::os::unix::fs::symlink(&target, &in_tree).unwrap();
        let plan_file = out.plan_file.expect("plan file");
        let applied =
            tfrun::apply(&setup, &checkout, "app", &plan_file, &settings, &mut |_| {}).await;
        let key_now = std::fs::read(&seal_key).unwrap();
        assert!(
            key_now == b"SEAL KEY",
            "the plan was written through the link"
        );
        assert!(
            !server_files.join("created").exists(),
            "written through a link"
        );
        let apply = applied.unwrap().apply.expect("apply ran");
        assert!(apply.ok, "apply: {}\n{}", apply.stdout, apply.stderr_tail);
        assert!(std::fs::symlink_metadata(&in_tree).unwrap().is_symlink());
        std::fs::remove_file(&in_tree).unwrap();
    }
    // Nothing of the runs is left in tfgate's runtime directory.
    let left: Vec<_> = std::fs::read_dir(work.path().join("runtime"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
