//! Repo-relative path helpers (always `/`-separated, never touching the file system).

/// Normalises a repo-relative directory: strips `./`, duplicate and trailing slashes and
/// resolves `..`. Returns `None` for absolute paths or paths leaving the repository.
/// The repository root is `.`.
pub fn normalize_dir(dir: &str) -> Option<String> {
    if dir.starts_with('/') || dir.contains('\\') {
        return None;
    }
    join_relative(".", dir)
}

/// Joins `rel` onto the normalised directory `base` and resolves `.`/`..` segments.
/// Returns `None` when the result would leave the repository or `rel` is absolute.
pub fn join_relative(base: &str, rel: &str) -> Option<String> {
    if rel.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for seg in base.split('/').chain(rel.split('/')) {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    if parts.is_empty() {
        Some(".".to_string())
    } else {
        Some(parts.join("/"))
    }
}

/// Whether repo-relative `path` lies inside directory `dir` (at any depth).
pub fn path_is_under(path: &str, dir: &str) -> bool {
    if dir == "." {
        return path != ".";
    }
    path.len() > dir.len() && path.starts_with(dir) && path.as_bytes()[dir.len()] == b'/'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_dirs() {
        let cases = [
            ("infra/eks", Some("infra/eks")),
            ("./infra//eks/", Some("infra/eks")),
            (".", Some(".")),
            ("", Some(".")),
            ("infra/../net", Some("net")),
            ("../outside", None),
            ("/abs", None),
        ];
        for (input, want) in cases {
            assert_eq!(normalize_dir(input).as_deref(), want, "{input}");
        }
    }

    #[test]
    fn joins_relative_paths() {
        assert_eq!(
            join_relative("infra/eks", "../modules/vpc").as_deref(),
            Some("infra/modules/vpc")
        );
        assert_eq!(
            join_relative(".", "./modules/x").as_deref(),
            Some("modules/x")
        );
        assert_eq!(join_relative("a", "../../x"), None);
    }

    #[test]
    fn under_checks_segment_boundaries() {
        assert!(path_is_under("infra/eks/main.tf", "infra/eks"));
        assert!(!path_is_under("infra/eks2/main.tf", "infra/eks"));
        assert!(!path_is_under("infra/eks", "infra/eks"));
        assert!(path_is_under("main.tf", "."));
    }
}
