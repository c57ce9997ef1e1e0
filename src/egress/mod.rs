//! Egress of sandboxed runs: a private network namespace whose only way out is tfgate's
//! proxy, which allows what the policy's allowlist names and never the host, its metadata
//! endpoint or its neighbours.
//!
//! Pure: [`address`] (what an address is, in any spelling), [`allowlist`] (entries, matching,
//! defaults), [`decision`] (admit a `host:port`, pick the resolved address), [`request`]
//! (the proxy request head). Effects: [`proxy`] (host side, per run), [`relay`] (inside the
//! sandbox), [`host_addrs`].

pub mod address;
pub mod allowlist;
pub mod decision;
pub mod host_addrs;
pub mod proxy;
pub mod relay;
pub mod request;

pub use allowlist::{default_rules, parse_rule, Allowlist, EgressRule};
pub use decision::DenyReason;
pub use proxy::{EgressPolicy, EgressProxy, Refusals};

/// How a run's Terraform reaches the network (decided by the run planner from policy and
/// server flags; carried out by `tfrun`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunNetwork {
    /// No network at all.
    None,
    /// The host's network (server flag `--allow-host-network` only).
    Shared,
    /// A private network; out only through the proxy, to this allowlist.
    Egress(Allowlist),
}
