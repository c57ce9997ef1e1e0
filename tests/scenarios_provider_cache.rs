//! The provider cache shared by every run (issue 26 item 2), with real Terraform: the first
//! plan installs the provider from the server's (packed) mirror and tfgate caches it; the second
//! plan gets it from the cache even with the mirror gone; a cached package that does not match
//! the root's `.terraform.lock.hcl` is refused by Terraform before use.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use support::*;

const FAKE_ROOT: &str = "terraform {\n  required_providers {\n    fake = { source = \"tfgate/fake\", version = \"0.1.0\" }\n  }\n}\nresource \"fake_thing\" \"a\" {\n  name = \"a\"\n}\n";
const PACKAGE: &str = "registry.terraform.io/tfgate/fake/0.1.0/linux_amd64";
const BINARY: &str = "terraform-provider-fake_v0.1.0";

/// A packed filesystem mirror (a zip, as registries serve providers): Terraform unpacks it
/// into the run's workdir, as it would a download.
fn packed_mirror() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let zip_dir = dir.path().join("registry.terraform.io/tfgate/fake");
    std::fs::create_dir_all(&zip_dir).unwrap();
    let binary = tools_dir()
        .join("provider-mirror")
        .join(PACKAGE)
        .join(BINARY);
    let zip = zip_dir.join("terraform-provider-fake_0.1.0_linux_amd64.zip");
    let script = "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n    i = zipfile.ZipInfo(sys.argv[3])\n    i.external_attr = 0o755 << 16\n    z.writestr(i, open(sys.argv[2], 'rb').read())\n";
    let status = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(&zip)
        .arg(&binary)
        .arg(BINARY)
        .status()
        .unwrap();
    assert!(status.success());
    dir
}

async fn harness_with_mirror(mirror: &Path) -> Option<(Harness, tempfile::TempDir)> {
    if !terraform_tools_available() {
        return None;
    }
    let policy = one_root_policy("app", "infra/app", "");
    let mirror = mirror.to_path_buf();
    let h = Harness::start_with(Backend::Sqlite, Some(&policy), |a| {
        a.provider_mirror = Some(mirror);
    })
    .await?;
    let repo = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(repo.path().join("infra/app")).unwrap();
    std::fs::write(repo.path().join("infra/app/main.tf"), FAKE_ROOT).unwrap();
    h.github.serve_repo(repo.path());
    h.github.with(|g| {
        g.files = vec!["infra/app/main.tf".into()];
        g.permissions.insert("alice".into(), "write".into());
    });
    Some((h, repo))
}

fn cached_binary(h: &Harness) -> PathBuf {
    let cache = h
        .state
        .config
        .provider_cache
        .clone()
        .expect("the cache is on by default");
    cache.join(PACKAGE).join(BINARY)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_second_plan_takes_the_provider_from_the_cache() {
    let mirror = packed_mirror();
    let Some((h, _repo)) = harness_with_mirror(mirror.path()).await else {
        return;
    };
    let reply = h.comment(1, "/plan", "alice").await.join("\n");
    assert!(
        !reply.contains("failed") && reply.contains("| 1 |"),
        "{reply}"
    );
    let cached = cached_binary(&h);
    assert!(
        cached.is_file(),
        "the package was cached (its h1 hash matched the lock file)"
    );
    let mode = std::fs::metadata(&cached).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o555, "cached files are read-only");

    // Without the mirror, only the cache can provide the package.
    std::fs::remove_dir_all(mirror.path().join("registry.terraform.io")).unwrap();
    let reply = h.comment(1, "/plan", "alice").await.join("\n");
    assert!(
        !reply.contains("failed") && reply.contains("| 1 |"),
        "{reply}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cached_package_that_does_not_match_the_lock_file_is_refused() {
    let mirror = packed_mirror();
    let Some((h, repo)) = harness_with_mirror(mirror.path()).await else {
        return;
    };
    let reply = h.comment(1, "/plan", "alice").await.join("\n");
    assert!(!reply.contains("failed"), "{reply}");
    // The root now commits its lock file with the real package's hash…
    let h1 = real_h1(&cached_binary(&h));
    let lock = format!(
        "provider \"registry.terraform.io/tfgate/fake\" {{\n  version = \"0.1.0\"\n  hashes = [\n    \"{h1}\",\n  ]\n}}\n"
    );
    std::fs::write(repo.path().join("infra/app/.terraform.lock.hcl"), lock).unwrap();
    h.github.serve_repo(repo.path());
    // …and the cached copy is altered (as only someone with the host's access could).
    let cached = cached_binary(&h);
    std::fs::set_permissions(&cached, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut bytes = std::fs::read(&cached).unwrap();
    bytes.extend_from_slice(b"tampered");
    std::fs::write(&cached, bytes).unwrap();
    let reply = h.comment(1, "/plan", "alice").await.join("\n");
    assert!(
        reply.contains("failed"),
        "Terraform refuses the altered package: {reply}"
    );
    let raw = tfgate::cli::logs::logs(&h.state.config, 2).await.unwrap();
    let raw = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        raw.contains(
            "doesn't match any of the checksums previously recorded in the dependency lock file"
        ),
        "{raw}"
    );
}

/// Terraform's `h1:` hash of a one-file package.
fn real_h1(binary: &Path) -> String {
    use sha2::{Digest, Sha256};
    let digest: [u8; 32] = Sha256::digest(std::fs::read(binary).unwrap()).into();
    tfgate::provider_cache::h1_hash(&[(BINARY.to_string(), digest)])
}
