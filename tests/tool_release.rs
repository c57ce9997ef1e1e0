//! Terraform on demand from a local release mirror over loopback: downloaded once and reused,
//! and refused (with nothing installed) when the archive or the signature is wrong.

mod release_support;
mod support;

use std::path::Path;

use release_support::{Fault, ReleaseMirror, TEST_PUBLIC_KEY, VERSION};
use tfgate::tool_release::install::PublicProblem;
use tfgate::tool_release::{release, InstallError, Keyring, ReleaseSource, Tool};

fn terraform_present() -> bool {
    let present = support::tools_dir().join("bin/terraform").is_file();
    if !present && std::env::var("TFGATE_REQUIRE_TOOLS").as_deref() == Ok("1") {
        panic!("TFGATE_REQUIRE_TOOLS=1 but .tools/bin/terraform is missing");
    }
    present
}

fn source(mirror: &ReleaseMirror, keys: Keyring, tools: &Path) -> ReleaseSource {
    ReleaseSource::new(Some(mirror.url()), keys, tools.to_path_buf())
}

fn test_keys() -> Keyring {
    Keyring::from_armored(TEST_PUBLIC_KEY).unwrap()
}

/// Every file under `dir`, relative (to show that nothing was left behind).
fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out
}

#[tokio::test]
async fn a_release_is_downloaded_once_and_reused() {
    if !terraform_present() {
        return;
    }
    let mirror = ReleaseMirror::start(Fault::None).await;
    let data = tempfile::tempdir().unwrap();
    let tools = data.path().join("tools");
    let source = source(&mirror, test_keys(), &tools);
    let tf = release(Tool::Terraform, VERSION).unwrap();
    let (a, b) = tokio::join!(source.ensure(&tf), source.ensure(&tf));
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(a, b);
    assert_eq!(a, tools.join("terraform/1.0.3/terraform"));
    let again = source.ensure(&tf).await.unwrap();
    assert_eq!(again, a);
    assert_eq!(
        mirror.archive_downloads().await,
        1,
        "one download for three calls"
    );
    let out = std::process::Command::new(&a)
        .arg("version")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("Terraform v1.0.3"), "{text}");
    assert_eq!(files_under(&tools), ["terraform/1.0.3/terraform"]);
    // A second process (a fresh source on the same directory) reuses it too.
    let other = ReleaseSource::new(Some(mirror.url()), test_keys(), tools.clone());
    assert_eq!(other.ensure(&tf).await.unwrap(), a);
    assert_eq!(mirror.archive_downloads().await, 1);
}

/// Installs 1.0.3 from a mirror with `fault` and `keys`: the error, the archive downloads and
/// what was left in the tools directory.
async fn refused(fault: Fault, keys: Keyring) -> (InstallError, usize, Vec<String>) {
    let mirror = ReleaseMirror::start(fault).await;
    let data = tempfile::tempdir().unwrap();
    let tools = data.path().join("tools");
    let tf = release(Tool::Terraform, VERSION).unwrap();
    let err = source(&mirror, keys, &tools).ensure(&tf).await.unwrap_err();
    (err, mirror.archive_downloads().await, files_under(&tools))
}

#[tokio::test]
async fn a_tampered_archive_is_refused_and_nothing_is_installed() {
    if !terraform_present() {
        return;
    }
    let (err, _, left) = refused(Fault::TamperedArchive, test_keys()).await;
    assert!(matches!(err, InstallError::Checksum { .. }), "{err}");
    assert_eq!(err.public_problem(), PublicProblem::Refused);
    assert!(
        err.to_string()
            .contains("terraform_1.0.3_linux_amd64.zip does not match its signed SHA-256"),
        "{err}"
    );
    assert_eq!(left, Vec::<String>::new());
}

#[tokio::test]
async fn a_bad_signature_is_refused_before_the_archive_is_fetched() {
    if !terraform_present() {
        return;
    }
    let (err, downloads, left) = refused(Fault::BadSignature, test_keys()).await;
    assert!(matches!(err, InstallError::Signature { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("was not made by a trusted key over this file"),
        "{err}"
    );
    assert_eq!(err.public_problem(), PublicProblem::Refused);
    assert_eq!(downloads, 0);
    assert_eq!(left, Vec::<String>::new());
}

#[tokio::test]
async fn the_shipped_keys_refuse_a_release_signed_by_another_key() {
    if !terraform_present() {
        return;
    }
    // A genuine signature, by a key that is not HashiCorp's or OpenTofu's.
    let (err, downloads, left) = refused(Fault::None, Keyring::shipped()).await;
    assert!(matches!(err, InstallError::Signature { .. }), "{err}");
    assert_eq!(downloads, 0);
    assert_eq!(left, Vec::<String>::new());
}

#[tokio::test]
async fn a_release_without_a_signature_is_not_installed() {
    if !terraform_present() {
        return;
    }
    let (err, downloads, left) = refused(Fault::NoSignature, test_keys()).await;
    assert!(matches!(err, InstallError::Download { .. }), "{err}");
    assert!(
        err.to_string().contains("SHA256SUMS.sig failed: HTTP 404"),
        "{err}"
    );
    assert_eq!(err.public_problem(), PublicProblem::DownloadFailed);
    assert_eq!(downloads, 0);
    assert_eq!(left, Vec::<String>::new());
}
