//! Private module repositories (pure): the environment that makes Git, run by `terraform
//! init`, answer GitHub's credential prompt with a scoped, read-only installation token. The
//! token lives only in the process environment of `init` (never argv, never a file in the
//! workdir); the helper is a shell function Git runs for the GitHub host alone.

use std::collections::BTreeMap;

/// The variable holding the token inside the sandbox.
pub const TOKEN_VAR: &str = "TFGATE_GIT_TOKEN";

/// The environment for `init`: Git's credential helper for `github_url` (scheme, host and
/// port, e.g. `https://github.com`) reading [`TOKEN_VAR`], and no terminal prompts.
pub fn credential_env(github_url: &str, token: &str) -> BTreeMap<String, String> {
    let helper = format!(
        "!f() {{ test \"$1\" = get || exit 0; echo username=x-access-token; echo \"password=${TOKEN_VAR}\"; }}; f"
    );
    BTreeMap::from([
        ("GIT_TERMINAL_PROMPT".to_string(), "0".to_string()),
        ("GIT_CONFIG_COUNT".to_string(), "1".to_string()),
        (
            "GIT_CONFIG_KEY_0".to_string(),
            format!("credential.{}.helper", github_url.trim_end_matches('/')),
        ),
        ("GIT_CONFIG_VALUE_0".to_string(), helper),
        (TOKEN_VAR.to_string(), token.to_string()),
    ])
}

/// Whether `name` is one of the variables [`credential_env`] sets (the sandbox's allowlist).
pub fn is_git_auth_var(name: &str) -> bool {
    matches!(name, "GIT_TERMINAL_PROMPT" | "GIT_CONFIG_COUNT" | TOKEN_VAR)
        || ["GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"]
            .iter()
            .any(|prefix| {
                name.strip_prefix(prefix)
                    .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            })
}

/// The repository names (without owner) among `installed` (`owner/name`) that a
/// `module_repos` glob matches, sorted; what the scoped token may read.
pub fn module_repo_names(installed: &[String], globs: &[String]) -> Vec<String> {
    let opts = glob::MatchOptions {
        case_sensitive: false,
        require_literal_separator: true,
        require_literal_leading_dot: false,
    };
    let patterns: Vec<glob::Pattern> = globs
        .iter()
        .filter_map(|g| glob::Pattern::new(g).ok())
        .collect();
    let mut names: Vec<String> = installed
        .iter()
        .filter(|full| patterns.iter().any(|p| p.matches_with(full, opts)))
        .filter_map(|full| full.split_once('/').map(|(_, name)| name.to_string()))
        .collect();
    names.sort();
    names.dedup();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_helper_answers_only_get_for_the_github_host() {
        let env = credential_env("https://github.com/", "ghs_x");
        assert_eq!(
            env["GIT_CONFIG_KEY_0"],
            "credential.https://github.com.helper"
        );
        assert_eq!(env["TFGATE_GIT_TOKEN"], "ghs_x");
        assert_eq!(env["GIT_TERMINAL_PROMPT"], "0");
        let helper = &env["GIT_CONFIG_VALUE_0"];
        assert!(helper.starts_with('!'), "a shell helper");
        assert!(
            helper.contains("$TFGATE_GIT_TOKEN") && !helper.contains("ghs_x"),
            "{helper}"
        );
        assert!(env.keys().all(|k| is_git_auth_var(k)), "{env:?}");
    }

    #[test]
    fn only_the_helpers_variables_pass() {
        for (name, ok) in [
            ("GIT_CONFIG_KEY_0", true),
            ("GIT_CONFIG_VALUE_12", true),
            ("GIT_CONFIG_KEY_", false),
            ("GIT_CONFIG_KEY_x", false),
            ("GIT_SSH_COMMAND", false),
            ("GIT_ASKPASS", false),
            ("TFGATE_GIT_TOKEN", true),
        ] {
            assert_eq!(is_git_auth_var(name), ok, "{name}");
        }
    }

    #[test]
    fn module_repositories_from_globs() {
        let installed: Vec<String> = ["acme/tf-modules", "acme/tf-net", "acme/app", "acme/tf/x"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            module_repo_names(&installed, &["acme/tf-*".into()]),
            vec!["tf-modules".to_string(), "tf-net".to_string()]
        );
        assert_eq!(
            module_repo_names(&installed, &["ACME/App".into()]),
            vec!["app".to_string()]
        );
        assert!(module_repo_names(&installed, &["other/*".into()]).is_empty());
        assert!(module_repo_names(&installed, &[]).is_empty());
    }
}
