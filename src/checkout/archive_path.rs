//! Pure checks on member paths and link targets found in a tarball.

use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};

/// Why a member path or link target cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathProblem {
    /// Starts at the filesystem root (`/etc/passwd`).
    Absolute,
    /// Contains a `..` component.
    ParentDir,
    /// Has no usable component at all.
    Empty,
    /// Lies outside the single top-level directory of the archive.
    OutsideTopLevel,
    /// A link target that resolves outside the checkout root.
    EscapesRoot,
}

impl PathProblem {
    /// Short wording used in error messages.
    pub fn describe(self) -> &'static str {
        match self {
            PathProblem::Absolute => "absolute path",
            PathProblem::ParentDir => "`..` component",
            PathProblem::Empty => "empty path",
            PathProblem::OutsideTopLevel => "outside the archive's top-level directory",
            PathProblem::EscapesRoot => "resolves outside the checkout",
        }
    }
}

/// The normal components of a member path; `.` components are dropped.
pub fn normal_components(path: &Path) -> Result<Vec<&OsStr>, PathProblem> {
    let mut parts = Vec::new();
    for component in path.components() {
        match component {
            Component::Normal(part) => parts.push(part),
            Component::CurDir => {}
            Component::ParentDir => return Err(PathProblem::ParentDir),
            Component::RootDir | Component::Prefix(_) => return Err(PathProblem::Absolute),
        }
    }
    if parts.is_empty() {
        return Err(PathProblem::Empty);
    }
    Ok(parts)
}

/// GitHub wraps every tarball in one directory (`owner-repo-sha/`); this strips it.
/// The first member fixes the name; every later member must sit under the same name.
#[derive(Debug, Default)]
pub struct TopLevelDir {
    name: Option<OsString>,
}

impl TopLevelDir {
    /// The member path relative to the top-level directory; `None` for the directory itself.
    pub fn strip(&mut self, path: &Path) -> Result<Option<PathBuf>, PathProblem> {
        let parts = normal_components(path)?;
        let (first, rest) = parts.split_first().ok_or(PathProblem::Empty)?;
        match &self.name {
            Some(name) if name.as_os_str() != *first => return Err(PathProblem::OutsideTopLevel),
            Some(_) => {}
            None => self.name = Some(first.to_os_string()),
        }
        if rest.is_empty() {
            return Ok(None);
        }
        Ok(Some(rest.iter().collect()))
    }
}

/// Where a relative symlink at `link` (relative to the root) points, resolved lexically.
/// Absolute targets and targets that climb above the root are refused. Lexical resolution
/// cannot see other links on the way; the extractor re-checks the real target afterwards.
pub fn resolve_link_target(link: &Path, target: &Path) -> Result<PathBuf, PathProblem> {
    let mut resolved: Vec<&OsStr> = match link.parent() {
        Some(parent) => normal_components(parent).unwrap_or_default(),
        None => Vec::new(),
    };
    let mut any_component = false;
    for component in target.components() {
        any_component = true;
        match component {
            Component::Normal(part) => resolved.push(part),
            Component::CurDir => {}
            Component::ParentDir => {
                if resolved.pop().is_none() {
                    return Err(PathProblem::EscapesRoot);
                }
            }
            Component::RootDir | Component::Prefix(_) => return Err(PathProblem::Absolute),
        }
    }
    if !any_component {
        return Err(PathProblem::Empty);
    }
    Ok(resolved.iter().collect())
}

/// A member path as shown in messages: escaped, quoted and cut to 200 characters.
pub fn shown(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw);
    let mut escaped: String = text
        .chars()
        .flat_map(char::escape_debug)
        .take(200)
        .collect();
    if escaped.len() < text.escape_debug().to_string().len() {
        escaped.push('…');
    }
    format!("\"{escaped}\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn components(path: &str) -> Result<Vec<String>, PathProblem> {
        normal_components(Path::new(path)).map(|parts| {
            parts
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect()
        })
    }

    #[test]
    fn normal_components_table() {
        let cases: &[(&str, Result<Vec<&str>, PathProblem>)] = &[
            ("a/b/c.tf", Ok(vec!["a", "b", "c.tf"])),
            ("./a/./b", Ok(vec!["a", "b"])),
            ("a/b/", Ok(vec!["a", "b"])),
            ("/etc/passwd", Err(PathProblem::Absolute)),
            ("a/../../etc", Err(PathProblem::ParentDir)),
            ("..", Err(PathProblem::ParentDir)),
            ("a/..", Err(PathProblem::ParentDir)),
            ("", Err(PathProblem::Empty)),
            ("./", Err(PathProblem::Empty)),
        ];
        for (input, expected) in cases {
            let expected = expected
                .clone()
                .map(|parts| parts.iter().map(|p| p.to_string()).collect::<Vec<_>>());
            assert_eq!(components(input), expected, "input {input:?}");
        }
    }

    #[test]
    fn top_level_dir_is_fixed_by_the_first_member_and_stripped() {
        let mut top = TopLevelDir::default();
        assert_eq!(top.strip(Path::new("o-r-abc1234/")), Ok(None));
        assert_eq!(
            top.strip(Path::new("o-r-abc1234/main.tf")),
            Ok(Some(PathBuf::from("main.tf")))
        );
        assert_eq!(
            top.strip(Path::new("./o-r-abc1234/modules/vpc/main.tf")),
            Ok(Some(PathBuf::from("modules/vpc/main.tf")))
        );
        assert_eq!(
            top.strip(Path::new("other/main.tf")),
            Err(PathProblem::OutsideTopLevel)
        );
        assert_eq!(
            top.strip(Path::new("o-r-abc1234/../x")),
            Err(PathProblem::ParentDir)
        );
    }

    #[test]
    fn top_level_dir_can_be_fixed_by_a_nested_first_member() {
        let mut top = TopLevelDir::default();
        assert_eq!(
            top.strip(Path::new("top/a.tf")),
            Ok(Some(PathBuf::from("a.tf")))
        );
        assert_eq!(top.strip(Path::new("top")), Ok(None));
    }

    #[test]
    fn link_target_resolution_table() {
        let cases: &[(&str, &str, Result<&str, PathProblem>)] = &[
            (
                "env/prod/common.tf",
                "../../shared/common.tf",
                Ok("shared/common.tf"),
            ),
            ("env/prod/mod", "./mod-v2", Ok("env/prod/mod-v2")),
            ("a", "b", Ok("b")),
            ("a", ".", Ok("")),
            ("a", "..", Err(PathProblem::EscapesRoot)),
            ("env/x", "../../etc/passwd", Err(PathProblem::EscapesRoot)),
            ("env/x", "../a/../../b", Err(PathProblem::EscapesRoot)),
            ("x", "/etc/passwd", Err(PathProblem::Absolute)),
            ("x", "", Err(PathProblem::Empty)),
        ];
        for (link, target, expected) in cases {
            let got = resolve_link_target(Path::new(link), Path::new(target));
            assert_eq!(
                got,
                expected.map(PathBuf::from),
                "link {link:?} -> {target:?}"
            );
        }
    }

    #[test]
    fn shown_escapes_control_characters_and_truncates() {
        assert_eq!(shown(b"a/b.tf"), "\"a/b.tf\"");
        assert_eq!(shown(b"a\nb"), "\"a\\nb\"");
        let long = vec![b'x'; 500];
        let text = shown(&long);
        assert_eq!(text.chars().count(), 200 + 3);
        assert!(text.ends_with("…\""));
    }
}
