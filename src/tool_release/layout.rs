//! Where a Terraform or OpenTofu release lives, what its files are called, and what its
//! `SHA256SUMS` says about them. Pure.
//!
//! Official sites:
//! - Terraform: `https://releases.hashicorp.com/terraform/1.9.8/terraform_1.9.8_linux_amd64.zip`,
//!   `…/terraform_1.9.8_SHA256SUMS` and its signature `…_SHA256SUMS.72D7468F.sig` (made with
//!   HashiCorp's current key for every release; the plain `.sig` is tried next).
//! - OpenTofu: `https://github.com/opentofu/opentofu/releases/download/v1.8.1/tofu_1.8.1_linux_amd64.zip`,
//!   `…/tofu_1.8.1_SHA256SUMS` and its OpenPGP signature `…_SHA256SUMS.gpgsig` (the `.sig`
//!   beside it is a cosign signature).
//!
//! A mirror (`--release-url URL`) holds both under one root, HashiCorp's layout:
//! `URL/terraform/1.9.8/…` and `URL/opentofu/1.8.1/…`, with the same file names.

use serde::Serialize;
use std::fmt;

use super::version::Version;

/// Which program a release is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tool {
    Terraform,
    OpenTofu,
}

impl Tool {
    /// The name people use (`Terraform`, `OpenTofu`).
    pub fn display_name(self) -> &'static str {
        match self {
            Tool::Terraform => "Terraform",
            Tool::OpenTofu => "OpenTofu",
        }
    }

    /// The directory name under `DATA_DIR/tools/` and a mirror's root.
    pub fn dir_name(self) -> &'static str {
        match self {
            Tool::Terraform => "terraform",
            Tool::OpenTofu => "opentofu",
        }
    }

    /// The binary inside the archive.
    pub fn binary_name(self) -> &'static str {
        match self {
            Tool::Terraform => "terraform",
            Tool::OpenTofu => "tofu",
        }
    }

    fn file_prefix(self) -> &'static str {
        self.binary_name()
    }
}

/// One version of one tool.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Release {
    pub tool: Tool,
    /// As validated by [`Version::parse`] (`1.9.8`, `1.10.0-beta1`).
    pub version: String,
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.tool.display_name(), self.version)
    }
}

/// The URLs of one release's files for one platform (`linux_amd64`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseFiles {
    pub archive_name: String,
    pub archive_url: String,
    pub sums_url: String,
    /// Signature files to try in order; the first that exists is checked (and must verify).
    pub signature_urls: Vec<String>,
}

/// The release's files, from `mirror` when one is set, else from the official site.
pub fn release_files(release: &Release, mirror: Option<&str>, platform: &str) -> ReleaseFiles {
    let (tool, v) = (release.tool, &release.version);
    let dir = match (mirror, tool) {
        (Some(root), _) => format!("{}/{}/{v}", root.trim_end_matches('/'), tool.dir_name()),
        (None, Tool::Terraform) => format!("https://releases.hashicorp.com/terraform/{v}"),
        (None, Tool::OpenTofu) => {
            format!("https://github.com/opentofu/opentofu/releases/download/v{v}")
        }
    };
    let prefix = format!("{}_{v}", tool.file_prefix());
    let archive_name = format!("{prefix}_{platform}.zip");
    let sums = format!("{prefix}_SHA256SUMS");
    let signatures: &[&str] = match tool {
        Tool::Terraform => &["72D7468F.sig", "sig"],
        Tool::OpenTofu => &["gpgsig"],
    };
    ReleaseFiles {
        archive_url: format!("{dir}/{archive_name}"),
        archive_name,
        sums_url: format!("{dir}/{sums}"),
        signature_urls: signatures
            .iter()
            .map(|ext| format!("{dir}/{sums}.{ext}"))
            .collect(),
    }
}

/// This machine's platform in release file names, when releases are built for it.
pub fn host_platform() -> Option<&'static str> {
    match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => Some("linux_amd64"),
        ("linux", "aarch64") => Some("linux_arm64"),
        ("macos", "x86_64") => Some("darwin_amd64"),
        ("macos", "aarch64") => Some("darwin_arm64"),
        _ => None,
    }
}

