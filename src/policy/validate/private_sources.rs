//! `module_repos` and `registry_tokens`: where private modules may come from, checked.

use super::{idx, key, p, values, Checker, InputSource, PolicyFile};
use crate::model::gitops::Tool;
use crate::policy::model::{GitopsFolder, RegistryToken};
use crate::policy::GitHubPermission;

/// The module repository globs and the registry tokens of `file`, with a problem for each
/// bad entry.
pub(super) fn check(c: &mut Checker, file: &PolicyFile) -> (Vec<String>, Vec<RegistryToken>) {
    let mut repos = Vec::new();
    for (i, pattern) in file.module_repos.iter().enumerate() {
        if c.check(&[key("module_repos"), idx(i)], values::repo_glob(pattern))
            .is_some()
        {
            repos.push(pattern.clone());
        }
    }
    let mut tokens: Vec<RegistryToken> = Vec::new();
    for (i, token) in file.registry_tokens.iter().enumerate() {
        let at = |k: &str| p(&[key("registry_tokens"), idx(i), key(k)]);
        let host = token.host.trim().to_ascii_lowercase();
        let host_ok = registry_host(&host);
        if !host_ok {
            c.at(
                &at("host"),
                format!(
                    "`{}` is not a registry host name (like registry.acme.io)",
                    token.host
                ),
            );
        } else if tokens.iter().any(|t| t.host == host) {
            c.at(&at("host"), format!("registry `{host}` is listed twice"));
        }
        let source = InputSource::parse(&token.source);
        if source.is_none() {
            c.at(
                &at("source"),
                format!(
                    "unknown token source `{}`: use env:NAME or file:PATH",
                    token.source
                ),
            );
        }
        super::check_own_env(c, &at("source"), source.as_ref());
        if let (true, Some(source)) = (host_ok, source) {
            tokens.push(RegistryToken { host, source });
        }
    }
    (repos, tokens)
}

/// `gitops:` folders: a path glob and `argocd` or `flux`.
pub(super) fn check_gitops(c: &mut Checker, file: &PolicyFile) -> Vec<GitopsFolder> {
    let mut out = Vec::new();
    for (i, spec) in file.gitops.iter().enumerate() {
        let at = |k: &str| p(&[key("gitops"), idx(i), key(k)]);
        let path_ok = c
            .check(&at("path"), values::path_glob(&spec.path))
            .is_some();
        let tool = Tool::parse(&spec.kind);
        if tool.is_none() {
            c.at(
                &at("kind"),
                format!("unknown kind `{}`: use argocd or flux", spec.kind),
            );
        }
        if let (true, Some(tool)) = (path_ok, tool) {
            out.push(GitopsFolder {
                path: spec.path.clone(),
                tool,
                acknowledge_min_permission: spec
                    .acknowledge
                    .as_ref()
                    .map_or(GitHubPermission::Maintain, |a| a.min_permission),
            });
        }
    }
    out
}

/// A host name with a dot (optionally `:port`), as Terraform's source addresses take it.
fn registry_host(host: &str) -> bool {
    let (name, port) = match host.rsplit_once(':') {
        Some((name, port)) => (name, Some(port)),
        None => (host, None),
    };
    let labels_ok = name.contains('.')
        && name.split('.').all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                && !l.starts_with('-')
                && !l.ends_with('-')
        });
    labels_ok && port.map_or(true, |p| p.parse::<u16>().is_ok_and(|n| n > 0))
}

/// `drift_detection`: a valid schedule, known projects (default: all), report `issue`.
pub(super) fn check_drift_detection(
    c: &mut Checker,
    file: &PolicyFile,
    projects: &[crate::policy::ResolvedProject],
) -> Option<crate::policy::DriftDetection> {
    let spec = file.drift_detection.as_ref()?;
    let at = |k: &str| p(&[key("drift_detection"), key(k)]);
    let schedule_ok = c
        .check(
            &at("schedule"),
            crate::drift_detection::schedule::Schedule::parse(&spec.schedule),
        )
        .is_some();
    if let Some(report) = spec.report.as_deref().filter(|r| *r != "issue") {
        c.at(
            &at("report"),
            format!("unknown report `{report}`: use issue"),
        );
    }
    let all: Vec<String> = projects.iter().map(|p| p.spec.id.0.clone()).collect();
    let chosen = spec.projects.clone().unwrap_or_else(|| all.clone());
    for (i, name) in chosen.iter().enumerate() {
        if !all.contains(name) {
            c.at(
                &p(&[key("drift_detection"), key("projects"), idx(i)]),
                format!(
                    "unknown project `{name}`: drift detection checks projects this file declares"
                ),
            );
        }
    }
    schedule_ok.then(|| crate::policy::DriftDetection {
        schedule: spec.schedule.trim().to_string(),
        projects: chosen,
        show_principals: spec.show_principals.unwrap_or(false),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_hosts() {
        let table = [
            ("app.terraform.io", true),
            ("registry.acme.io:8443", true),
            ("localhost", false),
            ("registry.acme.io:0", false),
            ("registry.acme.io:x", false),
            ("-bad.acme.io", false),
            ("acme..io", false),
            ("https://registry.acme.io", false),
            ("registry.acme.io/path", false),
        ];
        for (host, ok) in table {
            assert_eq!(registry_host(host), ok, "{host}");
        }
    }
}
