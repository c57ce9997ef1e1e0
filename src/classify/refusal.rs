//! tfgate's own refusals, told apart from the user's mistakes: a connection the sandbox could
//! not make because its endpoint is not on the project's egress allowlist
//! (`egress_blocked`), and a provider `init` could not install because the policy's
//! `providers` does not list it (`provider_not_allowed`). Pure: text and facts in.
//!
//! Inside the sandbox the only interface is loopback, where the relay listens on the proxy
//! port and on each allowlisted loopback endpoint. A Go client dials loopback literals directly
//! (bypassing the proxy), so a refused connection to a loopback port no relay serves, or any
//! connection to another address (no route), is the sandbox's own signature; a proxied one
//! is seen by the egress proxy, which records the endpoint it refused.

use std::net::IpAddr;

use once_cell::sync::Lazy;

use super::Category;
use regex::Regex;

/// What the caller knows about the run beyond its error text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxFacts {
    /// The run was in tfgate's private network (its only way out the egress proxy).
    pub egress_filtered: bool,
    /// Loopback ports the relay listens on inside the sandbox: the proxy port and each
    /// allowlisted loopback endpoint's.
    pub relayed_ports: Vec<u16>,
    /// Endpoints (`host:port`) the egress proxy refused during the run, in order.
    pub proxy_refused: Vec<String>,
    /// The policy's `providers` (`registry.terraform.io/hashicorp/*`); empty: unknown.
    pub allowed_providers: Vec<String>,
}

/// One of tfgate's own refusals, with what its advice names (unredacted: the caller redacts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// `host:port` when known.
    EgressBlocked { endpoint: Option<String> },
    /// The provider source, `registry.terraform.io/hashicorp/aws`.
    ProviderNotAllowed { source: String },
}

/// The refusal a failed run's output shows, if it is one of tfgate's.
pub fn sandbox_refusal(text: &str, facts: &SandboxFacts) -> Option<Refusal> {
    if let Some(source) = unlisted_provider(text, &facts.allowed_providers) {
        return Some(Refusal::ProviderNotAllowed { source });
    }
    if !facts.egress_filtered {
        return None;
    }
    if let Some(endpoint) = facts.proxy_refused.first().filter(|_| network_shaped(text)) {
        return Some(Refusal::EgressBlocked {
            endpoint: Some(endpoint.clone()),
        });
    }
    direct_dial_refused(text, &facts.relayed_ports).map(|endpoint| Refusal::EgressBlocked {
        endpoint: Some(endpoint),
    })
}

/// A failure a refused proxied connection can explain: one the classifier finds no AWS cause
/// for (an `AccessDenied` while the proxy refused some other call stays what it is).
fn network_shaped(text: &str) -> bool {
    let ctx = super::ClassifyContext {
        has_address: false,
        ..Default::default()
    };
    matches!(
        super::classify(text, &ctx).category,
        Category::Unknown | Category::ConfigurationError | Category::Timeout
    )
}

/// `dial tcp 127.0.0.1:9000: connect: connection refused` (Go's wording), for an endpoint the
/// sandbox cannot reach: a loopback port no relay serves, or any other address.
fn direct_dial_refused(text: &str, relayed_ports: &[u16]) -> Option<String> {
    static DIAL: Lazy<Regex> = Lazy::new(|| {
        Regex::new(
            r"dial tcp \[?([0-9A-Fa-f:.]+?)\]?:(\d{1,5}):\s+connect:\s+(?:connection refused|network is unreachable|no route to host|cannot assign requested address)",
        )
        .unwrap()
    });
    DIAL.captures_iter(text).find_map(|c| {
        let ip: IpAddr = c[1].parse().ok()?;
        let port: u16 = c[2].parse().ok()?;
        let unreachable = !ip.is_loopback() || !relayed_ports.contains(&port);
        unreachable.then(|| match ip {
            IpAddr::V6(_) => format!("[{ip}]:{port}"),
            IpAddr::V4(_) => format!("{ip}:{port}"),
        })
    })
}

/// The source of a provider Terraform found in none of its installation sources, when the
/// policy's `providers` does not list it (one it lists but the mirror lacks is not this).
fn unlisted_provider(text: &str, allowed: &[String]) -> Option<String> {
    static NOT_FOUND: Lazy<Regex> = Lazy::new(|| {
        Regex::new(
            r"provider\s+([A-Za-z0-9.-]+/[A-Za-z0-9_-]+/[A-Za-z0-9_-]+)\s+was\s+not\s+found\s+in\s+any\s+of\s+the\s+search\s+locations",
        )
        .unwrap()
    });
    if allowed.is_empty() {
        return None;
    }
    NOT_FOUND
        .captures_iter(text)
        .map(|c| c[1].to_ascii_lowercase())
        .find(|source| !allowed.iter().any(|p| provider_matches(p, source)))
}

