//! Provider settings a PR may commit and tfgate removes before `init`: a `.terraform/`
//! directory (with its own provider binaries and modules), `terraform.d/` (an implied local
//! mirror in the working directory), and CLI configs (`.terraformrc`, `terraform.rc`).
//! Providers come only from the policy's `providers`.

use std::path::Path;

use anyhow::{Context, Result};

/// Whether an entry with this file name is a provider override (pure).
pub fn is_provider_override(name: &str, is_dir: bool) -> bool {
    match name {
        ".terraform" | "terraform.d" | ".terraform.d" => is_dir,
        ".terraformrc" | "terraform.rc" => true,
        _ => false,
    }
}

/// Removes every provider override under `root` (never following links); returns their
/// paths relative to `root`, sorted.
pub fn remove_provider_overrides(root: &Path) -> Result<Vec<String>> {
    let mut removed = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries =
            std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))?;
        for entry in entries {
            let entry = entry?;
            let kind = entry.file_type()?;
            let name = entry.file_name().to_string_lossy().to_string();
            let path = entry.path();
            if is_provider_override(&name, kind.is_dir())
                || (kind.is_symlink() && is_provider_override(&name, true))
            {
                if kind.is_dir() {
                    std::fs::remove_dir_all(&path)
                } else {
                    std::fs::remove_file(&path)
                }
                .with_context(|| format!("removing {}", path.display()))?;
                let rel = path.strip_prefix(root).unwrap_or(&path);
                removed.push(rel.display().to_string());
            } else if kind.is_dir() {
                pending.push(path);
            }
        }
    }
    removed.sort();
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_table() {
        let table = [
            (".terraform", true, true),
            (".terraform", false, false),
            ("terraform.d", true, true),
            (".terraform.d", true, true),
            (".terraformrc", false, true),
            ("terraform.rc", false, true),
            (".terraform.lock.hcl", false, false),
            ("main.tf", false, false),
            ("terraform", true, false),
        ];
        for (name, is_dir, expected) in table {
            assert_eq!(
                is_provider_override(name, is_dir),
                expected,
                "{name} dir={is_dir}"
            );
        }
    }

    #[test]
    fn committed_overrides_are_removed_and_listed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for d in [
            "infra/app/.terraform/providers",
            "infra/app/terraform.d/plugins",
            "modules/vpc",
        ] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        for f in [
            "infra/app/main.tf",
            "infra/app/.terraform.lock.hcl",
            ".terraformrc",
            "modules/vpc/main.tf",
        ] {
            std::fs::write(root.join(f), "x").unwrap();
        }
        std::os::unix::fs::symlink("/etc", root.join("modules/terraform.d")).unwrap();
        let removed = remove_provider_overrides(root).unwrap();
        assert_eq!(
            removed,
            vec![
                ".terraformrc",
                "infra/app/.terraform",
                "infra/app/terraform.d",
                "modules/terraform.d"
            ]
        );
        assert!(root.join("infra/app/main.tf").exists());
        assert!(root.join("infra/app/.terraform.lock.hcl").exists());
        assert!(root.join("modules/vpc/main.tf").exists());
        assert!(std::path::Path::new("/etc").exists());
        assert_eq!(
            remove_provider_overrides(root).unwrap(),
            Vec::<String>::new()
        );
    }
}
