//! One step's network: the egress proxy started before the sandbox and stopped after it.

use std::sync::Arc;

use anyhow::{Context, Result};

use super::{RunSettings, TerraformSetup};
use crate::egress::decision::count_by_reason;
use crate::egress::{DenyReason, EgressPolicy, EgressProxy, Refusals, RunNetwork};
use crate::model::view::{BlockedCount, RunNote};
use crate::sandbox::{EgressMount, Network, SandboxMode, SandboxSpec};

/// The proxy variables every client library reads (Go reads either case).
const PROXY_VARS: [&str; 4] = ["HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"];

/// The network of one sandboxed step, and its proxy while it runs.
pub(super) struct EgressStep {
    network: Network,
    proxy: Option<EgressProxy>,
}

impl EgressStep {
    pub fn start(setup: &TerraformSetup, settings: &RunSettings) -> Result<EgressStep> {
        let allowlist = match (&settings.network, setup.mode) {
            (RunNetwork::None, _) => return Ok(EgressStep::plain(Network::None)),
            (RunNetwork::Shared, _) => {
                tracing::warn!(run = %settings.label, "network: shared: Terraform runs in the host's network");
                return Ok(EgressStep::plain(Network::Shared));
            }
            (RunNetwork::Egress(_), SandboxMode::None) => {
                tracing::warn!(run = %settings.label, "sandbox = none: egress is NOT filtered (development only)");
                return Ok(EgressStep::plain(Network::Shared));
            }
            (RunNetwork::Egress(allowlist), SandboxMode::Bwrap) => allowlist,
        };
        let policy = Arc::new(EgressPolicy {
            allowlist: allowlist.clone(),
            host_addrs: setup.host_addrs.clone(),
        });
        let proxy = EgressProxy::start(&setup.runtime_dir, policy, settings.label.clone())
            .with_context(|| {
                format!(
                    "starting the egress proxy in {}",
                    setup.runtime_dir.display()
                )
            })?;
        let network = Network::Egress(EgressMount {
            socket_dir: proxy.dir().to_path_buf(),
            relay_bin: setup.relay_bin.clone(),
            forwards: allowlist.loopback_endpoints(),
        });
        Ok(EgressStep {
            network,
            proxy: Some(proxy),
        })
    }

    fn plain(network: Network) -> EgressStep {
        EgressStep {
            network,
            proxy: None,
        }
    }

    pub fn network(&self) -> Network {
        self.network.clone()
    }

    /// Points the sandboxed programs at the proxy (and drops any `NO_PROXY`).
    pub fn add_proxy_env(&self, spec: &mut SandboxSpec) {
        if let Network::Egress(mount) = &self.network {
            let url = mount.proxy_url();
            for var in PROXY_VARS {
                spec.env.insert(var.to_string(), url.clone());
            }
            spec.env.remove("NO_PROXY");
            spec.env.remove("no_proxy");
        }
    }

    /// Stops the proxy; the connections it refused.
    pub fn finish(self) -> Refusals {
        self.proxy.map(EgressProxy::finish).unwrap_or_default()
    }
}

/// "blocked: 1 connection to a link-local address" under `project`, when anything was.
pub(super) fn blocked_note(project: &str, refused: &[DenyReason]) -> Option<RunNote> {
    if refused.is_empty() {
        return None;
    }
    Some(RunNote::EgressBlocked {
        project: project.to_string(),
        blocked: count_by_reason(refused)
            .into_iter()
            .map(|(reason, count)| BlockedCount {
                count,
                to: reason.describe().to_string(),
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::egress::DenyReason::*;

    #[test]
    fn blocked_note_counts_by_destination() {
        assert_eq!(blocked_note("app", &[]), None);
        let Some(RunNote::EgressBlocked { project, blocked }) =
            blocked_note("app", &[Metadata, NotAllowlisted, Metadata])
        else {
            panic!("no note")
        };
        assert_eq!(project, "app");
        let shown: Vec<(usize, &str)> = blocked.iter().map(|b| (b.count, b.to.as_str())).collect();
        assert_eq!(
            shown,
            vec![
                (2, "the cloud metadata endpoint"),
                (1, "a host not on the egress allowlist")
            ]
        );
    }
}