/// `registry.terraform.io/hashicorp/*` matches `registry.terraform.io/hashicorp/aws`: part by
/// part, `*` for any.
fn provider_matches(pattern: &str, source: &str) -> bool {
    let (p, s): (Vec<&str>, Vec<&str>) =
        (pattern.split('/').collect(), source.split('/').collect());
    p.len() == s.len()
        && p.iter()
            .zip(&s)
            .all(|(p, s)| *p == "*" || p.eq_ignore_ascii_case(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sandboxed(relayed_ports: &[u16]) -> SandboxFacts {
        SandboxFacts {
            egress_filtered: true,
            relayed_ports: relayed_ports.to_vec(),
            proxy_refused: Vec::new(),
            allowed_providers: vec!["registry.terraform.io/hashicorp/*".into()],
        }
    }

    /// Terraform 1.0.3's `init` with an S3 backend on a loopback port (its own output).
    const S3_REFUSED: &str = "Error refreshing state: RequestError: send request failed\ncaused by: Get \"http://127.0.0.1:9000/b/k\": dial tcp 127.0.0.1:9000: connect: connection refused";

    #[test]
    fn a_loopback_port_no_relay_serves_is_egress_blocked() {
        let blocked = Refusal::EgressBlocked {
            endpoint: Some("127.0.0.1:9000".into()),
        };
        assert_eq!(
            sandbox_refusal(S3_REFUSED, &sandboxed(&[3128])),
            Some(blocked)
        );
        // The relay serves 9000 (allowlisted): the host's service itself refused.
        assert_eq!(sandbox_refusal(S3_REFUSED, &sandboxed(&[3128, 9000])), None);
        // Not sandboxed: the same text is the user's endpoint being down.
        let open = SandboxFacts {
            egress_filtered: false,
            ..sandboxed(&[])
        };
        assert_eq!(sandbox_refusal(S3_REFUSED, &open), None);
    }

    #[test]
    fn any_other_address_is_unreachable_inside_the_sandbox() {
        let table = [
            (
                "dial tcp 10.0.4.7:5432: connect: network is unreachable",
                Some("10.0.4.7:5432"),
            ),
            (
                "dial tcp [fd00::5]:443: connect: network is unreachable",
                Some("[fd00::5]:443"),
            ),
            (
                "dial tcp [::1]:8200: connect: connection refused",
                Some("[::1]:8200"),
            ),
            ("dial tcp: lookup example.com: no such host", None),
            ("dial tcp 127.0.0.1:3128: connect: connection refused", None),
            ("AccessDenied: not authorized", None),
        ];
        for (text, want) in table {
            let got = sandbox_refusal(text, &sandboxed(&[3128]));
            let want = want.map(|e| Refusal::EgressBlocked {
                endpoint: Some(e.to_string()),
            });
            assert_eq!(got, want, "{text}");
        }
    }

    #[test]
    fn a_proxy_refusal_names_the_first_refused_endpoint() {
        let facts = SandboxFacts {
            proxy_refused: vec!["db.internal:5432".into(), "x:1".into()],
            ..sandboxed(&[3128])
        };
        for text in [
            "fetch failed: HTTP 403",
            "Forbidden",
            "RequestError: send request failed",
        ] {
            assert_eq!(
                sandbox_refusal(text, &facts),
                Some(Refusal::EgressBlocked {
                    endpoint: Some("db.internal:5432".into())
                }),
                "{text}"
            );
        }
        // A failure with an AWS cause of its own is not the proxy's doing.
        let denied = "creating EC2 Instance: UnauthorizedOperation: You are not authorized to perform this operation.\n\tstatus code: 403, request id: 5a1b";
        assert_eq!(sandbox_refusal(denied, &facts), None);
    }

    /// Terraform 1.0.3's `init` when no installation method includes the provider (wrapped as
    /// it prints it).
    const NOT_FOUND: &str = "Error: Failed to query available provider packages\n\nCould not retrieve the list of available versions for provider tfgate/fake:\nprovider registry.terraform.io/tfgate/fake was not found in any of the search\nlocations\n";

    #[test]
    fn a_provider_the_policy_does_not_list_is_named() {
        assert_eq!(
            sandbox_refusal(NOT_FOUND, &sandboxed(&[])),
            Some(Refusal::ProviderNotAllowed {
                source: "registry.terraform.io/tfgate/fake".into()
            })
        );
        // Listed (by pattern or by name) but missing from the mirror: not a refusal.
        for listed in [
            "registry.terraform.io/tfgate/*",
            "registry.terraform.io/tfgate/fake",
        ] {
            let facts = SandboxFacts {
                allowed_providers: vec![listed.into()],
                ..sandboxed(&[])
            };
            assert_eq!(sandbox_refusal(NOT_FOUND, &facts), None, "{listed}");
        }
        // Without the policy's list nothing is claimed.
        let unknown = SandboxFacts {
            allowed_providers: vec![],
            ..sandboxed(&[])
        };
        assert_eq!(sandbox_refusal(NOT_FOUND, &unknown), None);
    }
}
