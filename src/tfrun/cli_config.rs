//! The Terraform CLI configuration of a run: providers are installed only from the sources
//! the policy's `providers` names, from the server's mirror when there is one, else directly
//! (through the egress proxy). Written by tfgate for every step, bound read-only; nothing the
//! PR committed (`.terraformrc`, `terraform.d/`) takes part.

use std::io::Write;
use std::path::Path;

use anyhow::{bail, Context, Result};

/// The CLI configuration text (pure). The provider cache (when there is one) comes first:
/// Terraform takes a version from the first source that has it, so a cached package is linked
/// and anything else comes from the mirror or directly. `admin_extra` is the server's
/// `--tf-cli-config` file, appended as it is (it may not install providers itself).
pub fn render(
    providers: &[String],
    cache: Option<&Path>,
    mirror: Option<&Path>,
    admin_extra: Option<&str>,
) -> String {
    let include = providers
        .iter()
        .map(|p| serde_json::to_string(p).unwrap_or_default())
        .collect::<Vec<_>>()
        .join(", ");
    let filesystem_mirror = |path: &Path| {
        format!(
            "  filesystem_mirror {{\n    path    = {}\n    include = [{include}]\n  }}\n",
            serde_json::to_string(&path.display().to_string()).unwrap_or_default()
        )
    };
    let mut method = cache.map(filesystem_mirror).unwrap_or_default();
    method.push_str(&match mirror {
        Some(path) => filesystem_mirror(path),
        None => format!("  direct {{\n    include = [{include}]\n  }}\n"),
    });
    let mut text = format!(
        "# Written by tfgate for one run: providers come only from the policy's `providers`.\nprovider_installation {{\n{method}}}\n"
    );
    if let Some(extra) = admin_extra {
        text.push_str("\n# From the server's --tf-cli-config:\n");
        text.push_str(extra);
        if !extra.ends_with('\n') {
            text.push('\n');
        }
    }
    text
}

/// `credentials "HOST" { token = "…" }` blocks for private registries (pure).
pub fn credentials(tokens: &[(String, String)]) -> String {
    tokens
        .iter()
        .map(|(host, token)| {
            format!(
                "\ncredentials {} {{\n  token = {}\n}}\n",
                serde_json::to_string(host).unwrap_or_default(),
                serde_json::to_string(token).unwrap_or_default()
            )
        })
        .collect()
}

/// The server's `--tf-cli-config`, checked: provider installation belongs to the policy, and
/// registry credentials to the policy's `registry_tokens` (which reach `init` only; the
/// server's file reaches every step, plan-time code included).
pub fn read_admin_config(path: &Path) -> Result<String> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading --tf-cli-config {}", path.display()))?;
    if text.contains("provider_installation") {
        bail!(
            "--tf-cli-config {} has a provider_installation block: tfgate writes that itself \
             from the policy's `providers` and --provider-mirror; remove the block",
            path.display()
        );
    }
    if has_credentials_block(&text) {
        bail!(
            "--tf-cli-config {} has a credentials or credentials_helper block: every Terraform \
             step, plan-time code included, would read it; give registry tokens in the policy's \
             `registry_tokens` (only `init` gets them) and remove the block",
            path.display()
        );
    }
    Ok(text)
}

/// Whether a CLI config text has a `credentials` or `credentials_helper` block (pure).
fn has_credentials_block(text: &str) -> bool {
    text.lines().any(|line| {
        line.trim_start()
            .strip_prefix("credentials")
            .map(|rest| rest.strip_prefix("_helper").unwrap_or(rest))
            .is_some_and(|rest| rest.starts_with([' ', '\t', '"', '{']))
    })
}

