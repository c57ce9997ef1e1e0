//! The credentials `init` gets for private modules and registries (effects): a read-only token
//! scoped to the policy's `module_repos`, and the policy's registry tokens read on the server.

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use secrecy::ExposeSecret;

use super::RunCtx;
use crate::tfrun::git_auth::{credential_env, module_repo_names};

impl RunCtx<'_> {
    /// The Git credential environment for `init` when the policy names module repositories;
    /// empty otherwise (or when none of them is in this installation).
    pub(super) async fn module_auth(&self) -> Result<BTreeMap<String, String>> {
        if self.policy.module_repos.is_empty() {
            return Ok(BTreeMap::new());
        }
        let app = self.state.github().context("no GitHub App configured")?;
        let installation = self.run.repo.installation_id;
        let installed = app.installation_repositories(installation).await?;
        let names = module_repo_names(&installed, &self.policy.module_repos);
        if names.is_empty() {
            tracing::warn!(repo = %self.run.repo.full_name(),
                "no repository of this installation matches the policy's module_repos");
            return Ok(BTreeMap::new());
        }
        let token = app.read_only_token(installation, &names).await?;
        Ok(credential_env(
            &self.state.config.github_url,
            token.expose_secret(),
        ))
    }

    /// `(host, token)` of each registry token the policy names whose value the server has.
    pub(super) fn registry_credentials(&self) -> Vec<(String, String)> {
        self.policy
            .registry_tokens
            .iter()
            .filter_map(
                |t| match crate::worker::input_drift::values::read_value(&t.source) {
                    Some(token) => Some((t.host.clone(), token.trim().to_string())),
                    None => {
                        tracing::warn!(host = %t.host, "a registry token's source has no value");
                        None
                    }
                },
            )
            .collect()
    }
}