/// The SHA-256 that a `SHA256SUMS` file gives for `file_name`, as 32 bytes.
pub fn expected_sha256(sums: &str, file_name: &str) -> Option<[u8; 32]> {
    sums.lines().find_map(|line| {
        let (hash, name) = line.split_once(char::is_whitespace)?;
        let name = name.trim_start().trim_start_matches('*').trim_end();
        if name != file_name {
            return None;
        }
        let bytes = hex::decode(hash).ok()?;
        bytes.try_into().ok()
    })
}

/// `Ok(release)` for a valid version of `tool`.
pub fn release(tool: Tool, version: &str) -> Result<Release, String> {
    match Version::parse(version) {
        Some(_) if !version.starts_with('v') => Ok(Release {
            tool,
            version: version.to_string(),
        }),
        _ => Err(format!(
            "bad {} version `{version}`: expected a version like 1.9.8",
            tool.dir_name()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(tool: Tool, v: &str) -> Release {
        release(tool, v).unwrap()
    }

    #[test]
    fn official_sites_and_mirrors() {
        let tf = release_files(&r(Tool::Terraform, "1.9.8"), None, "linux_amd64");
        assert_eq!(
            tf.archive_url,
            "https://releases.hashicorp.com/terraform/1.9.8/terraform_1.9.8_linux_amd64.zip"
        );
        assert_eq!(
            tf.sums_url,
            "https://releases.hashicorp.com/terraform/1.9.8/terraform_1.9.8_SHA256SUMS"
        );
        assert_eq!(
            tf.signature_urls,
            [
                "https://releases.hashicorp.com/terraform/1.9.8/terraform_1.9.8_SHA256SUMS.72D7468F.sig",
                "https://releases.hashicorp.com/terraform/1.9.8/terraform_1.9.8_SHA256SUMS.sig"
            ]
        );
        let tofu = release_files(&r(Tool::OpenTofu, "1.8.1"), None, "linux_arm64");
        assert_eq!(
            tofu.archive_url,
            "https://github.com/opentofu/opentofu/releases/download/v1.8.1/tofu_1.8.1_linux_arm64.zip"
        );
        assert_eq!(
            tofu.signature_urls,
            ["https://github.com/opentofu/opentofu/releases/download/v1.8.1/tofu_1.8.1_SHA256SUMS.gpgsig"]
        );
        let mirrored = release_files(
            &r(Tool::OpenTofu, "1.8.1"),
            Some("http://127.0.0.1:9/releases/"),
            "linux_amd64",
        );
        assert_eq!(
            mirrored.archive_url,
            "http://127.0.0.1:9/releases/opentofu/1.8.1/tofu_1.8.1_linux_amd64.zip"
        );
        assert_eq!(mirrored.archive_name, "tofu_1.8.1_linux_amd64.zip");
    }

    #[test]
    fn sums_lines_are_matched_by_exact_name() {
        let sums = "186e0145f5e5f2eb97cbd785bc78f21bae4ef15119349f6ad4fa535b83b10df8  terraform_1.9.8_linux_amd64.zip\n\
                    f85868798834558239f6148834884008f2722548f84034c9b0f62934b2d73ebb *terraform_1.9.8_linux_arm64.zip\n\
                    zz  terraform_1.9.8_bad.zip\n";
        let amd = expected_sha256(sums, "terraform_1.9.8_linux_amd64.zip").unwrap();
        assert_eq!(
            hex::encode(amd),
            "186e0145f5e5f2eb97cbd785bc78f21bae4ef15119349f6ad4fa535b83b10df8"
        );
        assert!(expected_sha256(sums, "terraform_1.9.8_linux_arm64.zip").is_some());
        assert!(expected_sha256(sums, "terraform_1.9.8_linux_amd6").is_none());
        assert!(expected_sha256(sums, "terraform_1.9.8_bad.zip").is_none());
    }

    #[test]
    fn versions_are_checked() {
        assert!(release(Tool::Terraform, "1.9.8").is_ok());
        assert!(release(Tool::OpenTofu, "1.10.0-beta1").is_ok());
        for bad in ["1.9", "v1.9.8", "../../etc", "1.9.8/../x", "latest"] {
            let e = release(Tool::Terraform, bad).unwrap_err();
            assert!(e.contains("expected a version like 1.9.8"), "{bad}: {e}");
        }
    }
}
