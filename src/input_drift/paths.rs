//! Repo-relative path helpers: directories as `a/b` (root `""`), local module sources.

/// `./a/b/` → `a/b`; `.` and `./` → `""`.
pub fn normalize_dir(path: &str) -> String {
    join("", path)
}

/// Directory part of a repo-relative file path (`""` for a file at the root).
pub fn parent_dir(path: &str) -> String {
    let path = normalize_dir(path);
    path.rsplit_once('/')
        .map_or(String::new(), |(dir, _)| dir.to_string())
}

/// Whether a module `source` is a local path (`./x`, `../x`), the only kind inside the repo.
pub fn is_local_source(source: &str) -> bool {
    source.starts_with("./") || source.starts_with("../") || source == "." || source == ".."
}

/// `base` joined with a relative path, `.`/`..` resolved. `..` above the root is dropped.
pub fn join(base: &str, relative: &str) -> String {
    let mut parts: Vec<&str> = base
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    for part in relative.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    parts.join("/")
}

/// `file` is directly inside `dir` (not in a subdirectory).
pub fn is_directly_in(file: &str, dir: &str) -> bool {
    parent_dir(file) == normalize_dir(dir)
}

/// `file` is inside `dir` or one of its subdirectories.
pub fn is_under(file: &str, dir: &str) -> bool {
    let (file, dir) = (normalize_dir(file), normalize_dir(dir));
    dir.is_empty() || file.starts_with(&format!("{dir}/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_helpers() {
        assert_eq!(normalize_dir("./a/b/"), "a/b");
        assert_eq!(normalize_dir("."), "");
        assert_eq!(parent_dir("a/b/main.tf"), "a/b");
        assert_eq!(parent_dir("main.tf"), "");
        assert_eq!(join("infra/eks", "../modules/vpc"), "infra/modules/vpc");
        assert_eq!(join("infra/eks", "./child"), "infra/eks/child");
        assert_eq!(join("", "../../x"), "x");
        assert!(is_local_source("./m") && is_local_source("../m"));
        assert!(!is_local_source("terraform-aws-modules/vpc/aws"));
        assert!(!is_local_source("git::https://example.com/m.git"));
        assert!(is_directly_in("infra/eks/main.tf", "infra/eks/"));
        assert!(!is_directly_in("infra/eks/sub/main.tf", "infra/eks"));
        assert!(is_under("infra/eks/sub/main.tf", "infra/eks"));
        assert!(!is_under("infra/eks2/main.tf", "infra/eks"));
        assert!(is_under("anything.tf", ""));
    }
}