/// Writes `text` to a new private file in `dir` (removed when the handle drops).
pub fn write_temp(dir: &Path, text: &str) -> Result<tempfile::NamedTempFile> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut file = tempfile::Builder::new()
        .prefix("cli-")
        .suffix(".tfrc")
        .tempfile_in(dir)
        .with_context(|| format!("creating a CLI config in {}", dir.display()))?;
    file.write_all(text.as_bytes())?;
    file.flush()?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn providers() -> Vec<String> {
        vec![
            "registry.terraform.io/hashicorp/*".into(),
            "registry.terraform.io/tfgate/fake".into(),
        ]
    }

    #[test]
    fn a_mirror_serves_only_the_policys_providers() {
        let text = render(&providers(), None, Some(Path::new("/opt/mirror")), None);
        assert_eq!(
            text,
            "# Written by tfgate for one run: providers come only from the policy's `providers`.\nprovider_installation {\n  filesystem_mirror {\n    path    = \"/opt/mirror\"\n    include = [\"registry.terraform.io/hashicorp/*\", \"registry.terraform.io/tfgate/fake\"]\n  }\n}\n"
        );
        assert!(!text.contains("direct"));
    }

    #[test]
    fn without_a_mirror_the_policys_providers_install_directly() {
        let text = render(
            &providers(),
            None,
            None,
            Some("plugin_cache_may_break_dependency_lock_file = true"),
        );
        assert!(text.contains("  direct {\n    include = [\"registry.terraform.io/hashicorp/*\", \"registry.terraform.io/tfgate/fake\"]\n  }"));
        assert!(text.ends_with("plugin_cache_may_break_dependency_lock_file = true\n"));
    }

    #[test]
    fn the_cache_comes_before_the_mirror_or_direct_installation() {
        let cache = Path::new("/data/provider-cache");
        for mirror in [None, Some(Path::new("/opt/mirror"))] {
            let text = render(&providers(), Some(cache), mirror, None);
            let cache_at = text
                .find("\"/data/provider-cache\"")
                .expect("the cache is listed");
            let next = text
                .find("\"/opt/mirror\"")
                .or_else(|| text.find("direct {"))
                .expect("then the mirror or direct");
            assert!(cache_at < next, "{text}");
            assert_eq!(text.matches("include = [\"registry.terraform.io/hashicorp/*\", \"registry.terraform.io/tfgate/fake\"]").count(), 2, "{text}");
        }
    }

    #[test]
    fn registry_tokens_become_credentials_blocks() {
        assert_eq!(credentials(&[]), "");
        let text = credentials(&[
            ("registry.acme.io".into(), "tok\"en".into()),
            ("app.terraform.io".into(), "t2".into()),
        ]);
        assert_eq!(
            text,
            "\ncredentials \"registry.acme.io\" {\n  token = \"tok\\\"en\"\n}\n\ncredentials \"app.terraform.io\" {\n  token = \"t2\"\n}\n"
        );
    }

    #[test]
    fn an_admin_config_may_not_install_providers_nor_hold_credentials() {
        let dir = tempfile::tempdir().unwrap();
        let bad = dir.path().join("bad.tfrc");
        std::fs::write(&bad, "provider_installation {\n  direct {}\n}\n").unwrap();
        let err = read_admin_config(&bad).unwrap_err().to_string();
        assert!(err.contains("provider_installation"), "{err}");
        let creds = dir.path().join("creds.tfrc");
        for block in [
            "credentials \"registry.acme.io\" {\n  token = \"t\"\n}\n",
            "  credentials_helper \"vault\" {}\n",
            "credentials{\n}\n",
        ] {
            std::fs::write(&creds, block).unwrap();
            let err = read_admin_config(&creds).unwrap_err().to_string();
            assert!(err.contains("registry_tokens"), "{block}: {err}");
        }
        std::fs::write(&creds, "# no credentials here\nhost \"x.io\" {}\n").unwrap();
        assert!(read_admin_config(&creds).is_ok());
        let good = dir.path().join("good.tfrc");
        std::fs::write(&good, "disable_checkpoint = true\n").unwrap();
        assert_eq!(
            read_admin_config(&good).unwrap(),
            "disable_checkpoint = true\n"
        );
    }
}
