//! Terraform and OpenTofu versions on demand.
//!
//! A project names `terraform_version: "1.9.8"` or `opentofu_version: "1.8.1"` (or the server
//! names a default); the worker installs a missing version from the official release site
//! (or `--release-url`, a mirror) before the run: the `SHA256SUMS` file must carry a valid
//! OpenPGP signature of a trusted key ([`signature`]), the archive must match its line, and
//! only then is the binary unpacked into `DATA_DIR/tools/<tool>/<version>/` and reused.
//!
//! Pure parts: [`version`] (versions and `required_version` constraints), [`layout`] (file
//! names, URLs, `SHA256SUMS`), [`signature`] (OpenPGP over bytes). Effects: [`install`].

pub mod install;
pub mod layout;
pub mod signature;
pub mod version;

use std::path::{Path, PathBuf};

pub use install::{InstallError, ReleaseSource};
pub use layout::{release, Release, Tool};
pub use signature::Keyring;
pub use version::{Constraint, Version};

/// Which Terraform a run uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolChoice {
    /// A binary already on the server (a path, or a name looked up in `PATH`).
    Binary(PathBuf),
    /// A release installed on demand.
    Release(Release),
}

/// Where a release is installed under the tools directory (`DATA_DIR/tools`).
pub fn installed_path(tools_dir: &Path, release: &Release) -> PathBuf {
    tools_dir
        .join(release.tool.dir_name())
        .join(&release.version)
        .join(release.tool.binary_name())
}

/// The first `required_version` among a root's constraints that `release` does not meet,
/// as written. Constraints that do not parse are left to Terraform itself.
pub fn unmet_constraint(release: &Release, constraints: &[String]) -> Option<String> {
    let version = Version::parse(&release.version)?;
    constraints
        .iter()
        .find(|text| Constraint::parse(text).is_ok_and(|c| !c.allows(&version)))
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn installed_paths() {
        let tools = Path::new("/data/tools");
        let tf = release(Tool::Terraform, "1.9.8").unwrap();
        let tofu = release(Tool::OpenTofu, "1.8.1").unwrap();
        assert_eq!(
            installed_path(tools, &tf),
            Path::new("/data/tools/terraform/1.9.8/terraform")
        );
        assert_eq!(
            installed_path(tools, &tofu),
            Path::new("/data/tools/opentofu/1.8.1/tofu")
        );
    }

    #[test]
    fn unmet_constraints_are_named() {
        let tf = release(Tool::Terraform, "1.0.3").unwrap();
        let c = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(unmet_constraint(&tf, &c(&[">= 1.0, < 2.0"])), None);
        assert_eq!(
            unmet_constraint(&tf, &c(&[">= 0.15", ">= 1.5.0"])),
            Some(">= 1.5.0".to_string())
        );
        assert_eq!(unmet_constraint(&tf, &c(&["not a constraint"])), None);
        assert_eq!(unmet_constraint(&tf, &[]), None);
    }
}
